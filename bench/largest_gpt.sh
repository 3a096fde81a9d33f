#!/usr/bin/env bash
# The largest GPT preset each gradient sync trains under a memory limit per rank, at k=1 and
# k=2: ZeRO's point that sharding the optimizer state and gradients fits larger models.
# Each attempt is a real run of task gpt: two optimizer steps (AdamW) on synthetic tokens,
# batch 1 and short sequences, so that memory is the model's and not its activations'. The
# run goes into a memory cgroup (v1) of k times the limit; the preset fits when the run
# succeeds. Prints each attempt's peak tensor and resident bytes per rank, then the table.
# Needs root and a writable /sys/fs/cgroup/memory.
# Usage: bench/largest_gpt.sh [GiB per rank, fractions too] [sequence length] [build-dir]
# KS="2" and STRATEGIES="sharded:2 sharded:3" (sync:zeroStage) narrow the table.
set -euo pipefail
gib=${1:-6}
sequence=${2:-128}
build=$(realpath "${3:-$(dirname "$0")/../build}")
cgroups=/sys/fs/cgroup/memory
[ -w "$cgroups" ] || { echo "needs a writable $cgroups (root, cgroup v1)" >&2; exit 1; }
presets=(mini gpt2 gpt2-medium gpt2-large gpt2-xl)
work=$(mktemp -d)
group="$cgroups/ergobench-largest-gpt-$$"
trap 'rmdir "$group" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$group"

# attempt NAME K PRESET SYNC STAGE: 0 when the run succeeded inside the limit.
attempt() {
  local name=$1 k=$2 preset=$3 sync=$4 stage=$5
  cat > "$work/$name.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: $name}
spec:
  task: gpt
  workers: $k
  dataset: {source: synthetic}
  hyperparameters: {model: $preset, sequenceLength: $sequence, batchSize: 1, maxSteps: 2, warmupSteps: 0,
                    evalInterval: 2, evalSequences: 2, precision: fp32, gradientSync: $sync, zeroStage: $stage}
YAML
  # One write: the cgroup takes each write() as a whole new limit.
  echo "$(awk -v gib="$gib" -v k="$k" 'BEGIN { printf "%.0f", gib * k * 2^30 }')" > "$group/memory.limit_in_bytes"
  local status=0
  (echo "$BASHPID" > "$group/cgroup.procs" && cd "$work" && exec "$build/bin/ergobench" run -q "$name.yaml") \
    > "$work/$name.log" 2>&1 || status=$?
  local memory="$work/ergobench-results/$name/benchmark.json"
  if [ "$status" -eq 0 ]; then
    python3 -c "import json,sys; m = json.load(open(sys.argv[1]))['status']['results']['memory']; \
print(f'  {sys.argv[2]}: fits, tensors {m[\"peakTensorBytes\"] / 2**30:.2f} GiB, resident {m[\"peakResidentBytes\"] / 2**30:.2f} GiB per rank')" \
      "$memory" "$name"
  else
    # The cgroup's OOM killer ends a rank with SIGKILL: "exited (code 137)".
    echo "  $name: does not fit (rank $(grep -m1 -oE 'exited \(code [0-9]+\)|bad_alloc|out of memory' "$work/$name.log" || echo "failed"))"
  fi
  return "$status"
}

echo "largest GPT preset under $gib GiB per rank, sequences of $sequence tokens, batch 1, AdamW fp32"
table=()
for k in ${KS:-1 2}; do
  for strategy in ${STRATEGIES:-flat:1 sharded:1 sharded:2 sharded:3}; do
    sync=${strategy%:*}
    stage=${strategy#*:}
    label=$([ "$sync" = flat ] && echo flat || echo "ZeRO-$stage")
    largest="none"
    for preset in "${presets[@]}"; do
      attempt "k$k-$sync$stage-$preset" "$k" "$preset" "$sync" "$stage" || break
      largest=$preset
    done
    table+=("$(printf '%-3s %-8s %s' "$k" "$label" "$largest")")
  done
done
echo
printf '%-3s %-8s %s\n' k sync "largest preset"
printf '%s\n' "${table[@]}"
