package io.cnichain.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.nio.file.Path;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The chained plugin's entry, as a template: every {@value #KUBECONFIG_PLACEHOLDER} in a string value is
 * replaced by the host path of the plugin's kubeconfig.
 *
 * @param template the entry; has a string {@code type}
 * @param source   where it came from, for the log ("CNI_NETWORK_CONFIG environment variable", a file...)
 */
public record PluginEntry(ObjectNode template, String source)
{
    public static final String KUBECONFIG_PLACEHOLDER = "__KUBECONFIG_FILEPATH__";

    /** Linkerd's entry, as its chart renders it by default. */
    public static final String LINKERD_DEFAULT = """
            {"name":"linkerd-cni","type":"linkerd-cni","log_level":"info",\
            "kubernetes":{"kubeconfig":"__KUBECONFIG_FILEPATH__"},\
            "linkerd":{"incoming-proxy-port":4143,"outgoing-proxy-port":4140,"proxy-uid":2102,\
            "ports-to-redirect":[],"inbound-ports-to-ignore":["4191","4190"],"simulate":false,\
            "use-wait-flag":false,"iptables-mode":"nft","ipv6":false}}""";

    public PluginEntry
    {
        requireNonNull(template, "template is null");
        requireNonNull(source, "source is null");
        JsonNode type = template.get("type");
        if (type == null || !type.isTextual() || type.asText().isBlank()) {
            throw new IllegalArgumentException("the chained plugin entry has no 'type'");
        }
        template = template.deepCopy();
    }

    /** The plugin's type: how its entry is recognised in a list, and the name of its binary. */
    public String type()
    {
        return template.get("type").asText();
    }

    /**
     * @param kubeconfigHostPath the host path of the plugin's kubeconfig
     * @return the entry to install
     */
    public ObjectNode render(Path kubeconfigHostPath)
    {
        ObjectNode entry = template.deepCopy();
        substitute(entry, kubeconfigHostPath.toString());
        return entry;
    }

    /** The name used in log lines, Linkerd style: {@code linkerd} for {@code linkerd-cni}. */
    public String shortName()
    {
        String type = type();
        return type.endsWith("-cni") ? type.substring(0, type.length() - "-cni".length()) : type;
    }

    private static void substitute(JsonNode node, String value)
    {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                if (field.getValue().isTextual()) {
                    field.setValue(TextNode.valueOf(field.getValue().asText().replace(KUBECONFIG_PLACEHOLDER, value)));
                }
                else {
                    substitute(field.getValue(), value);
                }
            }
        }
        else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                if (array.get(i).isTextual()) {
                    array.set(i, TextNode.valueOf(array.get(i).asText().replace(KUBECONFIG_PLACEHOLDER, value)));
                }
                else {
                    substitute(array.get(i), value);
                }
            }
        }
    }
}
