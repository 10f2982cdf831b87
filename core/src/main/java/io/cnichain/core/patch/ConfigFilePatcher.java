package io.cnichain.core.patch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.CniConfigParser.LoadedConfig;
import io.cnichain.core.json.JsonValue;
import io.cnichain.spi.CniConfig.Format;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Decides what installing or removing our entry does to one file, from its name and bytes: rewrite it, convert a
 * single-plugin file to a list (or back), leave it, or refuse it with a reason. Never plans a write from bytes that do
 * not parse, and what it plans always parses again (it is checked, as the runtime would read it).
 */
public final class ConfigFilePatcher
{
    private ConfigFilePatcher() {}

    /**
     * @param loadName   the name the runtime loads the file by (a link's name), which decides its format
     * @param targetName the name of the file itself (a link's target)
     * @param bytes      its content
     * @param entry      our plugin entry
     * @return the plan
     */
    public static PatchPlan planInstall(String loadName, String targetName, byte[] bytes, ObjectNode entry)
    {
        LoadedConfig loaded;
        try {
            loaded = CniConfigParser.parse(loadName, bytes);
        }
        catch (CniConfigParser.InvalidConfigException e) {
            return new PatchPlan.Refused(e.getMessage(), PatchPlan.Refused.Cause.UNLOADABLE);
        }
        return planInstall(loaded, loadName, targetName, entry);
    }

    /**
     * @param loaded     the parsed file
     * @param loadName   the name the runtime loads the file by
     * @param targetName the name of the file itself
     * @param entry      our plugin entry
     * @return the plan
     */
    public static PatchPlan planInstall(LoadedConfig loaded, String loadName, String targetName, ObjectNode entry)
    {
        try {
            if (loaded.summary().format() == Format.SINGLE) {
                if (!loadName.equals(targetName)) {
                    return new PatchPlan.Refused("is a link to a single-plugin configuration; converting it to a list would break the link, so it is left alone (make the primary write a .conflist)",
                            PatchPlan.Refused.Cause.CANNOT_EDIT);
                }
                Optional<String> listName = listNameFor(targetName);
                if (listName.isEmpty()) {
                    return new PatchPlan.Refused("holds a single plugin under a name that has no list form", PatchPlan.Refused.Cause.CANNOT_EDIT);
                }
                return new PatchPlan.Replace(listName.get(), checked(listName.get(), Patcher.toList(loaded, targetName, entry)));
            }
            Optional<String> primarys = primaryPluginOfOurType(loaded, entry.get("type").asText(),
                    Optional.ofNullable(entry.get("name")).map(name -> name.asText()));
            if (primarys.isPresent()) {
                return new PatchPlan.Refused(primarys.get(), PatchPlan.Refused.Cause.CANNOT_EDIT);
            }
            Optional<String> text = Patcher.insert(loaded, entry);
            if (text.isEmpty()) {
                return new PatchPlan.Unchanged("already holds the entry");
            }
            return new PatchPlan.Rewrite(checked(loadName, text.get()));
        }
        catch (PatchException e) {
            return new PatchPlan.Refused(e.getMessage(), PatchPlan.Refused.Cause.CANNOT_EDIT);
        }
    }

    /**
     * A chained plugin is the list's last. A plugin of our type before the last, without our entry's {@code name}, is the
     * primary's own (Calico's {@code {"type": "bandwidth", "capabilities": ...}} in {@code [calico, bandwidth,
     * portmap]} when our type is set to {@code bandwidth}): install would replace it with our entry, and uninstall would
     * then remove it, and the binary with it. Ours, moved before the last by someone (it has our name), is updated where
     * it is.
     *
     * @return why, when the list runs a plugin of our type of its own
     */
    public static Optional<String> primaryPluginOfOurType(LoadedConfig loaded, String type, Optional<String> ourName)
    {
        List<LoadedConfig.Plugin> plugins = loaded.plugins();
        for (int i = 0; i < plugins.size() - 1; i++) {
            LoadedConfig.Plugin plugin = plugins.get(i);
            Optional<String> name = plugin.value() instanceof JsonValue.JObject object
                    ? object.get("name").filter(value -> value instanceof JsonValue.JString).map(value -> ((JsonValue.JString) value).value())
                    : Optional.empty();
            if (plugin.type().equals(type) && (ourName.isEmpty() || !name.equals(ourName))) {
                return Optional.of("already runs a plugin of type " + type + " of its own (plugin " + (i + 1) + " of " + plugins.size()
                        + ", not the last" + (ourName.isPresent() ? ", not named " + ourName.get() : "") + "): a chained plugin of the same "
                        + "type would replace it, and uninstall would remove it; give the chained plugin a type the primary's list does not use");
            }
        }
        return Optional.empty();
    }

    /**
     * @param loadName   the name the runtime loads the file by
     * @param targetName the name of the file itself
     * @param bytes      its content
     * @param type       our plugin type
     * @return the plan: remove our entry, and put back a single-plugin file we converted
     */
    public static PatchPlan planUninstall(String loadName, String targetName, byte[] bytes, String type)
    {
        return planUninstall(loadName, targetName, bytes, type, Optional.empty());
    }

    /**
     * @param ourName our entry's {@code name}, when known: a plugin of our type that is not ours (see
     *                {@link #primaryPluginOfOurType}) makes the plan a refusal, so that nothing of the primary's goes
     * @return the plan
     */
    public static PatchPlan planUninstall(String loadName, String targetName, byte[] bytes, String type, Optional<String> ourName)
    {
        LoadedConfig loaded;
        try {
            loaded = CniConfigParser.parse(loadName, bytes);
        }
        catch (CniConfigParser.TooComplex e) {
            return new PatchPlan.Refused(e.getMessage(), PatchPlan.Refused.Cause.BEYOND_OUR_LIMITS);
        }
        catch (CniConfigParser.InvalidConfigException e) {
            return new PatchPlan.Refused(e.getMessage(), PatchPlan.Refused.Cause.UNLOADABLE);
        }
        if (loaded.summary().format() == Format.SINGLE) {
            return new PatchPlan.Unchanged("is a single-plugin configuration; nothing of ours in it");
        }
        Optional<String> primarys = ourName.isEmpty() ? Optional.empty() : primaryPluginOfOurType(loaded, type, ourName);
        if (primarys.isPresent()) {
            return new PatchPlan.Refused(primarys.get(), PatchPlan.Refused.Cause.CANNOT_EDIT);
        }
        try {
            Optional<String> removed = Patcher.remove(loaded, type);
            if (removed.isEmpty()) {
                return new PatchPlan.Unchanged("holds no " + type + " entry");
            }
            LoadedConfig without = CniConfigParser.parse(loadName, removed.get().getBytes(StandardCharsets.UTF_8));
            if (loadName.equals(targetName)) {
                Optional<Patcher.Restored> restored = Patcher.restoreSingle(without);
                if (restored.isPresent() && listNameFor(restored.get().name()).equals(Optional.of(targetName))) {
                    return new PatchPlan.Replace(restored.get().name(), checked(restored.get().name(), restored.get().content()));
                }
            }
            // Not given back as a single plugin (edited since): our marker goes with our entry.
            Optional<String> unmarked = Patcher.withoutConvertedFrom(without);
            return new PatchPlan.Rewrite(unmarked.isPresent() ? checked(loadName, unmarked.get()) : removed.get().getBytes(StandardCharsets.UTF_8));
        }
        catch (PatchException e) {
            return new PatchPlan.Refused(e.getMessage(), PatchPlan.Refused.Cause.CANNOT_EDIT);
        }
    }

    /** What we write must load as the runtime loads it; anything else is a bug caught before the write. */
    private static byte[] checked(String name, String text)
    {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        try {
            CniConfigParser.parse(name, bytes);
        }
        catch (CniConfigParser.InvalidConfigException e) {
            throw new PatchException("the patched text would not load (" + e.getMessage() + "); not written");
        }
        return bytes;
    }

    /**
     * @param singleName the name of a single-plugin file
     * @return the name of its list form: {@code x.conf} and {@code x.json} become {@code x.conflist}
     */
    public static Optional<String> listNameFor(String singleName)
    {
        if (singleName.endsWith(".conf")) {
            return Optional.of(singleName + "list");
        }
        if (singleName.endsWith(".json")) {
            return Optional.of(singleName.substring(0, singleName.length() - ".json".length()) + ".conflist");
        }
        return Optional.empty();
    }
}
