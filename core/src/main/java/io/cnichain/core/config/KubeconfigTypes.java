package io.cnichain.core.config;

import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.FileMode;

import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.regex.Pattern;

import static io.cnichain.core.config.ConfigErrors.bad;
import static io.cnichain.core.config.ConfigErrors.quoted;

/** The types of the plugin's kubeconfig settings: the file holds a service-account token. */
final class KubeconfigTypes
{
    private KubeconfigTypes() {}

    /**
     * A plain file name in the configuration directory that the container runtime never loads: with a
     * {@code .conf}, {@code .conflist} or {@code .json} name the token-bearing file would be read as a configuration.
     */
    record FileName() implements SettingType<String>
    {
        private static final Pattern PLAIN = Pattern.compile("[^/\\x00]+");

        @Override
        public String parse(String text, String source)
        {
            if (!PLAIN.matcher(text).matches() || text.equals(".") || text.equals("..")) {
                throw bad(source, quoted(text) + " is not a plain file name");
            }
            for (String extension : ConfigNames.RUNTIME_EXTENSIONS) {
                if (text.endsWith(extension)) {
                    throw bad(source, quoted(text) + " ends in " + extension + ": the container runtime would read the kubeconfig, "
                            + "which holds a service-account token, as a CNI configuration");
                }
                // x.conflist-current: the file behind OCI's link, which its adapter takes for the configuration to patch.
                if (text.endsWith(extension + "-current")) {
                    throw bad(source, quoted(text) + " looks like a CNI configuration (" + extension + "-current, the file behind OCI's link): "
                            + "an adapter would take the kubeconfig, which holds a service-account token, for one; name it as Linkerd does, "
                            + "ZZZ-linkerd-cni-kubeconfig");
                }
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
     * An octal file mode such as {@code 0600}. Write access for the group or others is refused: anyone on the node could point
     * the plugin at another API server. Read access for the group or others is allowed, with a warning (see
     * {@link #readers}).
     */
    record Mode() implements SettingType<Set<PosixFilePermission>>
    {
        private static final Pattern OCTAL = Pattern.compile("0?[0-7]{3}");

        @Override
        public Set<PosixFilePermission> parse(String text, String source)
        {
            if (!OCTAL.matcher(text).matches()) {
                throw bad(source, quoted(text) + " is not an octal file mode such as 0600");
            }
            int bits = Integer.parseInt(text, 8);
            StringBuilder symbolic = new StringBuilder();
            String letters = "rwxrwxrwx";
            for (int i = 0; i < 9; i++) {
                symbolic.append((bits & (1 << (8 - i))) != 0 ? letters.charAt(i) : '-');
            }
            Set<PosixFilePermission> mode = PosixFilePermissions.fromString(symbolic.toString());
            if (mode.contains(PosixFilePermission.OTHERS_WRITE) || mode.contains(PosixFilePermission.GROUP_WRITE)) {
                // Whoever can write it can point every pod's linkerd-cni at another API server, with our token.
                throw bad(source, format(mode) + " lets " + (mode.contains(PosixFilePermission.OTHERS_WRITE) ? "others" : "its group")
                        + " write the kubeconfig, which holds a service-account token and names the API server every pod's plugin "
                        + "trusts; use a mode writable by its owner only, such as 0600 or 0644");
            }
            return mode;
        }

        @Override
        public Set<PosixFilePermission> fromYaml(YamlValue value)
        {
            if (value.raw() instanceof Number number) {
                // YAML reads an unquoted 0644 as the octal number 420, which would read back as the mode 0420.
                throw bad(value.source(), number + " is a number, not an octal file mode: write the mode in quotes, such as \"0600\"");
            }
            return parse(value.scalar(), value.source());
        }

        @Override
        public String format(Set<PosixFilePermission> value)
        {
            return String.format("0%03o", FileMode.bits(value));
        }

        /**
         * @param mode a mode
         * @return who besides the owner can read a file with that mode: "its group", "others", "its group and
         *         others", or empty
         */
        static String readers(Set<PosixFilePermission> mode)
        {
            boolean group = mode.contains(PosixFilePermission.GROUP_READ);
            boolean others = mode.contains(PosixFilePermission.OTHERS_READ);
            return group && others ? "its group and others" : group ? "its group" : others ? "others" : "";
        }
    }
}
