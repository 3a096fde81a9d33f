#!/usr/bin/env bash
# GPT training tokens/s: ergobench-runner (task gpt, preset "mini": 4 layers x 256, 8 heads,
# 256 tokens, byte-level vocabulary, random tokens, one rank, fp32) against
# bench/gpt_pytorch.py, the same model and AdamW step in PyTorch's Python API on the same
# libtorch, with the same threads. Runs are interleaved, as the VM's speed drifts; prints
# each pair, the median ratio and ergobench's model TFLOP/s and MFU (of the cores' theoretical
# peak, runner/cpu_peak.h), with the best GEMM the runner measured beside it.
# Usage: bench/gpt_vs_pytorch.sh [steps] [pairs] [build-dir]
set -euo pipefail
steps=${1:-20}
pairs=${2:-3}
build=$(realpath "${3:-$(dirname "$0")/../build}")  # absolute: the runs below change directory
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/install-deps.sh" --bench  # PyTorch (python3-torch), the peer measured against
threads=$(nproc)
batch=4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/g.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: gpt-throughput}
spec:
  task: gpt
  workers: 1
  dataset: {source: synthetic}
  hyperparameters: {model: mini, batchSize: $batch, maxSteps: $((steps + 3)), warmupSteps: 3, precision: fp32}
YAML
results=()
for i in $(seq "$pairs"); do
  (cd "$work" && rm -rf ergobench-results && ERGOBENCH_THREADS=$threads "$build/bin/ergobench" run -q g.yaml >/dev/null)
  ours=$(python3 -c "import json,sys; r = json.load(open(sys.argv[1])); m = r['languageModel']; \
print(m['tokensPerSecond'], m['modelTflopsPerSecond'], m['mfu'], r['peakFlopsPerSecond'], r['achievableFlopsPerSecond'])" \
    "$work/ergobench-results/gpt-throughput/rank-0.json")
  theirs=$(/usr/bin/python3 "$here/gpt_pytorch.py" --threads "$threads" --layers 4 --hidden 256 --heads 8 \
    --sequence 256 --vocab 257 --batch "$batch" --steps "$steps" --warmup 3)
  results+=("$ours $theirs")
done
python3 - "$threads" "${results[@]}" <<'PY'
import statistics, sys
threads, rows = sys.argv[1], [list(map(float, r.split())) for r in sys.argv[2:]]
print(f"GPT 'mini' (4 x 256, 256 tokens, batch 4) training, fp32, {threads} threads")
for ours, tflops, mfu, peak, gemm, theirs in rows:
    print(f"  ergobench {ours:9.1f} tokens/s ({tflops * 1000:.1f} GFLOP/s, MFU {100 * mfu:.1f}% of the cores' "
          f"{peak / 1e9:.1f} GFLOP/s, best GEMM {gemm / 1e9:.1f})"
          f"   PyTorch (Python) {theirs:9.1f} tokens/s   ratio {ours / theirs:.3f}")
print(f"  median ratio {statistics.median(r[0] / r[5] for r in rows):.3f}")
PY
