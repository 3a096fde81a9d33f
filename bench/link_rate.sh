#!/bin/bash
# Task 0a across a link of known rate: two ranks, each in a network namespace of its own (as a
# node of `ergobench cluster up` will be), joined by veth links to one bridge (the switch), each
# link shaped with tc's token bucket (tbf) in both directions. It prints the busbw gloo measured
# against what TCP can carry over the link: the rate times 1448/1514, a full frame's payload
# (MSS 1448 with TCP timestamps) over the bytes tbf counts (1500 of IP and 14 of Ethernet header).
# With k = 2 a ring all-reduce moves each rank's whole message once, so busbw is the link's
# goodput.
#
#   bench/link_rate.sh [RATE_MBIT...]      default: 500 1000 2000, then the link unshaped
#
# Needs root (network namespaces, tc) and a built ergobench-runner (build/bin). Leaves nothing
# behind: the namespaces and the bridge go on exit. tc's netem is not in every kernel (not in
# this VM's), so the link has a rate and no added delay.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNNER=${ERGOBENCH_BIN_DIR:-$ROOT/build/bin}/ergobench-runner
if [ $# -gt 0 ]; then RATES=("$@"); else RATES=(500 1000 2000 0); fi
SWITCH=eblinksw0

remove_links() {
  for n in 0 1; do ip netns del "eblink$n" 2>/dev/null || true; done
  ip link del "$SWITCH" 2>/dev/null || true
}
remove_links  # what a killed run left
WORK=$(mktemp -d)
trap 'remove_links; rm -rf "$WORK"' EXIT

ip link add "$SWITCH" type bridge
ip link set "$SWITCH" up
for n in 0 1; do
  ip netns add "eblink$n"
  ip link add "eblink$n-port" type veth peer name eth0 netns "eblink$n"
  ip link set "eblink$n-port" master "$SWITCH" up
  ip -n "eblink$n" addr add "10.78.0.$((n + 1))/24" dev eth0
  ip -n "eblink$n" link set eth0 up
  ip -n "eblink$n" link set lo up
done

cat > "$WORK/0a.yaml" <<'EOF'
apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: link-rate}
spec:
  task: 0a
  workers: 2
  hyperparameters: {minElements: 4194304, maxElements: 16777216, sizes: 3, repetitions: 3, warmup: 1}
EOF

# Both directions of node n's link: its own egress, and the switch port's towards it.
shape() {
  local rate=$1
  for n in 0 1; do
    for dev in "eblink$n-port" "eth0"; do
      local ns=()
      [ "$dev" = eth0 ] && ns=(ip netns exec "eblink$n")
      "${ns[@]}" tc qdisc del dev "$dev" root 2>/dev/null || true
      if [ "$rate" != 0 ]; then
        # A bucket of 4 ms at the rate (at least 64 KiB): the timer that refills it is coarse in
        # a VM, and a smaller bucket caps the link below its rate (1 Gbit/s gave 0.72 of it).
        "${ns[@]}" tc qdisc add dev "$dev" root tbf rate "${rate}mbit" \
          burst "$(( rate * 1000000 / 8 / 250 > 65536 ? rate * 1000000 / 8 / 250 : 65536 ))" latency 50ms
      fi
    done
  done
}

# nsenter, not `ip netns exec`: the latter remounts /sys, which the runner's meters read.
rank() {
  nsenter --net="/run/netns/eblink$1" env RANK="$1" WORLD_SIZE=2 MASTER_ADDR=10.78.0.1 MASTER_PORT=29611 \
    "$RUNNER" --config "$WORK/0a.yaml" --bind-address "10.78.0.$(($1 + 1))" --metrics-port -1 --threads 1 \
    --energy-interval 0 --result-file "$WORK/rank$1.json" > "$WORK/rank$1.log" 2>&1
}

printf '%-12s %-18s %-18s %s\n' "link" "busbw (Mbit/s)" "TCP goodput" "measured/expected"
for rate in "${RATES[@]}"; do
  shape "$rate"
  rank 0 & rank0=$!
  rank 1
  wait "$rank0"
  busbw=$(head -1 "$WORK/rank0.json" | python3 -c 'import json, sys
print("%.1f" % (json.load(sys.stdin)["allreduce"]["peakBusBandwidthBytesPerSecond"] * 8 / 1e6))')
  if [ "$rate" = 0 ]; then
    printf '%-12s %-18s %-18s %s\n' "unshaped" "$busbw" "-" "-"
  else
    expected=$(python3 -c "print('%.1f' % ($rate * 1448 / 1514))")
    ratio=$(python3 -c "print('%.3f' % ($busbw / $expected))")
    printf '%-12s %-18s %-18s %s\n' "${rate} Mbit/s" "$busbw" "$expected" "$ratio"
  fi
done
