#!/usr/bin/env bash
# Builds the cni-chain container image without a Docker daemon, from nothing but this machine:
#   a Java runtime made with jlink (only the modules the agent loads), the shared libraries ldd lists for it, the C
#   library's C.UTF-8 locale, the distribution directory (bin/cni-chain, lib/, conf/cni-chain.yaml, an empty
#   plugins/), and a static busybox as /bin/sh with kill and sleep (Linkerd's chart runs
#   `/bin/sh -c "kill -15 1; sleep 15s"` as its preStop hook).
# buildah assembles it from scratch in a storage of its own in a short temp dir (vfs, no daemon) and writes a
# docker-archive tar tagged NAME:VERSION and NAME:latest, which `podman load -i`, `docker load -i`,
# `kind load image-archive` and `k3d image import` accept.
#
# Run by Maven (`mvn -Pimage package`, distribution/pom.xml); by hand:
#   build-image.sh --dist target/cni-chain --jdk /usr/lib/jvm/temurin-25-jdk-amd64 --version 0.1.0 \
#                  --work target/image --out target/cni-chain-image.tar
# Without buildah (or another tool below) it prints a banner and builds nothing, unless CI=true: then it fails.
set -euo pipefail

name=cni-chain
compress=none
busybox=/bin/busybox
dist= jdk= version= work= out=
while [ $# -gt 0 ]; do
    case $1 in
        --dist) dist=$2 ;;
        --jdk) jdk=$2 ;;
        --version) version=$2 ;;
        --work) work=$2 ;;
        --out) out=$2 ;;
        --name) name=$2 ;;
        --compress) compress=$2 ;;   # none or zip: jlink's compression of lib/modules
        --busybox) busybox=$2 ;;
        *) echo "build-image.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift 2
done
for required in dist jdk version work out; do
    if [ -z "${!required}" ]; then
        echo "build-image.sh: --$required is required" >&2
        exit 2
    fi
done

# Modules jdeps finds in lib/*.jar that the agent never loads, and why. The image tests run every command the
# agent has in the image, so a module wrongly left out fails them.
optional_modules=(
    java.desktop    # java.beans: Jackson's Java7Support (loaded in a try/catch) and SnakeYAML's JavaBean
                    # introspection (the agent loads plain maps and lists with SafeConstructor)
    java.sql        # java.sql.Date/Timestamp handlers of Jackson and picocli, looked up by class name only
    java.xml        # Jackson's DOM (de)serializers, looked up by class name only
    java.compiler   # pf4j's annotation processor, a compile-time tool
)
# Modules to link that jdeps cannot see (reflection, service loading). The agent's calls to the API server
# (java.net.http) talk TLS with elliptic curves (Go's TLS offers only X25519 and the NIST curves); on Java 25 the
# elliptic-curve provider is in java.base (java --describe-module java.base: contains sun.security.ec), and
# jdk.crypto.ec is an empty module (java --describe-module jdk.crypto.ec: requires java.base mandated), so linking
# it adds nothing.
extra_modules=(jdk.crypto.ec)

banner() {
    local rule
    rule=$(printf '!%.0s' $(seq 1 100))
    printf '%s\n' "$rule" "$@" "$rule" >&2
}

missing=()
command -v buildah >/dev/null || missing+=("buildah (apt-get install buildah)")
command -v ldd >/dev/null || missing+=("ldd (apt-get install libc-bin)")
[ -x "$jdk/bin/jlink" ] || missing+=("jlink in $jdk/bin (a full JDK; -Dimage.jdk=DIR picks it)")
[ -x "$jdk/bin/jdeps" ] || missing+=("jdeps in $jdk/bin")
command -v chroot >/dev/null || missing+=("chroot (apt-get install coreutils)")
[ -r /usr/lib/locale/C.utf8/LC_CTYPE ] || missing+=("the C.UTF-8 locale at /usr/lib/locale/C.utf8 (Debian's libc-bin)")
command -v mount >/dev/null || missing+=("mount (apt-get install util-linux)")
[ "$(id -u)" -eq 0 ] || missing+=("root, to train the class-data archive inside the image's root (chroot)")
if [ ! -x "$busybox" ]; then
    missing+=("a static busybox at $busybox (apt-get install busybox-static)")
elif ldd "$busybox" >/dev/null 2>&1; then
    missing+=("$busybox is linked dynamically; the image needs busybox-static")
fi
[ -x "$dist/bin/cni-chain" ] || missing+=("the distribution directory $dist (mvn package builds it)")
if [ ${#missing[@]} -gt 0 ]; then
    rm -f "$out"
    lines=()
    for m in "${missing[@]}"; do lines+=("  missing: $m"); done
    if [ "${CI:-}" = true ]; then
        banner "THE IMAGE CANNOT BE BUILT, AND CI=true MAKES THAT A FAILURE" "${lines[@]}"
        exit 1
    fi
    banner "SKIPPING THE IMAGE BUILD: NO $out IN THIS RUN" "${lines[@]}" \
        "  .ci/run installs what it needs; with CI=true this is a failure, not a skip"
    exit 0
fi

feature=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
if [ -z "$feature" ] || [ "$feature" -lt 17 ]; then
    echo "build-image.sh: $jdk is Java '$feature'; the agent needs 17 or later" >&2
    exit 1
fi
case $compress in
    none) [ "$feature" -ge 21 ] && compress_flag=zip-0 || compress_flag=0 ;;
    zip) [ "$feature" -ge 21 ] && compress_flag=zip-6 || compress_flag=2 ;;
    *) echo "build-image.sh: --compress is none or zip, not $compress" >&2; exit 2 ;;
esac

started=$(date +%s%N)
timings=()
mark=$started
timed() {
    local now
    now=$(date +%s%N)
    timings+=("$1 $(( (now - mark) / 1000000 )) ms")
    mark=$now
}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd -P)
rootfs=$work/rootfs
# buildah's storage in a short directory of its own, not under the work tree: buildah refuses a run root longer than
# 50 characters, which a checkout under a home directory or a CI workspace easily makes.
store=$(mktemp -d /tmp/cni-chain-image.XXXXXX)
storage=(--root "$store/storage" --runroot "$store/run" --storage-driver vfs)
builder=
cleanup() {
    if [ -n "$builder" ]; then
        buildah "${storage[@]}" rm "$builder" >/dev/null 2>&1 || true
    fi
    buildah "${storage[@]}" rmi --all --force >/dev/null 2>&1 || true
    # vfs layers are plain directories; nothing stays mounted once buildah is done.
    rm -rf "$store"
}
trap cleanup EXIT

# 1. The Java runtime.
# C1 only: jdeps is a short batch job, twice as quick without C2.
jdeps_modules=$("$jdk/bin/jdeps" -J-XX:TieredStopAtLevel=1 --print-module-deps --ignore-missing-deps --multi-release 17 "$dist"/lib/*.jar | tail -n 1)
modules=()
IFS=, read -r -a found <<< "$jdeps_modules"
for module in "${found[@]}" "${extra_modules[@]}"; do
    skip=
    for optional in "${optional_modules[@]}"; do
        [ "$module" = "$optional" ] && skip=1
    done
    [ -z "$skip" ] && modules+=("$module")
done
module_list=$(IFS=,; echo "${modules[*]}")
echo "jdeps: $jdeps_modules; linking $module_list (left out as unused: ${optional_modules[*]})"
mkdir -p "$rootfs/opt"
# keytool is java.base's other command; the agent needs only bin/java.
"$jdk/bin/jlink" --add-modules "$module_list" --strip-debug --no-header-files --no-man-pages --compress="$compress_flag" \
    --exclude-files='glob:/java.base/bin/keytool' --output "$rootfs/opt/java"
timed "jdeps and jlink"

# 2. The shared libraries the runtime's executables and libraries load, at the paths ldd found them.
copy_library() {
    local path=$1
    if [ ! -e "$rootfs$path" ]; then
        mkdir -p "$rootfs$(dirname "$path")"
        cp -L "$path" "$rootfs$path"
    fi
}
while IFS= read -r elf; do
    while read -r line; do
        case $line in
            *"=> not found"*)
                library=${line%% =>*}
                # Libraries of the runtime itself (libjvm.so for lib/*.so) are found at run time through
                # the executable that loaded them; anything else missing is an error.
                if ! find "$rootfs/opt/java/lib" -name "$library" | grep -q .; then
                    echo "build-image.sh: $elf needs $library, which ldd cannot find" >&2
                    exit 1
                fi
                ;;
            *"=> /"*)
                path=${line#*=> }
                path=${path%% (*}
                case $path in "$rootfs"/*) ;; *) copy_library "$path" ;; esac
                ;;
            /*)
                path=${line%% (*}
                copy_library "$path"
                ;;
        esac
    done < <(ldd "$elf" 2>/dev/null || true)
done < <(find "$rootfs/opt/java" -type f \( -path "*/bin/*" -o -name "*.so" \) | sort)
timed libraries

# 2b. The C.UTF-8 locale of the same C library, which the launcher runs the JVM under: the JVM names files in the
#     encoding of its locale, and without one that is ASCII, where a name with an accented letter cannot be opened.
mkdir -p "$rootfs/usr/lib/locale"
cp -a /usr/lib/locale/C.utf8 "$rootfs/usr/lib/locale/C.utf8"

# 3. The agent: the distribution directory as Maven made it (plugins/ stays empty).
cp -a "$dist" "$rootfs/opt/cni-chain"
chmod 0755 "$rootfs/opt/cni-chain/plugins"

# 4. /bin/sh, kill and sleep for preStop hooks and the launcher (busybox's sh runs its own applets, such as the
#    launcher's readlink and sed, without links), and /tmp, where an emptyDir or tmpfs is mounted (the root is read-only).
mkdir -p "$rootfs/bin" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
cp "$busybox" "$rootfs/bin/busybox"
for applet in sh kill sleep; do
    ln -s busybox "$rootfs/bin/$applet"
done
timed files

# 4b. The class-data archive (src/build/train-archive.sh): the one Maven made serves only Maven's JDK and class path,
#     so it is dropped, and the image gets its own (after step 4: the launcher needs /bin/sh), made by a training run of the agent inside the image's root
#     (chroot) with the image's runtime, for the paths it runs from: a static archive of every class the agent loads
#     on Java 17 (whose jlink'd runtime has no archive of its own), an AOT cache from Java 25 on. It triples the
#     start-up's speed in the image for about 14 MB.
rm -f "$rootfs/opt/cni-chain/lib/cni-chain.jsa"
# The archive names each jar by its size and modification time in whole seconds; an image layer keeps only whole
# seconds (rounded), so every file's time is made a whole second first.
stamp=$(date +%s)
find "$rootfs" -exec touch -h -d "@$stamp" {} +
bash "$(dirname "$0")/../build/train-archive.sh" --root "$rootfs" /opt/cni-chain /opt/java
timed "class-data archive"

# 5. The image.
# Fully qualified, so that the archive's names read NAME:VERSION, which containerd and Docker take as
# docker.io/library/NAME, the image a manifest's `image: NAME:VERSION` names (buildah would write localhost/NAME).
repository=docker.io/library/$name
image=$repository:$version
builder=$(buildah "${storage[@]}" from --name "$name-build-$$" scratch)
buildah "${storage[@]}" copy --quiet "$builder" "$rootfs/" / >/dev/null
java_version=$("$rootfs/opt/java/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p')
buildah "${storage[@]}" config \
    --entrypoint '["/opt/cni-chain/bin/cni-chain"]' \
    --cmd '["run", "--config", "/opt/cni-chain/conf/cni-chain.yaml"]' \
    --env JAVA_HOME=/opt/java --env PATH=/opt/java/bin:/bin \
    --user 0:0 --workingdir / --stop-signal SIGTERM \
    --label org.opencontainers.image.title=cni-chain \
    --label org.opencontainers.image.description="Keeps a chained CNI plugin installed in the CNI configuration a node really uses" \
    --label org.opencontainers.image.version="$version" \
    --label io.cnichain.java.version="$java_version" \
    --label io.cnichain.java.modules="$module_list" \
    "$builder"
buildah "${storage[@]}" commit --quiet --rm --format docker "$builder" "$image" >/dev/null
builder=
timed buildah
buildah "${storage[@]}" tag "$image" "$repository:latest"
mkdir -p "$(dirname "$out")"
rm -f "$out"
# One archive, one image, both names: buildah push writes one name, podman save both.
podman "${storage[@]}" save --quiet --format docker-archive --output "$out" "$image" "$repository:latest"
timed "podman save"

elapsed=$(( ($(date +%s%N) - started) / 1000000 ))
size() { du -s --block-size=1K "$@" | awk '{ sum += $1 } END { printf "%.1f MB", sum / 1024 }'; }
echo "  steps: $(printf '%s; ' "${timings[@]}")"
libraries=$(find "$rootfs" -path "$rootfs/opt" -prune -o -type f -name "*.so*" -print)
echo "image $name:$version and $name:latest -> $out in $((elapsed / 1000)).$(( (elapsed % 1000) / 100 )) s (Java $java_version from $jdk)"
echo "  total $(size "$rootfs"): Java runtime $(size "$rootfs/opt/java") (lib/modules $(size "$rootfs/opt/java/lib/modules"), libjvm.so $(size "$rootfs/opt/java/lib/server/libjvm.so")), shared libraries $(size $libraries), agent $(size "$rootfs/opt/cni-chain"), busybox $(size "$rootfs/bin/busybox")"
