#!/usr/bin/env bash
# ResNet-50 v1.5 training images/s at 224x224: ergobench-runner (task resnet50 on synthetic
# data, one rank) against bench/resnet50_pytorch.py, the same model, recipe and data in
# PyTorch's Python API on the same libtorch, with the same threads, interleaved over `pairs`
# runs. Prints each pair's ratio and the median, and ergobench's GFLOP/s (24.6 GFLOP per
# training image: 4.1 G multiply-adds forward, times 2 FLOPs, times 3 for forward + backward).
# Usage: bench/resnet50_vs_pytorch.sh [pairs] [steps] [build-dir]
set -euo pipefail
pairs=${1:-3}
steps=${2:-10}
build=$(realpath "${3:-$(dirname "$0")/../build}")  # absolute: the runs below change directory
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/install-deps.sh" --bench  # PyTorch (python3-torch), the peer measured against
threads=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/r.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: resnet50-throughput}
spec:
  task: resnet50
  workers: 1
  maxEpochs: 1
  dataset: {source: synthetic}
  hyperparameters: {batchSize: 32, trainSamples: $((steps * 32)), evalSamples: 32, warmupSteps: 2}
YAML
ratios=()
for pair in $(seq "$pairs"); do
  (cd "$work" && rm -rf ergobench-results && ERGOBENCH_THREADS=$threads "$build/bin/ergobench" run -q r.yaml >/dev/null)
  ours=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samplesPerSecond'])" \
    "$work/ergobench-results/resnet50-throughput/rank-0.json")
  theirs=$(/usr/bin/python3 "$here/resnet50_pytorch.py" --threads "$threads" --steps "$steps" --warmup 2)
  ratio=$(python3 -c "print(f'{$ours / $theirs:.3f}')")
  ratios+=("$ratio")
  printf 'pair %d: ergobench-runner %6.2f images/s (%.0f GFLOP/s), PyTorch %6.2f images/s, ratio %s\n' \
    "$pair" "$ours" "$(python3 -c "print($ours * 24.6)")" "$theirs" "$ratio"
done
python3 -c "import statistics,sys; print(f'ResNet-50, batch 32, $threads threads: median ratio {statistics.median(map(float, sys.argv[1:])):.3f} (target >= 1.05)')" "${ratios[@]}"
