package io.cnichain.core.discovery;

import io.cnichain.core.json.JsonValue;
import io.cnichain.core.json.JsonValue.JArray;
import io.cnichain.core.json.JsonValue.JBool;
import io.cnichain.core.json.JsonValue.JNull;
import io.cnichain.core.json.JsonValue.JObject;
import io.cnichain.core.json.JsonValue.JString;
import io.cnichain.core.json.JsonValue.Member;

import java.util.HashMap;
import java.util.Map;

/**
 * The fields Go decodes a plugin into for {@link LibcniRules}: libcni's {@code types.PluginConf}, and the shape each
 * field's value must have.
 */
final class PluginFields
{
    private PluginFields() {}

    /**
     * How a value must look to decode into a field's Go type; {@code null} fits every field.
     *
     * @param shape  the Go type's shape
     * @param fields a struct's fields (for {@link Shape#STRUCT} and {@link Shape#STRUCT_ARRAY})
     */
    record Check(Shape shape, Map<String, Check> fields)
    {
        enum Shape
        {
            STRING, OBJECT, BOOL_MAP, STRING_ARRAY, STRUCT, STRUCT_ARRAY
        }

        static Check string()
        {
            return new Check(Shape.STRING, Map.of());
        }

        static Check object()
        {
            return new Check(Shape.OBJECT, Map.of());
        }

        static Check boolMap()
        {
            return new Check(Shape.BOOL_MAP, Map.of());
        }

        static Check stringArray()
        {
            return new Check(Shape.STRING_ARRAY, Map.of());
        }

        static Check struct(Map<String, Check> fields)
        {
            return new Check(Shape.STRUCT, fields);
        }

        static Check structArray(Map<String, Check> fields)
        {
            return new Check(Shape.STRUCT_ARRAY, fields);
        }

        void check(JsonValue value, String where)
        {
            switch (shape) {
                case STRING -> expect(value instanceof JString || value instanceof JNull, value, where, "a string");
                case OBJECT -> expect(value instanceof JObject || value instanceof JNull, value, where, "an object");
                case BOOL_MAP -> {
                    expect(value instanceof JObject || value instanceof JNull, value, where, "an object of booleans");
                    if (value instanceof JObject object) {
                        for (Member m : object.members()) {
                            expect(m.value() instanceof JBool || m.value() instanceof JNull, m.value(), where + "." + m.key(), "a boolean");
                        }
                    }
                }
                case STRING_ARRAY -> {
                    expect(value instanceof JArray || value instanceof JNull, value, where, "an array of strings");
                    if (value instanceof JArray array) {
                        for (JsonValue element : array.elements()) {
                            string().check(element, where + "[]");
                        }
                    }
                }
                case STRUCT -> {
                    expect(value instanceof JObject || value instanceof JNull, value, where, "an object");
                    if (value instanceof JObject object) {
                        LibcniRules.decodeStruct(object, fields, where, false);
                    }
                }
                case STRUCT_ARRAY -> {
                    expect(value instanceof JArray || value instanceof JNull, value, where, "an array of objects");
                    if (value instanceof JArray array) {
                        for (JsonValue element : array.elements()) {
                            struct(fields).check(element, where + "[]");
                        }
                    }
                }
            }
        }

        private static void expect(boolean ok, JsonValue value, String where, String wanted)
        {
            if (!ok) {
                throw LibcniRules.invalid(where + " is " + LibcniRules.a(value) + ", not " + wanted + " (libcni cannot decode it)");
            }
        }
    }

    /** libcni 1.1's types.NetConf: no GC yet, so no valid attachments; a key of that name is any other key. */
    static Map<String, Check> of(LibcniGeneration generation)
    {
        return generation == LibcniGeneration.V1_1 ? PLUGIN_FIELDS_1_1 : PLUGIN_FIELDS;
    }

    /** libcni's types.PluginConf, with its IPAM, DNS and GCAttachment structs. */
    private static final Map<String, Check> PLUGIN_FIELDS = Map.of(
            "cniVersion", Check.string(),
            "name", Check.string(),
            "type", Check.string(),
            "capabilities", Check.boolMap(),
            "ipam", Check.struct(Map.of("type", Check.string())),
            "dns", Check.struct(Map.of("nameservers", Check.stringArray(), "domain", Check.string(), "search", Check.stringArray(),
                    "options", Check.stringArray())),
            "prevResult", Check.object(),
            "cni.dev/valid-attachments", Check.structArray(Map.of("containerID", Check.string(), "ifname", Check.string())));

    private static final Map<String, Check> PLUGIN_FIELDS_1_1 = without(PLUGIN_FIELDS, "cni.dev/valid-attachments");

    private static Map<String, Check> without(Map<String, Check> fields, String name)
    {
        Map<String, Check> rest = new HashMap<>(fields);
        rest.remove(name);
        return Map.copyOf(rest);
    }
}
