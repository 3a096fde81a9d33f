#!/usr/bin/env bash
# Operator scale benchmark (see operator_scale.py): 100 Benchmarks x 4 workers on the real
# one-node cluster, the operator installed by its chart. Needs root, a build and what
# scripts/install-deps.sh --tests installs.
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/operator_scale.py "$@"
