package io.cnichain.core.json;

/** Where a JSON string literal ends, for spans the parser does not keep (the end of an object key). */
final class GoStrings
{
    private GoStrings() {}

    /**
     * @param text  a document already parsed
     * @param quote the offset of a string's opening quote
     * @return the offset just past its closing quote
     */
    static int endOfString(String text, int quote)
    {
        int i = quote + 1;
        while (text.charAt(i) != '"') {
            i += text.charAt(i) == '\\' ? 2 : 1;
        }
        return i + 1;
    }
}
