#!/usr/bin/env bash
# The GPU issue's Part B in one call of a lent GPU machine (an image with PyTorch's CUDA wheel,
# CUDA's toolkit, NCCL and no package registry): builds ergobench-runner against the wheel's
# libtorch (TorchConfig.cmake) and the Debian packages the image lacks (bench/gpu/fetch-debs.sh,
# carried), then measures, each beside PyTorch-Python on the same GPU in the same call:
#   1. task 0a over NCCL at k=1 on GPU buffers, the GPU's power and energy from NVML;
#   2. ResNet-50 on synthetic images, bf16 and fp16 (loss scaling): images/s, J/image
#      (bench/resnet50_pytorch.py);
#   3. GPT-2 small (124M) on random tokens, bf16 and fp16: tokens/s, MFU, J/token (bench/gpt_pytorch.py).
# What it measured lands in OUT_DIR as summary.txt and gpu-results.tar.gz (results, logs).
# Usage: [PRECISIONS="bf16 fp16"] bench/gpu/run.sh DEBS_DIR OUT_DIR [steps]
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
{
  cmake -S "$repo" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DERGOBENCH_RUNNER_ONLY=ON \
    -DERGOBENCH_BUILD_TESTS=OFF -DERGOBENCH_BUILD_BENCH=OFF -DERGOBENCH_TORCH_CONFIG=ON -DERGOBENCH_CUDA=ON \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$work/deps/usr" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DTORCH_CUDA_ARCH_LIST=9.0 &&
    cmake --build "$work/build" -j "$(nproc)" --target ergobench-runner -- -k 0
} > "$out/build.log" 2>&1
status=$?
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
  (cd "$work" && "$runner" --config "$work/$name.yaml" --result-file "$out/$name.json" \
     --summary-file "$work/$name.summary" --output-dir "$work/$name" --metrics-port -1 \
     --energy-interval 100 > "$out/$name.log" 2>&1)
  local rc=$?
  stamp "$name: exit $rc: $(cat "$work/$name.summary" 2>/dev/null)"
  [ $rc -eq 0 ] || tail -20 "$out/$name.log"
}
benchmark() {  # name task hyperparameters [maxEpochs]
  local epochs=""
  [ -n "${4:-}" ] && epochs="maxEpochs: $4"
  cat > "$work/$1.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: $1}
spec:
  task: $2
  workers: 1
  backend: nccl
  device: cuda
  resources: {gpu: 1}
  dataset: {source: synthetic}
  $epochs
  hyperparameters: $3
YAML
}

stamp "1. task 0a over NCCL, k=1, GPU buffers"
benchmark allreduce-nccl 0a "{dtype: float32, minElements: 1024, maxElements: 67108864, sizes: 9, warmup: 5, repetitions: 20}"
run allreduce-nccl
cp "$work/allreduce-nccl/allreduce.csv" "$out/allreduce-nccl.csv" 2>/dev/null

batch=256
for precision in ${PRECISIONS:-bf16 fp16}; do
  stamp "2. ResNet-50, synthetic, $precision, batch $batch, $steps steps"
  benchmark resnet50-$precision resnet50 \
    "{batchSize: $batch, trainSamples: $(( (steps + 10) * batch )), evalSamples: $batch, warmupSteps: 10, precision: $precision}" 1
  run resnet50-$precision
  (cd "$repo/bench" && python3 resnet50_pytorch.py --device cuda --precision $precision --batch $batch \
     --steps $((steps + 10)) --warmup 10 --threads "$(nproc)" --json > "$out/resnet50-$precision-pytorch.json" \
     2> "$out/resnet50-$precision-pytorch.log")
  stamp "PyTorch-Python ResNet-50 $precision: $(cat "$out/resnet50-$precision-pytorch.json")"
done

for precision in ${PRECISIONS:-bf16 fp16}; do
  stamp "3. GPT-2 small, random tokens, $precision, batch 16 x 1024, $steps steps"
  benchmark gpt2-$precision gpt \
    "{model: gpt2, batchSize: 16, maxSteps: $((steps + 5)), warmupSteps: 5, precision: $precision, evalInterval: 1000000}"
  run gpt2-$precision
  (cd "$repo/bench" && python3 gpt_pytorch.py --device cuda --precision $precision --layers 12 --hidden 768 \
     --heads 12 --sequence 1024 --vocab 50257 --batch 16 --steps "$steps" --warmup 5 --threads "$(nproc)" --json \
     > "$out/gpt2-$precision-pytorch.json" 2> "$out/gpt2-$precision-pytorch.log")
  stamp "PyTorch-Python GPT-2 $precision: $(cat "$out/gpt2-$precision-pytorch.json")"
done

python3 "$here/summarize.py" "$out" | tee "$out/summary.txt"
stamp "done"
