#!/usr/bin/env bash
# Operator scale benchmark (see operator_scale.py): 100 Benchmarks x 4 workers on a real
# control plane. Needs a build (scripts/test.sh or cmake) and the control plane cache.
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/operator_scale.py "$@"
