package io.cnichain.core.json;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A JSON value as it stands in a document: every member of an object in file order (duplicate keys kept, as Go's
 * decoder sees them before it decides which one wins) and the span {@code [start, end)} of every value in the
 * document's text, so that a file can be edited where it changes and left byte for byte elsewhere.
 */
public sealed interface JsonValue
        permits JsonValue.JObject, JsonValue.JArray, JsonValue.JString, JsonValue.JNumber, JsonValue.JBool, JsonValue.JNull
{
    /** Offset of the value's first character in the document text. */
    int start();

    /** Offset just past the value's last character. */
    int end();

    /** What Go calls the value in its error messages ("number", "string", "object"...). */
    String kind();

    /**
     * An object.
     *
     * @param members every member in file order, duplicates included
     */
    record JObject(List<Member> members, int start, int end)
            implements JsonValue
    {
        public JObject
        {
            members = List.copyOf(members);
        }

        /**
         * The member a Go map decode keeps for an exact key: the last one.
         *
         * @param key the key, compared exactly
         * @return the value
         */
        public Optional<JsonValue> get(String key)
        {
            JsonValue found = null;
            for (Member member : members) {
                if (member.key().equals(key)) {
                    found = member.value();
                }
            }
            return Optional.ofNullable(found);
        }

        @Override
        public String kind()
        {
            return "object";
        }
    }

    /**
     * One {@code "key": value} of an object.
     *
     * @param key      the decoded key
     * @param value    the value
     * @param keyStart offset of the key's opening quote
     */
    record Member(String key, JsonValue value, int keyStart)
    {
        public Member
        {
            requireNonNull(key, "key is null");
            requireNonNull(value, "value is null");
        }
    }

    /** An array. */
    record JArray(List<JsonValue> elements, int start, int end)
            implements JsonValue
    {
        public JArray
        {
            elements = List.copyOf(elements);
        }

        @Override
        public String kind()
        {
            return "array";
        }
    }

    /** A string, decoded (escapes resolved, invalid UTF-8 and lone surrogates as U+FFFD, as Go decodes them). */
    record JString(String value, int start, int end)
            implements JsonValue
    {
        @Override
        public String kind()
        {
            return "string";
        }
    }

    /** A number, as written. */
    record JNumber(String text, int start, int end)
            implements JsonValue
    {
        @Override
        public String kind()
        {
            return "number";
        }
    }

    /** {@code true} or {@code false}. */
    record JBool(boolean value, int start, int end)
            implements JsonValue
    {
        @Override
        public String kind()
        {
            return "bool";
        }
    }

    /** {@code null}. */
    record JNull(int start, int end)
            implements JsonValue
    {
        @Override
        public String kind()
        {
            return "null";
        }
    }
}
