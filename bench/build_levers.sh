#!/usr/bin/env bash
# What each lever of cmake/ErgobenchCompiler.cmake is worth: the whole build from scratch at
# -j2, once with every lever and once with each lever undone, side by side; and a clean clone
# against a warm ccache (a second clone on this machine, as CI's is). Prints one line per
# variant: wall and CPU seconds, and the difference to "all levers".
#
#   bench/build_levers.sh [VARIANT...]      # default: all of them, about an hour on 2 cores
#
# Variants: levers, no-unity, no-pch, tests-O2, full-debug, bfd, warm-ccache. Build folders go under
# $TMPDIR and are removed after; ccache is off except in warm-ccache, which fills a cache of
# its own first (that fill is the cold build through ccache, also printed).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(levers no-unity no-pch tests-O2 full-debug bfd warm-ccache)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# build NAME CLONE ARGS...: configure CLONE/build (inside the clone, as scripts/configure.sh
# does) and build everything; prints "wall cpu" in seconds.
build() {
  local name=$1 clone=$2 start end
  shift 2
  rm -rf "${clone:?}/build"  # nothing cached from the variant before, even one that failed
  cmake -S "$clone" -B "$clone/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DERGOBENCH_WERROR=ON "$@" \
    >"$work/$name.configure.log" 2>&1 || { tail -20 "$work/$name.configure.log" >&2; return 1; }
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$work/$name.cpu" cmake --build "$clone/build" -j2 >"$work/$name.log" 2>&1 \
    || { tail -20 "$work/$name.log" >&2; return 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" '{printf "%.0f %.0f\n", e - s, $1 + $2}' "$work/$name.cpu"
  rm -rf "${clone:?}/build"
}

declare -A wall cpu
run() {
  local name=$1 figures
  shift
  if ! figures=$(build "$name" "$@"); then
    echo "$name: the build failed (above)"
    return
  fi
  read -r wall[$name] cpu[$name] <<<"$figures"
  printf '%-14s %6s s wall %6s s CPU' "$name" "${wall[$name]}" "${cpu[$name]}"
  [ -n "${wall[levers]:-}" ] && [ "$name" != levers ] && printf '   %+6d s wall against all levers' $((wall[$name] - wall[levers]))
  echo
}

echo "the whole build (cmake --build -j2) from scratch, $(nproc) CPUs, $(date -u +%F), $(git -C "$repo" rev-parse --short HEAD)"
# Clones of HEAD (commit first what you measure), each built in its own build/.
git clone --quiet "$repo" "$work/clone"
git clone --quiet "$repo" "$work/second"
off=(-DERGOBENCH_CCACHE=OFF)
for variant in "${variants[@]}"; do
  case $variant in
    levers) run levers "$work/clone" "${off[@]}" ;;
    no-unity) run no-unity "$work/clone" "${off[@]}" -DERGOBENCH_UNITY=OFF ;;
    no-pch) run no-pch "$work/clone" "${off[@]}" -DERGOBENCH_PCH=OFF ;;
    tests-O2) run tests-O2 "$work/clone" "${off[@]}" -DERGOBENCH_TESTS_O0=OFF ;;
    full-debug) run full-debug "$work/clone" "${off[@]}" -DERGOBENCH_DEBUG_INFO=full ;;
    bfd) run bfd "$work/clone" "${off[@]}" -DERGOBENCH_LINKER=bfd ;;
    warm-ccache)
      # One cache, two clones: the first fills it, the second is CI's case (a clean clone on a
      # machine that built before).
      cache=$work/ccache
      run ccache-fill "$work/clone" -DERGOBENCH_CCACHE_DIR="$cache"
      run warm-ccache "$work/second" -DERGOBENCH_CCACHE_DIR="$cache"
      rm -rf "$cache" ;;
    *) echo "build_levers.sh: unknown variant $variant" >&2; exit 2 ;;
  esac
done
