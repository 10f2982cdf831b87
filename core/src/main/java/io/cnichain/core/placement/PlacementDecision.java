package io.cnichain.core.placement;

import io.cnichain.core.config.Placement;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where this node's entry goes, and why: decided once at start from the {@code placement} setting and, for
 * {@code auto}, the node's container runtime.
 *
 * @param placement {@link Placement#PATCH} or {@link Placement#DROP_IN}
 * @param auto      whether {@code auto} chose it: a network that cannot take a drop-in is then patched, where
 *                  {@code drop-in} fails install and says why
 * @param why       the reason, for the log and {@code detect}
 * @param wontRun   for {@code drop-in}, why the node's runtime will not run a drop-in, when its Node says so: nothing is
 *                  placed then, and the agent is not ready
 */
public record PlacementDecision(Placement placement, boolean auto, String why, Optional<String> wontRun)
{
    public PlacementDecision(Placement placement, boolean auto, String why)
    {
        this(placement, auto, why, Optional.empty());
    }

    public PlacementDecision
    {
        requireNonNull(placement, "placement is null");
        requireNonNull(why, "why is null");
        requireNonNull(wontRun, "wontRun is null");
        if (placement == Placement.AUTO) {
            throw new IllegalArgumentException("auto is decided, not a decision");
        }
    }

    /** The configured placement, when it needs no look at the runtime ({@code patch}, {@code drop-in}). */
    public static Optional<PlacementDecision> configured(Placement placement)
    {
        return switch (placement) {
            case PATCH -> Optional.of(new PlacementDecision(Placement.PATCH, false, "placement: patch"));
            case DROP_IN -> Optional.of(new PlacementDecision(Placement.DROP_IN, false, "placement: drop-in"));
            case AUTO -> Optional.empty();
        };
    }

    /**
     * {@code auto} on a node whose runtime is known.
     *
     * @param containerRuntimeVersion the Node's {@code status.nodeInfo.containerRuntimeVersion} ({@code containerd://2.1.0})
     */
    public static PlacementDecision forRuntime(String containerRuntimeVersion)
    {
        Optional<RuntimeVersion> version = RuntimeVersion.parse(containerRuntimeVersion);
        String reported = "the Node reports containerRuntimeVersion " + (containerRuntimeVersion.isEmpty() ? "\"\"" : containerRuntimeVersion);
        if (version.isEmpty()) {
            return new PlacementDecision(Placement.PATCH, true, "auto: " + reported + ", which is not a runtime known to apply drop-ins; patching");
        }
        Optional<String> minimum = version.get().dropInMinimum();
        if (minimum.isEmpty()) {
            return new PlacementDecision(Placement.PATCH, true, "auto: " + reported + "; " + version.get().runtime()
                    + " is not known to apply drop-ins; patching");
        }
        if (version.get().appliesDropIns()) {
            return new PlacementDecision(Placement.DROP_IN, true, "auto: " + reported + ", which applies drop-ins (libcni 1.3, from "
                    + version.get().runtime() + " " + minimum.get() + ")");
        }
        return new PlacementDecision(Placement.PATCH, true, "auto: " + reported + ", which ignores drop-ins (" + version.get().runtime() + " applies them from "
                + minimum.get() + (version.get().preRelease() ? ", and a pre-release is not counted as the release" : "") + "); patching");
    }

    /**
     * {@code drop-in} on a node whose runtime is known: what the operator chose, with the runtime's verdict when it
     * is one known to ignore drop-ins.
     */
    public static PlacementDecision dropInOn(String containerRuntimeVersion)
    {
        PlacementDecision auto = forRuntime(containerRuntimeVersion);
        if (auto.placement() == Placement.DROP_IN || RuntimeVersion.parse(containerRuntimeVersion).flatMap(RuntimeVersion::dropInMinimum).isEmpty()) {
            return configured(Placement.DROP_IN).orElseThrow();
        }
        String ignores = "the Node reports containerRuntimeVersion " + containerRuntimeVersion + ", which ignores drop-ins";
        return new PlacementDecision(Placement.DROP_IN, false, "placement: drop-in, but " + ignores, Optional.of(ignores + ", so a drop-in would never run; "
                + "nothing is placed (set placement: patch or auto)"));
    }

    /** {@code auto} on a node whose runtime cannot be learnt: the patch every runtime runs. */
    public static PlacementDecision runtimeUnknown(String why)
    {
        return new PlacementDecision(Placement.PATCH, true, "auto: the node's runtime is unknown (" + why + "); patching");
    }
}
