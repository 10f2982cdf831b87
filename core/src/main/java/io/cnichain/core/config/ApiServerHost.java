package io.cnichain.core.config;

import java.util.regex.Pattern;

import static io.cnichain.core.config.ConfigErrors.bad;
import static io.cnichain.core.config.ConfigErrors.quoted;

/**
 * The API server's host as it goes into the kubeconfig's URL: an IPv4 address, an IPv6 address (bare or in
 * brackets) or a DNS name of RFC 1123 labels. Anything else (a port, a path, spaces, a line break) would change
 * what the URL says, so it is refused. The value is kept as given; the URL adds brackets to an IPv6 address.
 */
record ApiServerHost() implements SettingType<String>
{
    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
    private static final Pattern HEX_GROUP = Pattern.compile("[0-9A-Fa-f]{1,4}");
    private static final Pattern OCTET = Pattern.compile("0|[1-9][0-9]{0,2}");

    @Override
    public String parse(String text, String source)
    {
        boolean bracketed = text.startsWith("[") && text.endsWith("]");
        String bare = bracketed ? text.substring(1, text.length() - 1) : text;
        if (isIpv6(bare) || !bracketed && (isIpv4(bare) || isDnsName(bare))) {
            return text;
        }
        throw bad(source, quoted(text) + " is not an IPv4 address, an IPv6 address or a DNS name");
    }

    @Override
    public String format(String value)
    {
        return value;
    }

    static boolean isIpv4(String text)
    {
        String[] octets = text.split("\\.", -1);
        if (octets.length != 4) {
            return false;
        }
        for (String octet : octets) {
            if (!OCTET.matcher(octet).matches() || Integer.parseInt(octet) > 255) {
                return false;
            }
        }
        return true;
    }

    /** Eight groups of up to four hex digits, or fewer around one {@code ::}; the last two may be an IPv4 address. */
    static boolean isIpv6(String text)
    {
        int compressed = text.indexOf("::");
        if (compressed >= 0 && text.indexOf("::", compressed + 1) >= 0) {
            return false;
        }
        String[] halves = compressed >= 0 ? new String[] {text.substring(0, compressed), text.substring(compressed + 2)} : new String[] {text};
        int groups = 0;
        for (int h = 0; h < halves.length; h++) {
            if (halves[h].isEmpty() && compressed >= 0) {
                continue;
            }
            String[] parts = halves[h].split(":", -1);
            for (int i = 0; i < parts.length; i++) {
                boolean last = h == halves.length - 1 && i == parts.length - 1;
                if (last && parts[i].contains(".")) {
                    if (!isIpv4(parts[i])) {
                        return false;
                    }
                    groups += 2;
                }
                else if (HEX_GROUP.matcher(parts[i]).matches()) {
                    groups++;
                }
                else {
                    return false;
                }
            }
        }
        return compressed >= 0 ? groups <= 7 : groups == 8;
    }

    /** Labels of letters, digits and inner dashes; a name whose last label is all digits would be an IPv4 address. */
    static boolean isDnsName(String text)
    {
        if (text.isEmpty() || text.length() > 253) {
            return false;
        }
        String[] labels = text.split("\\.", -1);
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return !labels[labels.length - 1].chars().allMatch(Character::isDigit);
    }
}
