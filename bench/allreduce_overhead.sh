#!/usr/bin/env bash
# Runs bench/allreduce_overhead.cc for gloo (k local processes) and mpi (mpirun), k=2 by
# default. Usage: bench/allreduce_overhead.sh [k] [build-dir]
set -euo pipefail
k=${1:-2}
build=$(realpath "${2:-$(dirname "$0")/../build}")
bin="$build/bin/allreduce_overhead"
[ -x "$bin" ] || { echo "build it first: cmake --build $build --target allreduce_overhead" >&2; exit 1; }

store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pids=()
for ((rank = 0; rank < k; rank++)); do
  # Only rank 0 prints a table; grep finding nothing on the others is no failure.
  RANK=$rank WORLD_SIZE=$k MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$bin" gloo "$store" | { grep -v '^\[0a\]' || true; } &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo
root=""
[ "$(id -u)" -eq 0 ] && root="--allow-run-as-root"
mpirun -np "$k" --oversubscribe --bind-to none $root "$bin" mpi | { grep -v '^\[0a\]' || true; }
