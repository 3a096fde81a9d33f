#!/usr/bin/env bash
# ResNet-20 training images/s at k ranks on this machine: ergobench-runner's task 1a (synthetic
# CIFAR-shaped data) with gradientSync overlap and flat, against PyTorch's
# DistributedDataParallel over gloo (bench/resnet20_pytorch.py --ranks k), the same model,
# recipe, data path, libtorch and threads per rank. Runs the three interleaved, `pairs` times,
# and prints each round and the ratios to DDP (target: overlap >= 1.0).
# Usage: bench/overlap_vs_ddp.sh [k] [steps] [pairs] [build-dir]
set -euo pipefail
k=${1:-2}
steps=${2:-25}
pairs=${3:-3}
build=$(realpath "${4:-$(dirname "$0")/../build}")  # absolute: the runs below change directory
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/install-deps.sh" --bench  # PyTorch (python3-torch), the peer measured against
threads=$(( $(nproc) / k > 0 ? $(nproc) / k : 1 ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ergobench() {  # ergobench <gradientSync>: the run's samples/s, all ranks
  cat > "$work/$1.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: resnet20-$1}
spec:
  task: 1a
  workers: $k
  maxEpochs: 1
  dataset: {source: synthetic}
  hyperparameters: {trainSamples: $((steps * 128 * k)), warmupSteps: 5, gradientSync: $1}
YAML
  (cd "$work" && rm -rf ergobench-results && ERGOBENCH_THREADS=$threads "$build/bin/ergobench" run -q "$1.yaml" >/dev/null)
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['status']['results']['samplesPerSecond'])" \
    "$work/ergobench-results/resnet20-$1/benchmark.json"
}

echo "ResNet-20 training at k=$k, batch 128 per rank, $threads threads per rank, $steps steps (5 warm-up)"
printf "%6s %12s %12s %12s %10s %10s\n" round overlap flat DDP overlap/DDP flat/DDP
rounds=""
for ((p = 1; p <= pairs; p++)); do
  overlap=$(ergobench overlap)
  flat=$(ergobench flat)
  ddp=$(/usr/bin/python3 "$here/resnet20_pytorch.py" --ranks "$k" --threads "$threads" --steps "$steps" --warmup 5)
  printf "%6d %12.1f %12.1f %12.1f %10.3f %10.3f\n" "$p" "$overlap" "$flat" "$ddp" \
    "$(python3 -c "print($overlap / $ddp)")" "$(python3 -c "print($flat / $ddp)")"
  rounds+="$overlap $flat $ddp;"
done
python3 - "$rounds" <<'PY'
import statistics, sys
rounds = [list(map(float, r.split())) for r in sys.argv[1].split(";") if r.strip()]
print(f"median overlap/DDP {statistics.median(o / d for o, _, d in rounds):.3f} (target >= 1.0), "
      f"flat/DDP {statistics.median(f / d for _, f, d in rounds):.3f}")
PY
