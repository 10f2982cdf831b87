package io.cnichain.core.config;

import java.util.List;

/**
 * Which adapter decides: {@code auto} (every adapter scores the node, the highest wins), one name, or an
 * ordered list of names (the first that finds something to patch wins).
 *
 * @param names the adapter names, empty for {@code auto}
 */
public record AdapterChoice(List<String> names)
{
    public static final String AUTO = "auto";

    public AdapterChoice
    {
        names = List.copyOf(names);
    }

    public static AdapterChoice auto()
    {
        return new AdapterChoice(List.of());
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
