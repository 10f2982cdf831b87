#!/usr/bin/env bash
# Makes lib/cni-chain.jsa for a distribution directory: the classes the agent loads, parsed, verified and linked ahead
# of time, which the launcher hands to the JVM (-XX:SharedArchiveFile). With Java 25 and later it is an AOT cache
# (JEP 483/514/515: classes loaded and linked, method profiles), made with -XX:AOTCacheOutput; before, a dynamic
# AppCDS archive made with -XX:ArchiveClassesAtExit. Either way the training is a real run of the agent on a temp
# node: start, patch a primary's file, re-patch it after three rewrites, answer /healthz, /readyz and /metrics, then
# SIGTERM and the uninstall that follows.
#
# The archive only serves the runtime that made it, in the directory it was made for (Java 25 also accepts the
# directory moved elsewhere); any other runtime ignores it silently, so a tarball unpacked elsewhere or run with
# another JAVA_HOME starts as it would without it.
#
#   train-archive.sh DIST_DIR [JAVA_HOME]
#
# Run by Maven after the distribution directory is assembled, and by the image build with the image's runtime.
set -euo pipefail

dist=$(cd "$1" && pwd -P)
java_home=${2:-${JAVA_HOME:-}}
archive=$dist/lib/cni-chain.jsa

fail() {
    echo "train-archive.sh: $*" >&2
    rm -f "$archive"
    if [ "${CI:-}" = true ]; then
        exit 1
    fi
    echo "train-archive.sh: the distribution works without the archive, only starts slower" >&2
    exit 0
}

[ -n "$java_home" ] && [ -x "$java_home/bin/java" ] || fail "no Java runtime (JAVA_HOME or the second argument)"
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$java_home/release" 2>/dev/null || true)
[ -n "$feature" ] || fail "$java_home/release names no JAVA_VERSION"
rm -f "$archive"
if [ "$feature" -ge 25 ]; then
    record="-XX:AOTCacheOutput=$archive"
else
    record="-XX:ArchiveClassesAtExit=$archive"
fi

node=$(mktemp -d)
agent=
cleanup() {
    if [ -n "$agent" ]; then
        kill -9 "$agent" 2>/dev/null || true
    fi
    rm -rf "$node"
}
trap cleanup EXIT
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

port=$(( 20000 + RANDOM % 20000 ))
JAVA_HOME=$java_home CNI_CHAIN_JAVA_OPTS="$record" CONTAINER_CNI_BIN_DIR="$node/image" \
    KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 \
    "$dist/bin/cni-chain" run --host-root "$node/host" --service-account-dir "$node/sa" --health-port "$port" \
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
[ -s "$archive" ] || fail "no archive was written; the training run's log:
$(cat "$node/agent.log")"
echo "train-archive.sh: $archive ($(du -k "$archive" | cut -f1) KiB, Java $feature)"
