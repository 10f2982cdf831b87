package io.cnichain.core.discovery;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.Printable;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.fs.BoundedFileReader;
import io.cnichain.core.fs.linux.FileSystemCalls;
import io.cnichain.core.fs.linux.PathNames;
import io.cnichain.core.json.CniJson;
import io.cnichain.core.json.GoJsonParser;
import io.cnichain.core.json.GoText;
import io.cnichain.core.json.JsonValue;
import io.cnichain.spi.CniConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * libcni 1.3's drop-in rule (CNI spec 1.1's plugin directory), as its {@code NetworkConfFromFile} applies it: a list
 * read from {@code <dir>/<file>.conflist} whose {@code loadOnlyInlinedPlugins} is not true gets, after its own plugins,
 * every {@code *.conf} file of {@code <dir>/<its name>} ({@code filepath.Join}, so the name is cleaned as a path), in
 * file-name order, subdirectories skipped, each decoded as a plugin that must have a {@code type}. A missing directory
 * adds nothing; a directory that cannot be listed, or a file that cannot be read or decoded, fails the whole list.
 * Single-plugin files ({@code .conf}, {@code .json}) never get drop-ins, and libcni 1.1 knows none of this.
 */
public final class DropIns
{
    /** The only extension libcni reads in a plugin directory. */
    public static final String EXTENSION = ".conf";

    private DropIns() {}

    /**
     * What libcni 1.3 appends to one list.
     *
     * @param directory the plugin directory (host path), when the rule applies to the list
     * @param plugins   its drop-ins, in the order the runtime runs them
     * @param failure   why libcni fails to load the list because of them (the list is then no runtime's)
     * @param unknown   why the agent cannot tell what they are (a link, a file it may not read), when it cannot
     */
    public record Reading(Optional<Path> directory, List<DropIn> plugins, Optional<String> failure, Optional<String> unknown)
    {
        public Reading
        {
            requireNonNull(directory, "directory is null");
            plugins = List.copyOf(plugins);
            requireNonNull(failure, "failure is null");
            requireNonNull(unknown, "unknown is null");
        }

        static final Reading NONE = new Reading(Optional.empty(), List.of(), Optional.empty(), Optional.empty());

        /** @return the types of the drop-ins, in order */
        public List<String> types()
        {
            return plugins.stream().map(DropIn::type).toList();
        }
    }

    /**
     * One drop-in file.
     *
     * @param path  its host path
     * @param type  the type libcni runs it as
     * @param bytes its content
     */
    public record DropIn(Path path, String type, byte[] bytes) {}

    /**
     * Why libcni 1.3 appends no drop-in to this configuration, loaded under this name, or empty when it does.
     *
     * @param loadName the name the runtime loads it by (the conf dir's entry)
     * @param config   what it holds
     */
    public static Optional<String> whyNone(String loadName, LoadedConfig config)
    {
        if (config.summary().format() != CniConfig.Format.LIST || !loadName.endsWith(".conflist")) {
            return Optional.of(loadName + " is a single-plugin configuration, which libcni loads without drop-ins");
        }
        if (loadOnlyInlinedPlugins(config.root())) {
            return Optional.of(loadName + " sets loadOnlyInlinedPlugins: true, so libcni loads its own plugins only");
        }
        return Optional.empty();
    }

    /**
     * The plugin directory of a network, for writing: only a name that is one plain path element, which
     * {@code filepath.Join} keeps as it is ({@link #whyNotItsOwn}).
     *
     * @return the directory, or empty when there is none of its own to write
     */
    public static Optional<Path> writableDirectory(Path confDir, String networkName)
    {
        return whyNotItsOwn(confDir, networkName).isEmpty() ? Optional.of(confDir.resolve(networkName)) : Optional.empty();
    }

    /**
     * Why libcni's plugin directory for a network is not a directory of its own in the conf dir, or empty when it is.
     * Any name but one plain path element ({@code ""}, {@code .}, {@code ..}, one with a {@code /}) makes libcni read
     * another directory (the conf dir itself, its parent, anywhere on the host), which is nobody's to write in; a name
     * with a NUL byte, or one the JVM cannot encode as a file name, names no directory the agent can open.
     */
    public static Optional<String> whyNotItsOwn(Path confDir, String networkName)
    {
        String quoted = Printable.quoted(networkName);
        if (networkName.indexOf('\0') >= 0) {
            return Optional.of("the network name " + quoted + " holds a NUL byte, which no file name can");
        }
        if (networkName.isEmpty() || networkName.equals(".") || networkName.equals("..") || networkName.indexOf('/') >= 0) {
            Optional<Path> joined = joined(confDir, networkName);
            String where = joined.isEmpty() ? "a directory the agent cannot name"
                    : joined.get().equals(confDir) ? "the conf dir itself" : Printable.line(joined.get().toString());
            return Optional.of("the network name " + quoted + " is not one directory name: libcni reads its drop-ins from " + where);
        }
        if (joined(confDir, networkName).isEmpty()) {
            return Optional.of("the network name " + quoted + " cannot be a file name in the JVM's path encoding (" + PathNames.ENCODING + ")");
        }
        return Optional.empty();
    }

    /**
     * Go's {@code filepath.Join(dir, name)}: the name cleaned as a relative path below {@code dir}, or above it. Only
     * computed, never opened: where it leads is named in a message, and only a name {@link #whyNotItsOwn} accepts (or
     * one that leads back to the conf dir) is read.
     *
     * @return empty when the JVM cannot name it (a NUL byte, a character its path encoding lacks)
     */
    static Optional<Path> joined(Path confDir, String networkName)
    {
        if (networkName.indexOf('\0') >= 0) {
            return Optional.empty();
        }
        // Leading slashes dropped by hand: String.replaceAll would compile its pattern again on every pass.
        int start = 0;
        while (start < networkName.length() && networkName.charAt(start) == '/') {
            start++;
        }
        String relative = networkName.substring(start);
        try {
            return Optional.of(relative.isEmpty() ? confDir : confDir.resolve(relative).normalize());
        }
        catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    /**
     * Reads what libcni 1.3 appends to a list the runtime loads from the conf dir. Only the network's own directory is
     * read, or the conf dir itself when the name leads back to it; a name that leads anywhere else (outside the allowed
     * roots, perhaps) is never joined to a path: the reading says what libcni does there is unknown, and why.
     *
     * @param layout   the node
     * @param reader   the bounded reader every configuration is read with
     * @param loadName the name the runtime loads the list by
     * @param config   the list
     */
    static Reading read(NodeLayout layout, BoundedFileReader reader, String loadName, LoadedConfig config)
    {
        if (whyNone(loadName, config).isPresent()) {
            return Reading.NONE;
        }
        String name = config.summary().networkName();
        Optional<String> notItsOwn = whyNotItsOwn(layout.confDir(), name);
        Path directory;
        if (notItsOwn.isEmpty()) {
            directory = layout.confDir().resolve(name);
        }
        else if (joined(layout.confDir(), name).filter(layout.confDir()::equals).isPresent()) {
            directory = layout.confDir();
        }
        else {
            return new Reading(Optional.empty(), List.of(), Optional.empty(), Optional.of(notItsOwn.get() + ", which the agent does not read"));
        }
        Optional<Path> known = Optional.of(directory);
        Path container = layout.host().toContainer(directory);
        // Asked without an exception: on most nodes the directory is not there, and every pass asks.
        OptionalInt mode;
        try {
            mode = FileSystemCalls.get().modeOf(container);
        }
        catch (IOException e) {
            return new Reading(known, List.of(), Optional.empty(), Optional.of(directory + " cannot be listed: " + e.getMessage()));
        }
        if (mode.isEmpty()) {
            return new Reading(known, List.of(), Optional.empty(), Optional.empty());
        }
        if (FileSystemCalls.isSymbolicLink(mode.getAsInt())) {
            return new Reading(known, List.of(), Optional.empty(), Optional.of(directory + " is a link, which the agent does not follow"));
        }
        if (!FileSystemCalls.isDirectory(mode.getAsInt())) {
            // Never opened: a FIFO there would block the open until someone writes to it.
            return new Reading(known, List.of(), Optional.of(directory + " is " + FileSystemCalls.kindOf(mode.getAsInt()) + ", not a directory, so libcni "
                    + "cannot read the drop-ins of network " + Printable.quoted(name) + " and does not load " + loadName), Optional.empty());
        }
        List<String> names = new ArrayList<>();
        try {
            for (FileSystemCalls.EntryName entry : FileSystemCalls.get().listNames(container)) {
                Optional<Path> path = entry.exact() ? PathNames.toPath(container, entry.bytes()) : Optional.empty();
                if (path.isEmpty()) {
                    // Named by text, not as a path: the JVM cannot make a path of it.
                    String printable = PathNames.printable(entry.bytes());
                    if (printable.endsWith(EXTENSION)) {
                        return new Reading(known, List.of(), Optional.empty(), Optional.of(directory + "/" + printable + " has a name the agent cannot "
                                + "open (its bytes are not valid " + PathNames.ENCODING + "), and libcni reads it as a drop-in of " + Printable.quoted(name)));
                    }
                    continue;
                }
                String file = path.get().getFileName().toString();
                if (file.endsWith(EXTENSION) && !Files.isDirectory(path.get(), LinkOption.NOFOLLOW_LINKS)) {
                    names.add(file);
                }
            }
        }
        catch (NoSuchFileException e) {
            return new Reading(known, List.of(), Optional.empty(), Optional.empty());
        }
        catch (NotDirectoryException e) {
            return new Reading(known, List.of(), Optional.of(directory + " is not a directory, so libcni cannot read the drop-ins of network "
                    + Printable.quoted(name) + " and does not load " + loadName), Optional.empty());
        }
        catch (IOException e) {
            return new Reading(known, List.of(), Optional.empty(), Optional.of(directory + " cannot be listed: " + e.getMessage()));
        }
        names.sort(NodeSnapshot.BYTE_ORDER);
        List<DropIn> plugins = new ArrayList<>();
        for (String file : names) {
            Path path = directory.resolve(file);
            byte[] bytes;
            try {
                bytes = reader.read(container.resolve(file), path);
            }
            catch (CniChainException e) {
                if (e.code() == ErrorCode.IO && !Files.exists(container.resolve(file), LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                return new Reading(known, plugins, Optional.empty(), Optional.of(e.getMessage() + " (libcni reads it as a drop-in of " + Printable.quoted(name)
                        + ")"));
            }
            try {
                plugins.add(new DropIn(path, decode(bytes), bytes));
            }
            catch (CniConfigParser.TooComplex e) {
                return new Reading(known, plugins, Optional.empty(), Optional.of(path + " " + e.getMessage()));
            }
            catch (CniConfigParser.InvalidConfigException e) {
                return new Reading(known, plugins, Optional.of(path + ": " + e.getMessage() + "; libcni fails to load " + loadName
                        + ", whose drop-in it is"), Optional.empty());
            }
        }
        return new Reading(known, plugins, Optional.empty(), Optional.empty());
    }

    /** The type libcni runs a drop-in's bytes as ({@code NetworkPluginConfFromBytes}), if it accepts them. */
    public static Optional<String> pluginType(byte[] bytes)
    {
        try {
            return Optional.of(decode(bytes));
        }
        catch (CniConfigParser.InvalidConfigException e) {
            return Optional.empty();
        }
    }

    /** The bytes decoded straight into libcni's {@code PluginConf}, in file order (no re-encoding): the type, or why not. */
    private static String decode(byte[] bytes)
    {
        JsonValue document;
        try {
            document = GoJsonParser.parse(GoText.decode(bytes));
        }
        catch (GoJsonParser.TooManyValues e) {
            throw new CniConfigParser.TooComplex(e.getMessage());
        }
        catch (CniJson.InvalidJsonException e) {
            throw new CniConfigParser.InvalidConfigException(e.getMessage());
        }
        return LibcniRules.pluginType(document, "plugin", false, LibcniGeneration.V1_3);
    }

    /** libcni's {@code readBool}: a JSON boolean or the text "true"/"false" in any case; anything else already failed the list. */
    static boolean loadOnlyInlinedPlugins(JsonValue.JObject root)
    {
        Optional<JsonValue> value = root.get("loadOnlyInlinedPlugins");
        if (value.isEmpty()) {
            return false;
        }
        if (value.get() instanceof JsonValue.JBool b) {
            return b.value();
        }
        return value.get() instanceof JsonValue.JString s && s.value().toLowerCase(Locale.ROOT).equals("true");
    }
}
