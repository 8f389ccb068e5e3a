#!/usr/bin/env bash
# Runs a docker-save image tar (e.g. Jib's kvrelay-launcher/target/jib-image.tar) without a container engine:
# unpacks its layers in order into a temp root, mounts /proc, and runs the image's entrypoint with the given
# arguments under chroot as the image's user. Needs root. Proves the layers make a runnable JRE + application;
# it is no substitute for namespaces, cgroups or the kubelet.
#
#   sudo deploy/kubernetes/base-image/check-image.sh kvrelay-launcher/target/jib-image.tar --help
set -euo pipefail
image=${1:?usage: check-image.sh IMAGE.tar [ARGS...]}
shift
work=$(mktemp -d /tmp/kvrelay-image.XXXXXX)
root="$work/root"
cleanup() { umount "$root/proc" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/image" "$root"
tar -C "$work/image" -xf "$image"
mapfile -t layers < <(/usr/bin/python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))[0]["Layers"]))' \
  "$work/image/manifest.json")
config=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["Config"])' "$work/image/manifest.json")
for layer in "${layers[@]}"; do
  tar --numeric-owner --warning=no-unknown-keyword -C "$root" -xf "$work/image/$layer"   # gzip or plain: GNU tar detects it
done
read -r user entrypoint < <(/usr/bin/python3 - "$work/image/$config" <<'PY'
import json, shlex, sys
c = json.load(open(sys.argv[1]))["config"]
print(c.get("User") or "0:0", shlex.join(c["Entrypoint"]))
PY
)
echo "layers: ${#layers[@]}, user: $user, entrypoint: $entrypoint" >&2
mount -t proc proc "$root/proc"
eval "set -- $entrypoint \"\$@\""
chroot --userspec="$user" "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp "$@"
