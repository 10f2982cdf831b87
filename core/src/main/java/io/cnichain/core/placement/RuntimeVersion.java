package io.cnichain.core.placement;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container runtime's version as the kubelet reports it in the Node's {@code status.nodeInfo.containerRuntimeVersion}:
 * {@code <runtime>://<version>}, the version as the runtime's CRI {@code Version} call gives it ({@code containerd://2.1.0},
 * {@code cri-o://1.33.1}; a leading {@code v} and a distribution's suffix such as {@code -0ubuntu1} or {@code -k3s1} occur).
 *
 * @param runtime    {@code containerd}, {@code cri-o}, or another name
 * @param numbers    major, minor, patch
 * @param preRelease whether the suffix marks a pre-release ({@code -rc.1}, {@code -beta.0}, {@code -alpha}), which is
 *                   not counted as the release it leads to
 */
record RuntimeVersion(String runtime, List<Integer> numbers, boolean preRelease)
{
    private static final Pattern FORM = Pattern.compile("([a-z0-9.-]+)://v?(\\d{1,6})\\.(\\d{1,6})(?:\\.(\\d{1,6}))?([-+~].*)?");
    private static final Pattern PRE_RELEASE = Pattern.compile("-(rc|beta|alpha|pre|dev)[.\\d-]*.*", Pattern.CASE_INSENSITIVE);

    /** The first version of each runtime that loads its networks with libcni 1.3's {@code ConfListFromFile}. */
    private static final List<Minimum> DROP_IN_MINIMUMS = List.of(new Minimum("containerd", List.of(2, 1, 0)), new Minimum("cri-o", List.of(1, 33, 0)));

    private record Minimum(String runtime, List<Integer> version) {}

    static Optional<RuntimeVersion> parse(String reported)
    {
        Matcher matcher = FORM.matcher(reported.trim());
        if (!matcher.matches()) {
            return Optional.empty();
        }
        List<Integer> numbers = List.of(Integer.parseInt(matcher.group(2)), Integer.parseInt(matcher.group(3)),
                matcher.group(4) == null ? 0 : Integer.parseInt(matcher.group(4)));
        String suffix = matcher.group(5) == null ? "" : matcher.group(5);
        return Optional.of(new RuntimeVersion(matcher.group(1), numbers, PRE_RELEASE.matcher(suffix).matches()));
    }

    /** The first version of this runtime that applies drop-ins, if it is one known to. */
    Optional<String> dropInMinimum()
    {
        return minimum().map(m -> m.version().get(0) + "." + m.version().get(1) + "." + m.version().get(2));
    }

    /** Whether this version applies drop-ins on ADD. */
    boolean appliesDropIns()
    {
        Optional<Minimum> minimum = minimum();
        if (minimum.isEmpty()) {
            return false;
        }
        int compared = compare(numbers, minimum.get().version());
        return compared > 0 || (compared == 0 && !preRelease);
    }

    private Optional<Minimum> minimum()
    {
        return DROP_IN_MINIMUMS.stream().filter(m -> m.runtime().equals(runtime)).findFirst();
    }

    private static int compare(List<Integer> a, List<Integer> b)
    {
        for (int i = 0; i < 3; i++) {
            int compared = Integer.compare(a.get(i), b.get(i));
            if (compared != 0) {
                return compared;
            }
        }
        return 0;
    }
}
