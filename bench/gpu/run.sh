#!/usr/bin/env bash
# The GPU issue's Part B in one call of a lent GPU machine (an image with PyTorch's CUDA wheel,
# CUDA's toolkit, NCCL and no package registry): builds ergobench-runner against the wheel's
# libtorch (TorchConfig.cmake) and the Debian packages the image lacks (bench/gpu/fetch-debs.sh,
# carried), then runs the parts named in PARTS, in that order, each beside PyTorch-Python on the
# same GPU in the same call where it has a peer:
#   learn:       tasks 4a (GNMT) and 4b (the Transformer) learn the synthetic language pair to
#                BLEU 50 on the GPU in fp16 with their loss scalers and beam search (the known
#                answer of tests/integration/test_translation.py, there on CPUs);
#   translation: 4a and 4b at MLBench's sizes (GNMT 1024 wide; Transformer-big), fp16, target
#                tokens/s, J/token and memory (bench/translation_pytorch.py); TRANSLATION_HP adds
#                hyperparameters to both tasks' (say "gradientSync: sharded, zeroStage: 1");
#   gpt2:        GPT-2 small (124M) on random tokens: tokens/s, MFU, J/token, memory (bench/gpt_pytorch.py);
#   resnet50:    ResNet-50 on synthetic images: images/s, J/image, memory (bench/resnet50_pytorch.py);
#   zero:        GPT-2 small with ZeRO-1 (gradientSync sharded) against flat, over NCCL;
#   allreduce:   task 0a over NCCL at k=1 on GPU buffers, the GPU's power and energy from NVML.
# A part starts only while less than DEADLINE seconds (default 420) have gone since the start,
# so that a slow part costs the ones after it, not the call. What it measured lands in OUT_DIR as
# summary.txt and gpu-results.tar.gz (results, logs).
# Usage: [PARTS="learn translation gpt2 resnet50 zero allreduce"] [PRECISIONS="bf16 fp16"] [DEADLINE=420]
#        bench/gpu/run.sh DEBS_DIR OUT_DIR [steps]
set -uo pipefail
debs=$(realpath "${1:?usage: run.sh DEBS_DIR OUT_DIR [steps]}")
final=$(realpath "${2:?usage: run.sh DEBS_DIR OUT_DIR [steps]}")
steps=${3:-40}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=/tmp/ergobench-gpu
out=$work/results
mkdir -p "$work" "$out" "$final"
# The results in one archive: the device tool brings back a few files only.
trap 'tar -C "$work" -czf "$final/gpu-results.tar.gz" results; cp "$out/summary.txt" "$final/" 2>/dev/null' EXIT
started=$(date +%s)
stamp() { echo "[$(( $(date +%s) - started ))s] $*"; }

stamp "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv | tee "$out/gpu.csv"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'

stamp "build: unpack $(ls "$debs"/*.deb | wc -l) Debian packages, configure, compile"
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$work/deps"; done
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
build() {  # extra CMake flags
  cmake -S "$repo" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DERGOBENCH_RUNNER_ONLY=ON \
    -DERGOBENCH_BUILD_TESTS=OFF -DERGOBENCH_BUILD_BENCH=OFF -DERGOBENCH_TORCH_CONFIG=ON -DERGOBENCH_CUDA=ON \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$work/deps/usr" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DTORCH_CUDA_ARCH_LIST=9.0 "$@" &&
    cmake --build "$work/build" -j "$(nproc)" --target ergobench-runner -- -k 0
}
build > "$out/build.log" 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "device_tensor_memory" "$out/build.log"; then
  # The one file that compiles against torch's CUDA caching allocator: a libtorch that changed
  # its header costs the memory figures, not the call.
  stamp "device_tensor_memory.cc did not compile against this libtorch; again without GPU memory figures"
  grep -A5 "device_tensor_memory.cc.*error" "$out/build.log" | head -20
  build -DERGOBENCH_CUDA_MEMORY_STATS=OFF > "$out/build-again.log" 2>&1
  status=$?
fi
grep -E "ergobench:|error:|Error" "$out/build.log" | head -60
runner=$work/build/bin/ergobench-runner
if [ $status -ne 0 ] || [ ! -x "$runner" ]; then
  stamp "build failed (exit $status); the end of build.log:"
  tail -40 "$out/build.log"
  exit 1
fi
stamp "built"

# One Benchmark through the runner, as a pod would run it: rank 0 of 1 on this GPU.
run() {
  local name=$1
  (cd "$work" && timeout "${RUN_TIMEOUT:-100}" "$runner" --config "$work/$name.yaml" --result-file "$out/$name.json" \
     --summary-file "$work/$name.summary" --output-dir "$work/$name" --metrics-port -1 \
     --energy-interval 100 > "$out/$name.log" 2>&1)
  local rc=$?
  stamp "$name: exit $rc: $(cat "$work/$name.summary" 2>/dev/null)"
  [ $rc -eq 0 ] || tail -20 "$out/$name.log"
}
# A PyTorch-Python peer on the same GPU: its JSON line beside the runner's result.
peer() {  # name script flags...
  local name=$1 script=$2
  shift 2
  (cd "$repo/bench" && timeout 100 python3 "$script" --device cuda --threads "$(nproc)" --json "$@" \
     > "$out/$name-pytorch.json" 2> "$out/$name-pytorch.log")
  stamp "PyTorch-Python $name: $(cat "$out/$name-pytorch.json")"
}
benchmark() {  # name task hyperparameters [maxEpochs [goal [dataset]]]
  local epochs="" goal=${5:-} dataset=${6:-"{source: synthetic}"}
  [ -n "${4:-}" ] && epochs="maxEpochs: $4"
  cat > "$work/$1.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: $1}
spec:
  task: "$2"
  workers: 1
  backend: nccl
  device: cuda
  resources: {gpu: 1}
  dataset: $dataset
  $epochs
  $goal
  hyperparameters: $3
YAML
}

deadline=${DEADLINE:-420}
in_time() { [ $(( $(date +%s) - started )) -lt "$deadline" ] || { stamp "skipped $1: past ${deadline}s"; return 1; }; }

part_allreduce() {
  stamp "task 0a over NCCL, k=1, GPU buffers"
  benchmark allreduce-nccl 0a "{dtype: float32, minElements: 1024, maxElements: 67108864, sizes: 9, warmup: 5, repetitions: 20}"
  run allreduce-nccl
  cp "$work/allreduce-nccl/allreduce.csv" "$out/allreduce-nccl.csv" 2>/dev/null
}

part_resnet50() {
  local batch=256 precision
  for precision in ${PRECISIONS:-bf16 fp16}; do
    in_time "resnet50 $precision" || return
    stamp "ResNet-50, synthetic, $precision, batch $batch, $steps steps"
    benchmark resnet50-$precision resnet50 \
      "{batchSize: $batch, trainSamples: $(( (steps + 10) * batch )), evalSamples: $batch, warmupSteps: 10, precision: $precision}" 1
    run resnet50-$precision
    peer resnet50-$precision resnet50_pytorch.py --precision $precision --batch $batch --steps $((steps + 10)) --warmup 10
  done
}

part_gpt2() {
  local precision
  for precision in ${PRECISIONS:-bf16 fp16}; do
    in_time "gpt2 $precision" || return
    stamp "GPT-2 small, random tokens, $precision, batch 16 x 1024, $steps steps"
    benchmark gpt2-$precision gpt \
      "{model: gpt2, batchSize: 16, maxSteps: $((steps + 5)), warmupSteps: 5, precision: $precision, evalInterval: 1000000}"
    run gpt2-$precision
    peer gpt2-$precision gpt_pytorch.py --precision $precision --layers 12 --hidden 768 --heads 12 --sequence 1024 \
      --vocab 50257 --batch 16 --steps "$steps" --warmup 5
  done
}

# ZeRO-1 (gradientSync sharded: reduce-scatter, the update of this rank's shard, all-gather) on
# GPU tensors over NCCL, against flat: at k=1 each shard is the whole model, so the parameters
# and losses follow flat's; stages 2 and 3 run collectives off the main thread, which nccl refuses.
part_zero() {
  in_time "zero" || return
  stamp "GPT-2 small, bf16, ZeRO-1 against flat, 10 steps"
  local hp="model: gpt2, batchSize: 16, maxSteps: 10, warmupSteps: 2, precision: bf16, evalInterval: 1000000, seed: 7"
  benchmark zero-flat gpt "{$hp, gradientSync: flat}"
  run zero-flat
  benchmark zero-sharded gpt "{$hp, gradientSync: sharded, zeroStage: 1}"
  run zero-sharded
}

# The synthetic pair, learned as tests/integration/test_translation.py learns it on CPUs (its
# SMALL models, BLEU 50 the goal), here in fp16 with beam search, each capped at 120 s.
part_learn() {
  local task
  declare -A recipe=(
    [4a]="hidden: 128, layers: 2, dropout: 0.0, batchSize: 32, gradientAccumulation: 1, learningRate: 0.005, lrWarmupSteps: 20, lrDecayStart: 1.0, syntheticNouns: 16, syntheticClauses: 1"
    [4b]="dim: 64, ffn: 128, heads: 4, layers: 2, batchTokens: 1024, gradientAccumulation: 1, learningRate: 0.003, lrWarmupSteps: 50"
  )
  declare -A epochs=([4a]=60 [4b]=16)
  for task in 4b 4a; do
    in_time "learn $task" || return
    stamp "task $task learns the synthetic pair to BLEU 50, fp16, beam search"
    benchmark learn-$task "$task" "{${recipe[$task]}, syntheticSentences: 4000, syntheticTestSentences: 200, precision: fp16}" \
      "${epochs[$task]}" "goal: {metric: bleu, target: 50}"
    RUN_TIMEOUT=120 run learn-$task
  done
}

# MLBench's sizes on random 30-word sentences (a corpus in the WMT16 text layout written here,
# 32,000 words), fp16, one batch shape for both programs: GNMT 128 pairs a batch, the
# Transformer 264 (8,184 tokens, its 8,192 a batch).
part_translation() {
  local length=30 warmup=5 task
  python3 "$here/../random_corpus.py" "$work/corpus" $(( (warmup + steps) * 264 )) "$length" 32000
  local data="corpusFormat: wmt16, trainPrefix: train, testPrefix: test, vocabFile: vocab, maxLength: $length, testMaxLength: $length, evalSentences: 1, beam: 1"
  local common="gradientAccumulation: 1, warmupSteps: $warmup, precision: fp16, $data${TRANSLATION_HP:+, $TRANSLATION_HP}"
  declare -A recipe=([4a]="batchSize: 128, $common" [4b]="batchTokens: $((264 * (length + 1))), $common")
  declare -A flags=([4a]="--model gnmt --hidden 1024 --layers 4 --batch 128"
                    [4b]="--model transformer --hidden 1024 --ffn 4096 --heads 16 --layers 6 --batch 264")
  for task in 4a 4b; do
    in_time "translation $task" || return
    stamp "task $task at MLBench's size, fp16, $steps steps"
    benchmark speed-$task "$task" "{${recipe[$task]}}" 1 "" "{source: path, path: $work/corpus}"
    run speed-$task
    # shellcheck disable=SC2086  # the peer's flags are words
    peer speed-$task translation_pytorch.py ${flags[$task]} --precision fp16 --vocab 32004 --length "$length" \
      --steps "$steps" --warmup "$warmup"
  done
}

for part in ${PARTS:-learn translation gpt2 resnet50 zero allreduce}; do
  in_time "$part" && "part_$part"
done

python3 "$here/summarize.py" "$out" | tee "$out/summary.txt"
stamp "done"
