#!/usr/bin/env bash
# Sets up ergobench on this machine and runs a real benchmark: MLBench task 0a (all-reduce
# sweep) on 2 local ranks over gloo. Safe to run again: set-up steps are idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/configure.sh
cmake --build build -j2 --target ergobench ergobench-runner
exec build/bin/ergobench run manifests/examples/task0a.yaml
