#!/usr/bin/env bash
# Translation training target tokens/s: ergobench-runner's tasks 4a (GNMT: 256 wide, 4 layers,
# 64 sentences a batch) and 4b (the Transformer: 256 wide, 1024 in the feed-forward layers, 4
# heads, 3 + 3 layers, 1984 tokens a batch), one rank, fp32, against
# bench/translation_pytorch.py, the same models and steps in PyTorch's Python API on the same
# libtorch, with the same threads. ergobench reads a corpus in the WMT16 text layout written
# here: 1000 words, every sentence 30 of them on either side, so that both train on batches of
# one shape. Runs are interleaved, as the VM's speed drifts; prints each pair and the median
# ratio per model.
# Usage: bench/translation_vs_pytorch.sh [steps] [pairs] [build-dir]
set -euo pipefail
steps=${1:-20}
pairs=${2:-3}
build=$(realpath "${3:-$(dirname "$0")/../build}")  # absolute: the runs below change directory
here=$(cd "$(dirname "$0")" && pwd)
"$here/../scripts/install-deps.sh" --bench  # PyTorch (python3-torch), the peer measured against
threads=$(nproc)
length=30
batch=64
warmup=3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The corpus: (warm-up + steps) batches of training pairs and one test pair.
python3 "$here/random_corpus.py" "$work/corpus" $(((warmup + steps) * batch)) "$length" 1000

data="corpusFormat: wmt16, trainPrefix: train, testPrefix: test, vocabFile: vocab, maxLength: $length, testMaxLength: $length, evalSentences: 1, beam: 1"
common="gradientAccumulation: 1, warmupSteps: $warmup, precision: fp32, $data"
declare -A recipe=(
  [4a]="hidden: 256, layers: 4, batchSize: $batch, $common"
  [4b]="dim: 256, ffn: 1024, heads: 4, layers: 3, batchTokens: $((batch * (length + 1))), $common"
)
declare -A peer=(
  [4a]="--model gnmt --hidden 256 --layers 4"
  [4b]="--model transformer --hidden 256 --ffn 1024 --heads 4 --layers 3"
)
for task in 4a 4b; do
  cat > "$work/$task.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: translate-$task}
spec:
  task: "$task"
  workers: 1
  maxEpochs: 1
  dataset: {source: path, path: $work/corpus}
  hyperparameters: {${recipe[$task]}}
YAML
  results=()
  for i in $(seq "$pairs"); do
    (cd "$work" && rm -rf ergobench-results && ERGOBENCH_THREADS=$threads "$build/bin/ergobench" run -q "$task.yaml" >/dev/null)
    ours=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['translation']['targetTokensPerSecond'])" \
      "$work/ergobench-results/translate-$task/rank-0.json")
    # shellcheck disable=SC2086  # the peer's flags are words
    theirs=$(/usr/bin/python3 "$here/translation_pytorch.py" ${peer[$task]} --threads "$threads" --vocab 1004 \
      --length "$length" --batch "$batch" --steps "$steps" --warmup "$warmup")
    results+=("$ours $theirs")
  done
  python3 - "$task" "$threads" "${results[@]}" <<'PY'
import statistics, sys
task, threads, rows = sys.argv[1], sys.argv[2], [list(map(float, r.split())) for r in sys.argv[3:]]
model = {"4a": "GNMT (256 wide, 4 layers)", "4b": "Transformer (256 wide, 3 + 3 layers)"}[task]
print(f"Task {task}, {model}, batches of 64 pairs of 30 tokens, fp32, {threads} threads, target tokens/s")
for ours, theirs in rows:
    print(f"  ergobench {ours:9.1f}   PyTorch (Python) {theirs:9.1f}   ratio {ours / theirs:.3f}")
print(f"  median ratio {statistics.median(r[0] / r[1] for r in rows):.3f}")
PY
done
