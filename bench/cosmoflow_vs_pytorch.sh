#!/usr/bin/env bash
# CosmoFlow training samples/s: ergobench-runner (task cosmoflow on its synthetic universes, one
# rank) against bench/cosmoflow_pytorch.py, the same network, recipe and data path in PyTorch's
# Python API on the same libtorch, with the same threads. Prints both, their ratio, and
# ergobench's model GFLOP/s and MFU (its FLOPs a sample are counted from the layers). PyTorch runs
# twice: as a user runs it, and with glibc's malloc set as ergobench-runner sets it
# (runner/metrics/tensor_memory.cc: mmap threshold 512 MiB, trim threshold 1 GiB, top pad 64 MiB),
# since a 3D CNN's activations are megabytes each, which glibc's default maps and unmaps (and the
# kernel zeroes) at every step.
# Usage: bench/cosmoflow_vs_pytorch.sh [preset] [steps] [build-dir]
set -euo pipefail
preset=${1:-tiny}
steps=${2:-60}
build=$(realpath "${3:-$(dirname "$0")/../build}")  # absolute: the runs below change directory
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/install-deps.sh" --bench  # PyTorch (python3-torch), the peer measured against
threads=$(nproc)
batch=8
warmup=10
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/c.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: cosmoflow-throughput}
spec:
  task: cosmoflow
  workers: 1
  maxEpochs: 1
  hyperparameters: {model: $preset, trainSamples: $((steps * batch)), evalSamples: 8, batchSize: $batch, warmupSteps: $warmup}
YAML
(cd "$work" && ERGOBENCH_THREADS=$threads "$build/bin/ergobench" run -q c.yaml >/dev/null)
read -r ours flops mfu < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); \
print(r['samplesPerSecond'], r['modelFlopsPerSecond'], r.get('mfu', 0))" \
  "$work/ergobench-results/cosmoflow-throughput/rank-0.json")
peer() { /usr/bin/python3 "$here/cosmoflow_pytorch.py" --preset "$preset" --threads "$threads" --batch "$batch" \
  --steps "$steps" --warmup "$warmup"; }
theirs=$(peer)
tuned=$(GLIBC_TUNABLES=glibc.malloc.mmap_threshold=536870912:glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=67108864 peer)
python3 - "$ours" "$theirs" "$tuned" "$threads" "$preset" "$flops" "$mfu" <<'PY'
import sys
ours, theirs, tuned = (float(v) for v in sys.argv[1:4])
threads, preset, flops, mfu = sys.argv[4], sys.argv[5], float(sys.argv[6]), float(sys.argv[7])
print(f"CosmoFlow ({preset}) training, batch 8, {threads} threads")
print(f"  ergobench-runner                    {ours:8.1f} samples/s  ({flops / 1e9:.1f} GFLOP/s, MFU {100 * mfu:.1f}%)")
print(f"  PyTorch (Python)                    {theirs:8.1f} samples/s  ratio {ours / theirs:.3f}")
print(f"  PyTorch, glibc malloc as ergobench  {tuned:8.1f} samples/s  ratio {ours / tuned:.3f}")
PY
