#!/usr/bin/env bash
# Downloads (here, on the Debian machine) the Debian packages that the GPU machine's image
# lacks for building ergobench-runner: prometheus-cpp (and civetweb, which its CMake
# package requires, its server binary too, which the package checks for) and libarchive. bench/gpu/run.sh unpacks them there with dpkg -x; their
# libraries need nothing newer than Ubuntu 24.04 has.
# Usage: bench/gpu/fetch-debs.sh DIR   (then carry DIR to the GPU machine)
set -euo pipefail
dir=${1:?usage: fetch-debs.sh DIR}
mkdir -p "$dir"
dir=$(realpath "$dir")
cd "$dir"
apt-get download prometheus-cpp-dev libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 libprometheus-cpp-push1.0 \
  civetweb libcivetweb-dev libcivetweb1 libarchive-dev libarchive13 2>&1 | grep -v "^W: Download is performed unsandboxed" || true
ls -1 "$dir"/*.deb
