#!/usr/bin/env bash
# The data path's I/O during a real run: fmnist on k ranks for one epoch (Fashion-MNIST from
# Debian's dataset-fashion-mnist), each rank's io figures from its result: the bytes it read after
# run_start, how long that took, the share of the steps spent waiting for data, how fast the
# in-step batch copy prepares samples against how fast the model trains. Not I/O-bound when the
# copy is many times faster than training and the wait a few percent.
# Usage: bench/data_io.sh [workers] [build-dir]
set -euo pipefail
workers=${1:-1}
build=$(realpath "${2:-$(dirname "$0")/../build}")  # absolute: the run below changes directory
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/fmnist.yaml" <<YAML
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: fmnist-io}
spec:
  task: fmnist
  workers: $workers
  maxEpochs: 1
YAML
(cd "$work" && "$build/bin/ergobench" run -q fmnist.yaml >/dev/null)
python3 - "$work/ergobench-results/fmnist-io" "$workers" <<'PY'
import json, os, sys
folder, workers = sys.argv[1], int(sys.argv[2])
for rank in range(workers):
    r = json.load(open(os.path.join(folder, f"rank-{rank}.json")))
    io = r["io"]
    storage = io.get("storageBytes")
    print(f"rank {rank}: read {io['dataBytes']:,d} bytes in {io['loadSeconds']:.2f} s of a {r['runSeconds']:.1f} s run "
          f"({io['dataBytesPerSecond'] / 1e6:.2f} MB/s over the run; "
          f"{'?' if storage is None else f'{storage / 1024:.0f} KiB'} from storage)")
    loading = io.get("loadingSamplesPerSecond")
    print(f"  steps waited {100 * r.get('dataWaitShare', 0):.1f}% of their time for data; the batch copy prepares "
          f"{loading or 0:,.0f} samples/s, {((loading or 0) / r['samplesPerSecond']):.0f} times the "
          f"{r['samplesPerSecond']:,.0f} samples/s it trained at")
PY
