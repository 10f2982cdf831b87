package io.cnichain.core.fs;

import io.cnichain.spi.ConfigEntry.EntryKind;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where a host path leads: the kind of the path itself, the links followed, and either the regular file it
 * resolves to or the reason it does not.
 *
 * @param readable the regular file at the end of the chain even when it was refused for lying outside the
 *                 allowed roots: the runtime still reads it, so we may read it (never write it)
 */
public record Resolution(Path path, Optional<EntryKind> kind, List<Path> chain, Optional<Path> target, Optional<String> problem, Optional<Path> readable)
{
    public Resolution
    {
        chain = List.copyOf(chain);
    }

    static Resolution resolved(Path path, EntryKind kind, List<Path> chain, Path target)
    {
        return new Resolution(path, Optional.of(kind), chain, Optional.of(target), Optional.empty(), Optional.of(target));
    }

    static Resolution refused(Path path, Optional<EntryKind> kind, List<Path> chain, String problem)
    {
        return new Resolution(path, kind, chain, Optional.empty(), Optional.of(path + ": " + problem), Optional.empty());
    }

    static Resolution outsideRoots(Path path, EntryKind kind, List<Path> chain, Path target, String problem)
    {
        return new Resolution(path, Optional.of(kind), chain, Optional.empty(), Optional.of(path + ": " + problem), Optional.of(target));
    }

    /** Whether the path exists at all (a dangling link exists). */
    public boolean exists()
    {
        return kind.isPresent();
    }
}
