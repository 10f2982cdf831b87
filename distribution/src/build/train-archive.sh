#!/usr/bin/env bash
# Makes lib/cni-chain.jsa for a distribution directory: the classes the agent loads, parsed, verified and linked ahead
# of time, which the launcher hands to the JVM (-XX:SharedArchiveFile). With Java 25 and later it is an AOT cache
# (JEP 483/514: classes loaded and linked), made with -XX:AOTCacheOutput; before, a dynamic
# AppCDS archive made with -XX:ArchiveClassesAtExit, on top of the JDK's own archive. Either way the training is a
# real run of the agent on a temp node: start, patch a primary's file, re-patch it after three rewrites, answer
# /healthz, /readyz and /metrics, then SIGTERM and the uninstall that follows.
#
# The archive only serves the runtime that made it, with the class path it was made with (Java 25 also accepts the
# directory moved elsewhere); any other runtime ignores it silently, so a tarball unpacked elsewhere or run with
# another JAVA_HOME starts as it would without it.
#
#   train-archive.sh DIST_DIR [JAVA_HOME]
#   train-archive.sh --root ROOTFS DIST_DIR JAVA_HOME     (needs root: mount and chroot)
#
# With --root, DIST_DIR and JAVA_HOME are paths inside ROOTFS, a container image's root: the agent runs in it
# (chroot, with /proc and /dev mounted for the run), so the archive is made for the paths the image runs from. A
# Java 17 runtime made by jlink has no archive of its own, so there it is a static archive of every class the agent
# loads, the JDK's included: the class list of the training run, dumped by -Xshare:dump.
#
# Run by Maven after the distribution directory is assembled, and by the image build with the image's runtime.
set -euo pipefail

root=
if [ "${1:-}" = --root ]; then
    root=$(cd "$2" && pwd -P)
    shift 2
fi
# Paths as the agent sees them (inside the root) and as this script reaches them.
dist=$1
java_home=${2:-${JAVA_HOME:-}}
[ -n "$root" ] || dist=$(cd "$dist" && pwd -P)
outside() { printf '%s%s' "$root" "$1"; }
archive=$dist/lib/cni-chain.jsa

mounted=()
fail() {
    echo "train-archive.sh: $*" >&2
    rm -f "$(outside "$archive")"
    if [ "${CI:-}" = true ]; then
        exit 1
    fi
    echo "train-archive.sh: the distribution works without the archive, only starts slower" >&2
    exit 0
}

[ -n "$java_home" ] && [ -x "$(outside "$java_home")/bin/java" ] || fail "no Java runtime (JAVA_HOME or the second argument)"
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$(outside "$java_home")/release" 2>/dev/null || true)
[ -n "$feature" ] || fail "$java_home/release names no JAVA_VERSION"
rm -f "$(outside "$archive")"
static=
if [ "$feature" -ge 25 ]; then
    # Without the training's method profiles and compilation records (JEP 515): they serve the JIT tiers that profile,
    # and the launcher runs C1 alone (-XX:TieredStopAtLevel=1), which compiles without them; mapped at every start
    # and never read, they were 0.5 MiB of the agent's resident memory.
    record="-XX:AOTCacheOutput=$archive -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining"
elif [ -n "$root" ]; then
    static=1
    record="-XX:DumpLoadedClassList=/tmp/cni-chain-training/classes.lst"
else
    record="-XX:ArchiveClassesAtExit=$archive"
fi

if [ -n "$root" ]; then
    inside=/tmp/cni-chain-training
    node=$(outside "$inside")
    rm -rf "$node"
    mkdir -p "$node"
else
    node=$(mktemp -d)
    inside=$node
fi
agent=
cleanup() {
    if [ -n "$agent" ]; then
        kill -9 "$agent" 2>/dev/null || true
    fi
    rm -rf "$node"
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" 2>/dev/null || true
        rmdir "${mounted[i]}" 2>/dev/null || true
    done
}
trap cleanup EXIT
if [ -n "$root" ]; then
    for dir in proc dev; do
        [ -e "$root/$dir" ] && fail "$root/$dir exists; the training mounts its own"
        mkdir "$root/$dir"
        mounted+=("$root/$dir")
    done
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
fi

# Runs the launcher with these JVM options and arguments, in the root when there is one, in place of the calling
# (sub)shell: in the background, $! is then the agent itself, which a SIGTERM must reach.
launcher() {
    local options=$1
    shift
    if [ -n "$root" ]; then
        exec env -i PATH="$java_home/bin:/bin" JAVA_HOME="$java_home" CNI_CHAIN_JAVA_OPTS="$options" \
            CONTAINER_CNI_BIN_DIR="$inside/image" KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 \
            "$(command -v chroot)" "$root" "$dist/bin/cni-chain" "$@"
    else
        JAVA_HOME=$java_home CNI_CHAIN_JAVA_OPTS="$options" CONTAINER_CNI_BIN_DIR="$inside/image" \
            KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 exec "$dist/bin/cni-chain" "$@"
    fi
}

conf=$node/host/etc/cni/net.d
mkdir -p "$conf" "$node/host/opt/cni/bin" "$node/image" "$node/sa"
printf '#!/bin/sh\ncat\n' > "$node/image/linkerd-cni"
chmod 755 "$node/image/linkerd-cni"
printf 'training-token' > "$node/sa/token"
printf -- '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n' > "$node/sa/ca.crt"
primary='{
  "name": "k8s-pod-network",
  "cniVersion": "1.0.0",
  "plugins": [
    {"type": "calico", "datastore_type": "kubernetes", "ipam": {"type": "calico-ipam"}},
    {"type": "portmap", "snat": true, "capabilities": {"portMappings": true}}
  ]
}'
printf '%s\n' "$primary" > "$conf/10-calico.conflist"

await_patched() {
    for _ in $(seq 1 300); do
        if grep -q '"linkerd-cni"' "$conf/10-calico.conflist" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    fail "the training run never patched its primary; its log:
$(cat "$node/agent.log")"
}

# With the distribution's configuration file, as the image and the DaemonSet run it: reading YAML is then part of what
# is archived (about 50 ms of start-up otherwise). The flags and the environment override the file's node paths.
config=()
if [ -r "$(outside "$dist/conf/cni-chain.yaml")" ]; then
    config=(--config "$dist/conf/cni-chain.yaml")
fi
# A port below the kernel's ephemeral range (32768 and up by default), where no outgoing connection takes one, and
# that nothing listens on now.
while :; do
    port=$(( 20000 + RANDOM % 12000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        break
    fi
done
launcher "$record" run "${config[@]}" --host-root "$inside/host" --service-account-dir "$inside/sa" --health-port "$port" \
    > "$node/agent.log" 2>&1 &
agent=$!
await_patched
for _ in 1 2 3; do
    sleep 0.5
    printf '%s\n' "$primary" > "$conf/.10-calico.conflist.tmp"
    mv "$conf/.10-calico.conflist.tmp" "$conf/10-calico.conflist"
    await_patched
done
for path in /healthz /readyz /metrics; do
    # bash's /dev/tcp: no curl needed on the build machine.
    if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
        printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$path" >&3
        cat <&3 > /dev/null || true
        exec 3<&-
    fi
done
kill -TERM "$agent"
status=0
wait "$agent" || status=$?
agent=
[ "$status" -eq 0 ] || fail "the training run exited $status; its log:
$(cat "$node/agent.log")"
if [ -n "$static" ]; then
    [ -s "$node/classes.lst" ] || fail "the training run wrote no class list; its log:
$(cat "$node/agent.log")"
    # -Xshare:dump writes the archive and exits; the launcher's own options (the GC, the heap) are the ones the
    # archive must match.
    (launcher "-Xshare:dump -XX:SharedClassListFile=$inside/classes.lst -XX:SharedArchiveFile=$archive -Xlog:cds=error" \
        --version) > "$node/dump.log" 2>&1 || fail "-Xshare:dump failed: $(cat "$node/dump.log")"
fi
[ -s "$(outside "$archive")" ] || fail "no archive was written; the training run's log:
$(cat "$node/agent.log")"
# -Xshare:on fails instead of starting without the archive: the proof it maps for this runtime and class path.
(launcher "-Xshare:on" --version) > "$node/check.log" 2>&1 || fail "the archive does not map: $(cat "$node/check.log")"
made="train-archive.sh: $(outside "$archive") ($(du -k "$(outside "$archive")" | cut -f1) KiB, Java $feature${static:+, static})"
# A quiet Maven build (-q) prints nothing when it succeeds: the line goes to train-archive.log beside the distribution.
level=${TRAIN_ARCHIVE_LOGGING_LEVEL:-level 1}
if [ "${level#level }" -ge 2 ] 2>/dev/null; then
    echo "$made" > "$(dirname "$(outside "$dist")")/train-archive.log"
else
    echo "$made"
fi
