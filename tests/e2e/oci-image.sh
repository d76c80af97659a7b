#!/bin/bash
# Write an OCI image layout tarball (one uncompressed layer, linux/amd64)
# from a root directory, for `ctr images import` in the guest: the k8s e2e
# suite's images are made here from files on the host (busybox-static, the
# suite's pause), never pulled. Reproducible: the layer is sorted, owned by
# root, dated 0, so the same inputs give the same digests.
#
# usage: oci-image.sh ROOTDIR OUT.tar NAME ENTRYPOINT_JSON [CMD_JSON]
#   NAME: the reference containerd records (io.containerd.image.name),
#     e.g. localhost/tgroup-e2e/busybox:1
#   ENTRYPOINT_JSON, CMD_JSON: JSON arrays, e.g. '["/pause"]', '[]'
set -euo pipefail
root=$1 out=$2 name=$3 entry=$4 cmd=${5:-[]}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/blobs/sha256"

# blob FILE: move FILE into blobs/sha256/ by its digest; print "DIGEST SIZE"
blob() {
	local d s
	d=$(sha256sum "$1" | cut -d' ' -f1)
	s=$(stat -c %s "$1")
	mv "$1" "$w/blobs/sha256/$d"
	echo "$d $s"
}
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=posix \
	--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	-C "$root" -cf "$w/layer" .
read -r ld ls < <(blob "$w/layer")
printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":%s,"Cmd":%s,"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created_by":"tests/e2e/oci-image.sh"}]}' \
	"$entry" "$cmd" "$ld" > "$w/config"
read -r cd cs < <(blob "$w/config")
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
	"$cd" "$cs" "$ld" "$ls" > "$w/manifest"
read -r md ms < <(blob "$w/manifest")
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"amd64","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
	"$md" "$ms" "$name" "${name##*:}" > "$w/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' > "$w/oci-layout"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$w" -cf "$out" oci-layout index.json blobs
