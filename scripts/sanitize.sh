#!/usr/bin/env bash
# Builds ergobench with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/ and runs
# every unit test under them (the fuzz corpora included). Any report fails the run: ASan
# aborts, UBSan halts on its first finding. Leaks inside libraries we do not build (libtorch's
# and OpenMP's thread pools) are suppressed by name in tests/sanitizers/lsan.supp; ours are not.
#
#   scripts/sanitize.sh            # about 25 minutes on 2 cores from scratch
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
ERGOBENCH_BUILD_DIR=build-asan scripts/configure.sh -DERGOBENCH_SANITIZE=ON -DERGOBENCH_BUILD_BENCH=OFF
cmake --build build-asan -j2
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
cd build-asan
ctest -L unit -j2 --output-on-failure
