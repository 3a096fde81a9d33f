#!/usr/bin/env bash
# Sets up ergobench and runs the whole test suite: unit tests, then integration tests that
# drive the real binaries over gloo and OpenMPI, the operator on a real Kubernetes control
# plane (built once from Debian's source package, cached outside the repository), the
# container images (buildah, podman), the Helm chart and kustomize manifests (helm and
# kubectl from npm, cached), and the Grafana dashboards on a real Prometheus.
# CI (.ci/run) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
scripts/configure.sh
cmake --build build -j2
tests/kube/build-control-plane.sh >/dev/null
scripts/install-kube-tools.sh --monitors >/dev/null
cd build
exec ctest --output-on-failure
