#!/usr/bin/env bash
# ResNet-20 training images/s: ergobench-runner (task 1a on synthetic CIFAR-shaped data,
# one rank) against bench/resnet20_pytorch.py, the same model, recipe and data path in
# PyTorch's Python API on the same libtorch, with the same threads. Prints both, the ratio
# (target >= 1.05) and ergobench's achieved GFLOP/s (243 MFLOP per training image: about
# 41 M multiply-adds forward, times 2 FLOPs, times 3 for forward + backward).
# Usage: bench/resnet20_vs_pytorch.sh [steps] [build-dir]
set -euo pipefail
steps=${1:-25}
build=$(realpath "${2:-$(dirname "$0")/../build}")  # absolute: the runs below change directory
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/install-deps.sh" --bench  # PyTorch (python3-torch), the peer measured against
threads=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/r.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: resnet20-throughput}
spec:
  task: 1a
  workers: 1
  maxEpochs: 1
  dataset: {source: synthetic}
  hyperparameters: {trainSamples: $((steps * 128)), warmupSteps: 5}
YAML
(cd "$work" && ERGOBENCH_THREADS=$threads "$build/bin/ergobench" run -q r.yaml >/dev/null)
ours=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samplesPerSecond'])" \
  "$work/ergobench-results/resnet20-throughput/rank-0.json")
theirs=$(/usr/bin/python3 "$here/resnet20_pytorch.py" --threads "$threads" --steps "$steps" --warmup 5)
python3 - "$ours" "$theirs" "$threads" <<'PY'
import sys
ours, theirs, threads = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
print(f"ResNet-20 training, batch 128, {threads} threads")
print(f"  ergobench-runner  {ours:8.1f} images/s  ({ours * 0.243:.1f} GFLOP/s)")
print(f"  PyTorch (Python)  {theirs:8.1f} images/s  ({theirs * 0.243:.1f} GFLOP/s)")
print(f"  ratio             {ours / theirs:8.3f}  (target >= 1.05)")
PY
