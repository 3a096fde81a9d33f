#!/usr/bin/env bash
# Installs ergobench's build and run dependencies from Debian's archive. Idempotent: it
# asks apt only for what is missing, and refreshes the package lists at most once.
# ccache and mold: a build that recompiles only what changed (also in a second clone on this
# machine) and links in moments (cmake/ErgobenchCompiler.cmake).
# libopenblas0-openmp: Debian's libtorch does its matrix products through the system BLAS,
# and the reference one is 20-35x slower; the OpenMP build follows torch's thread count.
# --tests adds what only the test suite needs: a browser that renders the report's charts,
# buildah/podman/debootstrap for the images, containerd, dnsmasq and iptables for the test
# cluster's node, Prometheus for the dashboards, npm for helm, zsh to load the completion.
# --bench adds what the benchmarks under bench/ compare against: PyTorch's Python API on
# Debian's libtorch (python3-torch).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache mold
  libtorch-dev libgloo-dev libopenblas0-openmp
  libopenmpi-dev openmpi-bin
  libcpprest-dev libboost-dev libjpeg62-turbo-dev nlohmann-json3-dev libyaml-cpp-dev prometheus-cpp-dev libprotobuf-dev
  libgtest-dev libgmock-dev libcli11-dev zlib1g-dev
  libcurl4-openssl-dev libssl-dev libarchive-dev libicu-dev bzip2
  dataset-fashion-mnist
  python3 procps curl
)
case "${1:-}" in
  --tests)
    packages+=(chromium buildah podman runc uidmap containernetworking-plugins debootstrap prometheus openssh-client openssh-server zsh
               containerd dnsmasq-base iptables)
    command -v npm >/dev/null || packages+=(npm) ;;
  --bench) packages+=(python3-torch) ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
