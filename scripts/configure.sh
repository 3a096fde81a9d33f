#!/usr/bin/env bash
# Configures build/ the one way both README commands use, so that the second one reuses what
# the first one built (warnings are errors in both: the project builds clean on Debian 12).
# Extra arguments go to cmake, e.g. -DERGOBENCH_SANITIZE=ON into another -B folder.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cmake -S . -B "${ERGOBENCH_BUILD_DIR:-build}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DERGOBENCH_WERROR=ON "$@" >/dev/null
