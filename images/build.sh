#!/usr/bin/env bash
# Builds ergobench's container images with buildah from an existing build tree:
#   ergobench-operator:<version>   FROM scratch (Containerfile.operator)
#   ergobench-runner:<version>     Debian bookworm + libtorch, gloo, OpenMPI (Containerfile.runner)
#
#   images/build.sh [--build-dir build] [--base IMAGE] [operator] [runner]
#
# The binaries are the build tree's, so the image must be of the Debian release they were
# built on: bookworm. With no --base, the base is a debootstrap of bookworm (minbase),
# imported as localhost/ergobench/debian:bookworm and kept in ~/.cache/ergobench/images;
# no image registry is needed. debootstrap uses the archive that this machine's apt already
# uses, and the image gets this machine's apt sources.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/images/env.sh"

build_dir=$repo/build
base=""
images=()
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build_dir=$(cd "$2" && pwd); shift 2 ;;
    --base) base=$2; shift 2 ;;
    operator|runner) images+=("$1"); shift ;;
    *) echo "images/build.sh: unknown argument '$1' (expected --build-dir, --base, operator, runner)" >&2; exit 2 ;;
  esac
done
[ ${#images[@]} -gt 0 ] || images=(operator runner)

for tool in buildah podman; do
  command -v $tool >/dev/null || { echo "images/build.sh: $tool is missing; run scripts/install-deps.sh --images" >&2; exit 1; }
done
. /etc/os-release
if [ "${VERSION_CODENAME:-}" != bookworm ]; then
  echo "images/build.sh: the images hold this machine's binaries, so it must run Debian bookworm (this is ${PRETTY_NAME:-unknown})" >&2
  exit 1
fi
temporary=()
trap 'rm -rf "${temporary[@]}"' EXIT
version=$("$build_dir/bin/ergobench" version | awk '{print $2}')

# The base: a minbase debootstrap of bookworm, made once.
if [ -z "$base" ]; then
  base=localhost/ergobench/debian:bookworm
  if ! podman image exists "$base"; then
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/ergobench/images
    tarball=$cache/debian-bookworm-minbase.tar
    if [ ! -f "$tarball" ]; then
      mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' | awk '$2 == "bookworm" {print $1; exit}')
      rootfs=$(mktemp -d)
      temporary+=("$rootfs")
      echo "images/build.sh: debootstrap bookworm ${mirror:-from the default mirror}" >&2
      debootstrap --variant=minbase bookworm "$rootfs" $mirror >"$rootfs.log" 2>&1 \
        || { tail -20 "$rootfs.log" >&2; exit 1; }
      rm -f "$rootfs.log"
      rm -f "$rootfs/etc/apt/sources.list"
      cp -r /etc/apt/sources.list.d/. "$rootfs/etc/apt/sources.list.d/"
      [ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$rootfs/etc/apt/"
      rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
      mkdir -p "$cache"
      tar -C "$rootfs" --numeric-owner -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    fi
    podman import --quiet "$tarball" "$base" >/dev/null
  fi
fi

# The context: the installed programs and the helper scripts, nothing else.
context=$(mktemp -d)
temporary+=("$context")
cmake --install "$build_dir" --prefix "$context" --strip >/dev/null
cp "$repo/images/copy-runtime-closure.sh" "$context/"

for image in "${images[@]}"; do
  echo "images/build.sh: ergobench-$image:$version FROM $base" >&2
  buildah bud --quiet --layers --network host --build-arg "BASE_IMAGE=$base" \
    -f "$repo/images/Containerfile.$image" -t "ergobench-$image:$version" "$context" >/dev/null
  podman image inspect --format "ergobench-$image:$version {{.Size}} bytes" "ergobench-$image:$version"
done
