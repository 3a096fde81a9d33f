#!/usr/bin/env bash
# Builds a one-node cluster's Kubernetes v1.20 binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet, kube-proxy) and the sandbox's static `pause` from Debian's
# `kubernetes` source package, once, into a cache outside the repository, and installs etcd,
# the test harness's Kubernetes client and kubectl from Debian. Prints the directory holding
# the binaries.
#
# The source comes through a deb-src copy of the system's apt sources, kept in the cache, so
# the system's apt configuration stays untouched and no archive host is written here.
#
# Existing binaries can be used instead: set KUBE_BIN_DIR to a directory holding all of them
# (and ETCD_BIN) and this script builds nothing.
set -euo pipefail

cache="${ERGOBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ergobench}/kubernetes"
bin="$cache/bin"
log() { echo "build-kubernetes: $*" >&2; }

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || { sudo_if_needed apt-get update -q >&2 && sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
}

# Runtime pieces every test run needs: etcd, openssl for the throwaway PKI, the harness's
# client library, and a kubectl.
apt_install etcd-server openssl python3-kubernetes python3-yaml
command -v kubectl >/dev/null || apt_install kubernetes-client

commands=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)
# No in-tree cloud providers and no dockershim: a one-node test cluster on containerd needs
# neither, and leaving out their SDKs cuts a cold build from about 21 minutes to 6.5. The recipe
# is stamped beside the binaries, so that changing it rebuilds them.
tags=providerless,dockerless
strip="-s -w"
recipe="go build -tags $tags -ldflags $strip ${commands[*]}"
have_binaries() {
  for c in "${commands[@]}" pause; do [ -x "$1/$c" ] || return 1; done
}
all_built() { have_binaries "$1" && [ "$(cat "$1/.recipe" 2>/dev/null)" = "$recipe" ]; }
if [ -n "${KUBE_BIN_DIR:-}" ]; then
  have_binaries "$KUBE_BIN_DIR" || { log "KUBE_BIN_DIR=$KUBE_BIN_DIR lacks one of ${commands[*]} pause"; exit 1; }
  echo "$KUBE_BIN_DIR"; exit 0
fi
all_built "$bin" && { echo "$bin"; exit 0; }

apt_install golang-go dpkg-dev make rsync gcc libc6-dev golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
all_built "$bin" && { echo "$bin"; exit 0; }

# 1. A deb-src view of the system's own apt sources (deb822 and one-line formats).
apt_dir="$cache/apt"
mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial"
rm -f "$apt_dir/sources.list.d/"*
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed -E 's/^Types:.*/Types: deb-src/' "$f" >"$apt_dir/sources.list.d/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && sed -nE 's/^deb[[:space:]]/deb-src /p' "$f" >"$apt_dir/sources.list.d/$(basename "$f" .list)-src.list"
done
apt_opts=(-o "Dir::Etc::SourceParts=$apt_dir/sources.list.d" -o Dir::Etc::SourceList=/dev/null
          -o "Dir::State::Lists=$apt_dir/lists")
src="$cache/src"
mkdir -p "$src"
if ! ls "$src"/kubernetes_*.orig.tar.* >/dev/null 2>&1; then
  log "fetching the kubernetes source package"
  apt-get "${apt_opts[@]}" update -q >&2
  (cd "$src" && apt-get "${apt_opts[@]}" source --download-only kubernetes >&2)
fi

# 2. The upstream tree in a GOPATH, with the two vendored packages that break under new Go
#    replaced by Debian's.
gopath="$cache/gopath"
tree="$gopath/src/k8s.io/kubernetes"
if [ ! -f "$tree/.extracted" ]; then
  rm -rf "$tree"; mkdir -p "$tree"
  log "extracting"
  tar -xf "$(ls "$src"/kubernetes_*.orig.tar.* | head -n1)" -C "$tree" --strip-components=1
  for pkg in github.com/modern-go/reflect2 github.com/json-iterator/go; do
    rm -rf "$tree/vendor/$pkg"; mkdir -p "$tree/vendor/$pkg"
    rsync -a --exclude '*_test.go' "/usr/share/gocode/src/$pkg/" "$tree/vendor/$pkg/"
  done
  touch "$tree/.extracted"
fi

# 3. Build in GOPATH mode, offline.
export GOPATH="$gopath" GO111MODULE=off GOPROXY=off GOCACHE="$cache/gocache"
cd "$tree"
if [ ! -f pkg/generated/openapi/zz_generated.openapi.go ]; then
  log "make gen_openapi"
  make gen_openapi >&2
fi
# In GOPATH mode the version package lives under vendor/; "1.20.5+really1.20.2" is 1.20.2.
upstream=$(ls "$src"/kubernetes_*.orig.tar.* | head -n1 | sed -E 's/.*kubernetes_([^-]*)\.orig.*/\1/; s/.*really//')
minor=$(echo "$upstream" | cut -d. -f2)
ldflags="$strip"
for version in k8s.io/kubernetes/vendor/k8s.io/component-base/version k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
  ldflags+=" -X $version.gitVersion=v$upstream -X $version.gitMajor=${upstream%%.*} -X $version.gitMinor=$minor"
  ldflags+=" -X $version.gitTreeState=clean"
done
mkdir -p "$bin"
rm -f "$bin/.recipe"
# One invocation: the packages the five share are compiled once, and the links overlap.
log "go build ${commands[*]} (about 5 minutes cold on 2 cores)"
rm -rf "$bin.tmp"; mkdir -p "$bin.tmp"
go build -p 2 -tags "$tags" -ldflags "$ldflags" -o "$bin.tmp/" "${commands[@]/#/./cmd/}" >&2
for cmd in "${commands[@]}"; do mv "$bin.tmp/$cmd" "$bin/$cmd"; done
rmdir "$bin.tmp"
# The sandbox image cannot be pulled here; its one binary is built from the same tree.
if [ ! -x "$bin/pause" ]; then
  gcc -Os -static -Wall -o "$bin/pause.tmp" build/pause/linux/pause.c -DVERSION="v$upstream"
  mv "$bin/pause.tmp" "$bin/pause"
fi
echo "$recipe" >"$bin/.recipe"
echo "$bin"
