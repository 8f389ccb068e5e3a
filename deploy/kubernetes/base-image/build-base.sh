#!/usr/bin/env bash
# Builds a local Jib base image (docker-save tar) from Debian packages: debootstrap minbase bookworm plus
# openjdk-17-jre-headless and ca-certificates, one layer. For machines where no container registry is reachable
# but a Debian mirror is; needs root (debootstrap chroots) and the debootstrap package.
#
#   sudo deploy/kubernetes/base-image/build-base.sh /tmp/kvrelay-base.tar
#   ./mvnw -B -ntp -pl kvrelay-launcher -am package jib:buildTar -DskipTests -Djib.from.image=tar:///tmp/kvrelay-base.tar
#
# Environment: MIRROR (default http://deb.debian.org/debian), SUITE (default bookworm), ROOTFS (a work directory,
# default a new one under /tmp; an existing populated ROOTFS is reused).
set -euo pipefail
out=${1:?usage: build-base.sh OUTPUT.tar}
mirror=${MIRROR:-http://deb.debian.org/debian}
suite=${SUITE:-bookworm}
rootfs=${ROOTFS:-$(mktemp -d /tmp/kvrelay-rootfs.XXXXXX)}
work=$(mktemp -d /tmp/kvrelay-base.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [[ ! -x "$rootfs/usr/lib/jvm/java-17-openjdk-amd64/bin/java" ]]; then
  debootstrap --variant=minbase --include=openjdk-17-jre-headless,ca-certificates "$suite" "$rootfs" "$mirror"
fi
# Nothing of the package manager's caches or lists belongs in an image.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log \
  "$rootfs"/tmp/* "$rootfs"/var/tmp/*
# The JRE must start in the image (the java launcher finds libjli.so through $ORIGIN, i.e. /proc/self/exe).
mount -t proc proc "$rootfs/proc"
java_version=$(chroot "$rootfs" /usr/bin/java -version 2>&1 | head -1) || true
umount "$rootfs/proc"
[[ $java_version == openjdk* ]] || { echo "the JRE does not start in $rootfs: $java_version" >&2; exit 1; }
echo "base JRE: $java_version"

tar --numeric-owner --xattrs -C "$rootfs" --exclude='./proc/*' --exclude='./sys/*' --exclude='./dev/*' \
  -cf "$work/layer.tar" .
/usr/bin/python3 - "$work" "$suite" "$java_version" <<'PY'
import hashlib, json, os, sys
work, suite, java = sys.argv[1], sys.argv[2], sys.argv[3]
h = hashlib.sha256()
with open(os.path.join(work, "layer.tar"), "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
config = {
    "architecture": "amd64",
    "os": "linux",
    "config": {
        "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64", "LANG=C.UTF-8"],
        "Cmd": ["/bin/bash"],
        "Labels": {"org.opencontainers.image.description": "Debian " + suite + " minbase + " + java},
    },
    "rootfs": {"type": "layers", "diff_ids": ["sha256:" + h.hexdigest()]},
    "history": [{"created_by": "deploy/kubernetes/base-image/build-base.sh (debootstrap " + suite + ")"}],
}
with open(os.path.join(work, "config.json"), "w") as f:
    json.dump(config, f, sort_keys=True)
with open(os.path.join(work, "manifest.json"), "w") as f:
    json.dump([{"Config": "config.json", "RepoTags": ["kvrelay-base:" + suite], "Layers": ["layer.tar"]}], f)
PY
tar -C "$work" -cf "$out" manifest.json config.json layer.tar
ls -l "$out"
