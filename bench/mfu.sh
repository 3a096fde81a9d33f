#!/usr/bin/env bash
# Model FLOPs and MFU of training runs on this machine (`ergobench run`): fmnist's CNN at k=2
# (one thread a rank), task 4a's GNMT as test_translation trains it (hidden 128, 2 layers, the
# synthetic pair) at k=1 with every thread and at k=2 with one thread a rank, and GPT's "mini"
# preset at k=1. Each prints its FLOPs a sample (counted from the layers), model FLOP/s, the
# peak MFU divides by (the cores' theoretical FP32 peak, runner/cpu_peak.h) and the best GEMM
# the ranks measured beside it.
# Usage: bench/mfu.sh [epochs] [build-dir]
set -euo pipefail
epochs=${1:-2}
build=$(realpath "${2:-$(dirname "$0")/../build}")
threads=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

manifest() {  # name task workers dataset hyperparameters; a dataset of - is the task's default
  local dataset=""
  [ "$4" = - ] || dataset="  dataset: $4"$'\n'
  printf 'apiVersion: ergobench.io/v1alpha1\nkind: Benchmark\nmetadata: {name: %s}\nspec:\n  task: %s\n  workers: %s\n  backend: gloo\n%s  maxEpochs: %s\n  hyperparameters: %s\n' \
    "$1" "$2" "$3" "$dataset" "$epochs" "$5" > "$work/$1.yaml"
}
gnmt='"hidden": 128, "layers": 2, "dropout": 0.0, "batchSize": 32, "gradientAccumulation": 1, "lrWarmupSteps": 20, "lrDecayStart": 1.0, "syntheticSentences": 4000, "syntheticTestSentences": 200, "syntheticNouns": 16, "syntheticClauses": 1, "beam": 1'
manifest fmnist-k2 fmnist 2 - '{}'
manifest gnmt-k1 4a 1 '{source: synthetic}' "{$gnmt, \"learningRate\": 0.005}"
manifest gnmt-k2 4a 2 '{source: synthetic}' "{$gnmt, \"learningRate\": 0.01}"  # test_translation's rate at k=2
manifest gpt-k1 gpt 1 '{source: synthetic}' '{model: mini, batchSize: 4, maxSteps: 40, warmupSteps: 3}'

echo "Model FLOPs and MFU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $threads CPUs"
for run in fmnist-k2:1 gnmt-k1:$threads gnmt-k2:1 gpt-k1:$threads; do
  name=${run%%:*}
  (cd "$work" && ERGOBENCH_THREADS=${run##*:} "$build/bin/ergobench" run -q "$name.yaml" >/dev/null)
  python3 - "$work/ergobench-results/$name/benchmark.json" "$name" "${run##*:}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["status"]["results"]
print(f"  {sys.argv[2]:10s} {sys.argv[3]} thread(s) a rank: {r['flopsPerSample'] / 1e6:9.3f} MFLOP/sample, "
      f"{r['modelFlopsPerSecond'] / 1e9:7.2f} GFLOP/s, MFU {100 * r['mfu']:5.1f}% of {r['peakFlopsPerSecond'] / 1e9:.1f} "
      f"GFLOP/s ({r['peakBasis']}); best GEMM {r['achievableFlopsPerSecond'] / 1e9:.1f} GFLOP/s")
PY
done
