package io.cnichain.core.config;

import static io.cnichain.core.config.ConfigErrors.bad;
import static io.cnichain.core.config.ConfigErrors.quoted;

/** The types of the settings that give an address or a port: literals only, checked as such, never looked up. */
final class NetworkTypes
{
    private NetworkTypes() {}

    /** An IPv4 or IPv6 address literal (never a name: nothing is looked up). */
    record IpAddress() implements SettingType<String>
    {
        @Override
        public String parse(String text, String source)
        {
            boolean v4 = text.matches("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
            boolean v6 = text.contains(":") && text.matches("[0-9A-Fa-f:.]+");
            if (v4 || v6) {
                try {
                    java.net.InetAddress.getByName(text);
                    return text;
                }
                catch (java.net.UnknownHostException e) {
                    // not an address after all
                }
            }
            throw bad(source, quoted(text) + " is not an IP address (such as 127.0.0.1, 0.0.0.0 or ::1)");
        }

        @Override
        public String format(String value)
        {
            return value;
        }
    }

    /** An IP address literal and a port, {@code 10.0.0.7:9471} or {@code [::]:9471}; empty or {@code none} for none. */
    record ListenAddress() implements SettingType<String>
    {
        @Override
        public String parse(String text, String source)
        {
            if (text.isEmpty() || text.equals("none")) {
                return "";
            }
            int colon = text.lastIndexOf(':');
            if (colon > 0) {
                String host = text.substring(0, colon);
                if (host.startsWith("[") && host.endsWith("]")) {
                    host = host.substring(1, host.length() - 1);
                }
                else if (host.contains(":")) {
                    throw bad(source, quoted(text) + " is not an address and port: an IPv6 address goes in brackets, [::1]:9471");
                }
                new IpAddress().parse(host, source);
                new PortNumber().parse(text.substring(colon + 1), source);
                return text;
            }
            throw bad(source, quoted(text) + " is not an address and port (such as 10.0.0.7:9471 or 0.0.0.0:9471)");
        }

        @Override
        public String format(String value)
        {
            return value.isEmpty() ? "none" : value;
        }
    }

    /** A TCP port, 1 to 65535, as decimal digits; kept as text for the URL. */
    record PortNumber() implements SettingType<String>
    {
        @Override
        public String parse(String text, String source)
        {
            if (text.matches("[0-9]{1,5}")) {
                int port = Integer.parseInt(text);
                if (port >= 1 && port <= 65535) {
                    return Integer.toString(port);
                }
            }
            throw bad(source, quoted(text) + " is not a port number");
        }

        @Override
        public String format(String value)
        {
            return value;
        }
    }
}
