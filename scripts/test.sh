#!/usr/bin/env bash
# Sets up ergobench and runs the whole test suite: unit tests, then integration tests that
# drive the real binaries over gloo and OpenMPI, the operator on a real Kubernetes cluster
# (built once from Debian's source package, cached outside the repository, and shared by every
# suite that needs it), the container images (buildah, podman), the Helm chart and kustomize
# manifests (helm and kubectl from npm, cached), and the Grafana dashboards on a real Prometheus.
# Any skipped test fails the run unless ERGOBENCH_ALLOW_SKIPS=1. CI (.ci/run) runs exactly this.
#
# At the end it prints where the time went (tests/test_times.py): each phase, each suite, and
# the ten slowest tests, then every failure in its own words. Compiles go through ccache
# (cmake/ErgobenchCompiler.cmake), so a second clone on the same machine recompiles nothing that
# did not change.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ERGOBENCH_BUILD_DIR:-build}
mkdir -p "$build"
export ERGOBENCH_BUILD_DIR=$(cd "$build" && pwd)
build=$ERGOBENCH_BUILD_DIR
phases=$build/test-phases.txt
export ERGOBENCH_TEST_TIMES=$build/test-times.jsonl
# Every change on the shared cluster, timed, and the operator's and control plane's logs, for a
# slow or failed cluster test (tests/integration/cluster_trace.py): cheap, and there when needed.
export ERGOBENCH_CLUSTER_TRACE=${ERGOBENCH_CLUSTER_TRACE:-$build/cluster-trace}
: >"$phases"
: >"$ERGOBENCH_TEST_TIMES"
rm -rf "$ERGOBENCH_CLUSTER_TRACE"

# phase NAME COMMAND...: runs COMMAND, writes its wall time in seconds to $phases and returns
# its status.
phase() {
  local name=$1 start rc=0
  shift
  start=$(date +%s.%N)
  "$@" || rc=$?
  echo "$name $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')" >>"$phases"
  return $rc
}
report() {
  python3 tests/test_times.py --phases "$phases" --junit "$build/ctest-measure.xml" --junit "$build/ctest-results.xml" \
    --tests "$ERGOBENCH_TEST_TIMES"
}
# On the way out, however it ends: where the time went, and what failed.
trap report EXIT

phase packages scripts/install-deps.sh --tests
phase configure scripts/configure.sh
phase build cmake --build "$build" -j2
phase kubernetes kube/cluster/build-kubernetes.sh >/dev/null
phase "helm, kubectl" scripts/install-kube-tools.sh --monitors >/dev/null
status=0
# The quiet phase: the tests that judge a time, a rate or a ratio of times (label `measure`), one
# at a time with nothing else on the machine, before any cluster has started (after one stops,
# the kernel's clean-up of its cgroups and mounts skews a run for a while).
phase "quiet phase" ctest --test-dir "$build" -L measure --output-on-failure \
  --output-junit "$build/ctest-measure.xml" || status=$?
# Then two at a time: the cluster suites, which mostly wait on pods, beside the unit tests and
# the local suites one after another; what compares runs still runs alone (RUN_SERIAL, or
# cpu_lock.py for a cluster test). tests/integration/CMakeLists.txt says which.
phase "concurrent suites" ctest --test-dir "$build" -LE measure -j2 --output-on-failure \
  --output-junit "$build/ctest-results.xml" || status=$?
# A suite that could not run is a failure here, not a pass; ERGOBENCH_ALLOW_SKIPS=1 allows skips
# on a machine that lacks something on purpose.
if [ "${ERGOBENCH_ALLOW_SKIPS:-0}" != 1 ]; then
  python3 tests/check_no_skips.py "$build/ctest-measure.xml" "$build/ctest-results.xml" || status=1
fi
exit "$status"
