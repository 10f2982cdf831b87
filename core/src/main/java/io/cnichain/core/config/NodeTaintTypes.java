package io.cnichain.core.config;

import java.util.regex.Pattern;

import static io.cnichain.core.config.ConfigErrors.bad;
import static io.cnichain.core.config.ConfigErrors.quoted;

/**
 * The types of the node-taint settings, checked as the API server checks them: the node's name goes into a
 * request's path and the key into a JSON patch, so anything Kubernetes would refuse is refused here, at start.
 */
final class NodeTaintTypes
{
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern QUALIFIED_NAME_PART = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    private NodeTaintTypes() {}

    static boolean isDnsSubdomain(String text)
    {
        return text.length() <= 253 && DNS_SUBDOMAIN.matcher(text).matches();
    }

    /** A taint key: a qualified name, {@code [prefix/]name}, the prefix a DNS subdomain, the name at most 63 characters. */
    record TaintKey() implements SettingType<String>
    {
        @Override
        public String parse(String text, String source)
        {
            int slash = text.indexOf('/');
            String prefix = slash >= 0 ? text.substring(0, slash) : "";
            String name = text.substring(slash + 1);
            boolean prefixOk = slash < 0 || !prefix.isEmpty() && isDnsSubdomain(prefix);
            if (!prefixOk || name.length() > 63 || !QUALIFIED_NAME_PART.matcher(name).matches()) {
                throw bad(source, quoted(text) + " is not a taint key: [a DNS subdomain and '/'] then up to 63 letters, digits, '-', '_' or '.', "
                        + "starting and ending with a letter or digit");
            }
            if (prefix.equals("node.kubernetes.io") || prefix.equals("node.cloudprovider.kubernetes.io") || prefix.equals("node-role.kubernetes.io")) {
                // Kubernetes' own (node.kubernetes.io/not-ready, ...): the node lifecycle controller and the kubelet set
                // them, and removing one would let pods onto a node Kubernetes itself holds back.
                throw bad(source, quoted(text) + " is a taint of Kubernetes' own (prefix " + prefix + "); the start-up taint needs a key of "
                        + "its own, such as the default " + ConfigLoader.DEFAULT_NODE_TAINT_KEY);
            }
            return text;
        }

        @Override
        public String format(String value)
        {
            return value;
        }
    }

    /**
     * The name of a node, a pod or a namespace, which goes into a request's path: a DNS subdomain (lower-case letters,
     * digits, '-' and '.'), as Kubernetes requires of them.
     *
     * @param what what it names, for errors ({@code a node name})
     */
    record ObjectName(String what) implements SettingType<String>
    {
        @Override
        public String parse(String text, String source)
        {
            if (!isDnsSubdomain(text)) {
                throw bad(source, quoted(text) + " is not " + what + " (a DNS subdomain: lower-case letters, digits, '-' and '.')");
            }
            return text;
        }

        @Override
        public String format(String value)
        {
            return value;
        }
    }
}
