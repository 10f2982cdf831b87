package io.cnichain.core.config;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Which adapter decides: {@code auto} (every adapter scores the node, the highest wins), one name, or an
 * ordered list of names (the first that finds something to patch wins).
 *
 * @param names  the adapter names, empty for {@code auto}
 * @param source where the choice came from, for errors about it: {@code --adapter}, {@code <file>: key 'adapter'},
 *               or {@value #DEFAULT_SOURCE}
 */
public record AdapterChoice(List<String> names, String source)
{
    public static final String AUTO = "auto";
    public static final String DEFAULT_SOURCE = "default";

    public AdapterChoice
    {
        names = List.copyOf(names);
        requireNonNull(source, "source is null");
    }

    /** {@code auto}, by default. */
    public static AdapterChoice auto()
    {
        return new AdapterChoice(List.of(), DEFAULT_SOURCE);
    }

    public boolean isAuto()
    {
        return names.isEmpty();
    }

    @Override
    public String toString()
    {
        return isAuto() ? AUTO : names.size() == 1 ? names.get(0) : names.toString();
    }
}
