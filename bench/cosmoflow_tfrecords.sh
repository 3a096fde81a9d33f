#!/usr/bin/env bash
# CosmoFlow's data read from gzip'd TFRecords (the reference's format, spec.dataset.source: path)
# against generated in the run (source: synthetic): the same universes, one epoch of the tiny
# preset on one rank. ergobench-universes writes them first (timed); then each source's run
# prints its load time after run_start, the bytes it read, samples/s and the eval_error after
# epoch 1 (which must be the same to the last digit). No peer: TensorFlow's tf.data, the
# reference's reader, is not in our registries.
# Usage: bench/cosmoflow_tfrecords.sh [train] [validation] [build-dir]
set -euo pipefail
train=${1:-1024}
validation=${2:-128}
build=$(realpath "${3:-$(dirname "$0")/../build}")  # absolute: the runs below change directory
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

started=$(date +%s.%N)
"$build/bin/ergobench-universes" --model tiny --train "$train" --validation "$validation" --into "$work/universes"
written=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)")
echo "ergobench-universes --model tiny --train $train --validation $validation: ${written} s," \
     "$(du -sm "$work/universes/train" | cut -f1) MiB of train/"

for source in synthetic path; do
  dataset="{source: synthetic}"
  [ "$source" = path ] && dataset="{source: path, path: '$work/universes'}"
  cat > "$work/$source.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: cf-$source}
spec:
  task: cosmoflow
  workers: 1
  maxEpochs: 1
  dataset: $dataset
  hyperparameters: {model: tiny, trainSamples: $train, evalSamples: $validation, batchSize: 8}
YAML
  (cd "$work" && "$build/bin/ergobench" run -q "$source.yaml" >/dev/null)
done
python3 - "$work/ergobench-results" <<'PY'
import json, os, sys
results = sys.argv[1]
print(f"{'source':<10} {'load s':>8} {'data read, bytes':>17} {'samples/s':>10}  eval_error after epoch 1")
for source in ("synthetic", "path"):
    folder = os.path.join(results, f"cf-{source}")
    rank = json.load(open(os.path.join(folder, "rank-0.json")))
    errors = []
    for line in open(os.path.join(folder, "rank-0.mllog")):
        if ":::MLLOG" in line:
            event = json.loads(line.split(":::MLLOG", 1)[1])
            if event["key"] == "eval_error":
                errors.append(event["value"])
    io = rank["io"]
    print(f"{source:<10} {io['loadSeconds']:8.2f} {io['dataBytes']:17,d} {rank['samplesPerSecond']:10.1f}  {errors[0]!r}")
PY
