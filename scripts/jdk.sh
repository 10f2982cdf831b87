# Sourced by scripts/test, scripts/demo and .ci/run: selects the JDK the agent is built, tested and run with.
#
# The agent runs on Java 25 (its calls to the kernel go through the Foreign Function & Memory API). JAVA_HOME wins when
# it names a JDK 25 or later; otherwise the newest such JDK under /usr/lib/jvm is taken. Without one, the run stops and
# says how to get one. The SPI and the test kit stay compiled for Java 17, whichever JDK builds them.

cni_chain_feature() {
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}

cni_chain_select_jdk() {
    local candidate feature best= best_feature=0
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
        feature=$(cni_chain_feature "$JAVA_HOME")
        if [ -n "$feature" ] && [ "$feature" -ge 25 ]; then
            return 0
        fi
    fi
    for candidate in /usr/lib/jvm/*; do
        [ -x "$candidate/bin/javac" ] || continue
        feature=$(cni_chain_feature "$candidate")
        if [ -n "$feature" ] && [ "$feature" -ge 25 ] && [ "$feature" -gt "$best_feature" ]; then
            best=$candidate
            best_feature=$feature
        fi
    done
    if [ -z "$best" ]; then
        echo "${0##*/}: no JDK 25 or later: set JAVA_HOME to one, or install one under /usr/lib/jvm (Temurin 25, or Debian's openjdk-25-jdk where it is packaged)" >&2
        return 1
    fi
    JAVA_HOME=$best
}

cni_chain_select_jdk || exit 1
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
# Maven's own libraries call sun.misc.Unsafe, which Java 24 and later warn about on every build; the warning says
# nothing about this project, and a quiet build (-q) should print nothing when it succeeds.
# The Helm library the build packages the chart with loads its native code through JNA, which Java 24 and later
# also warn about unless native access is enabled.
case " ${MAVEN_OPTS:-} " in
    *sun-misc-unsafe-memory-access*) ;;
    *) export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED" ;;
esac
