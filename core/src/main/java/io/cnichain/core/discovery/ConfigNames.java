package io.cnichain.core.discovery;

import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.spi.CniConfig;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which file names are configurations. Runtimes (libcni's {@code ConfFiles}, used by containerd and CRI-O) load
 * every entry that is not a directory and whose extension, as Go's {@code filepath.Ext} sees it, is exactly
 * {@code .conf}, {@code .conflist} or {@code .json}: hidden files included. Other names are never configurations on
 * any platform (other tools' temp files such as Cilium's {@code .05-cilium.conflist123}, backups, kubeconfigs):
 * events on them are noise, and no adapter may name them.
 */
public final class ConfigNames
{
    public static final List<String> RUNTIME_EXTENSIONS = List.of(".conf", ".conflist", ".json");

    private static final String CILIUM_BACKUP = ".cilium_bak";
    private static final List<String> NEVER_CONFIG_SUFFIXES = List.of(CILIUM_BACKUP, ".tmp", ".install", ".old", ".bak", ".swp", "~");

    private ConfigNames() {}

    /**
     * Cilium's exclusive mode renames every other configuration to {@code NAME.cilium_bak}, and in chaining mode reads
     * those backups back to build its own file (cilium daemon/cmd/cni/config.go, {@code findCNINetwork}): an entry of ours
     * in one comes back into the file the runtime loads.
     *
     * @return the name a backup had as a configuration, if {@code name} is such a backup
     */
    public static Optional<String> backedUpName(String name)
    {
        if (!name.endsWith(CILIUM_BACKUP) || name.startsWith(".")) {
            return Optional.empty();
        }
        String before = name.substring(0, name.length() - CILIUM_BACKUP.length());
        return isRuntimeLoadable(before) ? Optional.of(before) : Optional.empty();
    }

    /**
     * @param name a file name
     * @return whether the name is never a configuration: not one the runtime loads, and a hidden file, a backup, a
     *         temp file or a kubeconfig
     */
    public static boolean isNeverConfig(String name)
    {
        if (isRuntimeLoadable(name)) {
            return false;
        }
        if (name.startsWith(".") || AtomicFileWriter.isTempName(name)) {
            return true;
        }
        for (String suffix : NEVER_CONFIG_SUFFIXES) {
            if (name.endsWith(suffix)) {
                return true;
            }
        }
        return containsIgnoreCase(name, "kubeconfig");
    }

    /** {@code name.toLowerCase(Locale.ROOT).contains(word)} for a lower-case ASCII word, without a copy for ASCII names. */
    private static boolean containsIgnoreCase(String name, String word)
    {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) >= 0x80) {
                return name.toLowerCase(Locale.ROOT).contains(word);
            }
        }
        for (int i = 0; i + word.length() <= name.length(); i++) {
            int j = 0;
            while (j < word.length() && asciiLower(name.charAt(i + j)) == word.charAt(j)) {
                j++;
            }
            if (j == word.length()) {
                return true;
            }
        }
        return false;
    }

    private static char asciiLower(char c)
    {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    /**
     * @param name a file name
     * @return whether a container runtime loads a (non-directory) entry of that name as a configuration
     */
    public static boolean isRuntimeLoadable(String name)
    {
        for (String extension : RUNTIME_EXTENSIONS) {
            if (name.endsWith(extension)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The format a runtime expects from the name alone: a {@code .conflist} is a list, a {@code .conf} or
     * {@code .json} a single plugin. Other names (a {@code .conflist-current}) say nothing.
     *
     * @param name a file name
     * @return the format the name implies
     */
    public static Optional<CniConfig.Format> formatByName(String name)
    {
        if (name.endsWith(".conflist")) {
            return Optional.of(CniConfig.Format.LIST);
        }
        if (name.endsWith(".conf") || name.endsWith(".json")) {
            return Optional.of(CniConfig.Format.SINGLE);
        }
        return Optional.empty();
    }

    /**
     * The order of the names' UTF-8 bytes, without encoding them: up to the first differing character the bytes are
     * the same, and two different characters outside the surrogate range compare in UTF-8 as they do as characters
     * (UTF-8 keeps the order of code points and no encoding is a prefix of another). Surrogates are compared by
     * their bytes.
     */
    static int compareBytes(String a, String b)
    {
        int length = Math.min(a.length(), b.length());
        for (int i = 0; i < length; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                if (Character.isSurrogate(x) || Character.isSurrogate(y)) {
                    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
                }
                return Character.compare(x, y);
            }
        }
        return Integer.compare(a.length(), b.length());
    }
}
