#!/usr/bin/env bash
# Fuzzes every target under tests/fuzz with clang's libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, each for SECONDS (default 60), and prints executions and
# crashes per target. The build lives in build-fuzz/; each target's corpus grows in
# build-fuzz/corpus/<target> from the seeds in tests/fuzz/corpus/<target> (copy new finds
# back there to keep them as tests). Crashing inputs land in build-fuzz/crashes/<target>/.
# Exits 1 if any target crashed.
#
#   bench/fuzz.sh            # 60 s each
#   SECONDS_EACH=600 bench/fuzz.sh yaml_fuzzer http_request_fuzzer
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SECONDS_EACH:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(yaml_fuzzer benchmark_fuzzer quantity_fuzzer termination_message_fuzzer
                                     watch_framing_fuzzer tokenizer_fuzzer http_request_fuzzer sweep_fuzzer
                                     dataset_archive_fuzzer energy_query_fuzzer node_status_fuzzer bleu_fuzzer
                                     vocabulary_fuzzer wmt17_fuzzer rank_zero_metrics_fuzzer training_curve_fuzzer
                                     mlperf_log_fuzzer)
command -v clang++ >/dev/null || { echo "fuzz: clang++ is missing (apt install clang)" >&2; exit 2; }

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DERGOBENCH_FUZZ=ON -DERGOBENCH_SANITIZE=ON \
  -DERGOBENCH_PCH=OFF -DERGOBENCH_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j2 --target "${targets[@]}" >/dev/null

status=0
printf '%-28s %14s %10s %8s\n' target executions execs/s crashes
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target crashes=build-fuzz/crashes/$target
  rm -rf "$crashes"
  mkdir -p "$corpus" "$crashes"
  cp -n tests/fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  log=build-fuzz/$target.log
  # -fork keeps fuzzing past a crash, so one run counts them all; -rss_limit_mb catches
  # unbounded growth (the YAML alias bombs reached 3 GB).
  "build-fuzz/bin/$target" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$crashes/" "$corpus" >"$log" 2>&1 || true
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  found=$(find "$crashes" -type f | wc -l)
  printf '%-28s %14s %10s %8s\n' "$target" "${execs:-?}" "$(( ${execs:-0} / seconds ))" "$found"
  [ "$found" -eq 0 ] && [ -n "$execs" ] || status=1
done
exit "$status"
