"""Task 0a across a link of known rate, without Kubernetes: two ranks, each in a node namespace of
`ergobench cluster`'s network (kube/cluster/network.py: the switch, each node's veth shaped with
tbf both ways), started by hand. It prints the busbw gloo measured against what TCP carries
over the link: the rate times 1448/1514, a full frame's payload (MSS 1448 with TCP timestamps)
over the bytes tbf counts (1500 of IP and 14 of Ethernet header). With k = 2 a ring all-reduce
moves each rank's whole message once, so busbw is the link's goodput.

  python3 bench/link_rate.py [RATE...]      default: 500Mbit 1Gbit 2Gbit, then the link unshaped

Needs root and a built ergobench-runner (build/bin). Refuses to run beside a cluster (it would
take its network); leaves nothing behind.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))
import network  # noqa: E402

RUNNER = os.path.join(os.environ.get("ERGOBENCH_BIN_DIR") or os.path.join(ROOT, "build/bin"), "ergobench-runner")
BENCHMARK = """apiVersion: ergobench.io/v1alpha1
kind: Benchmark
metadata: {name: link-rate}
spec:
  task: 0a
  workers: 2
  hyperparameters: {minElements: 4194304, maxElements: 16777216, sizes: 3, repetitions: 3, warmup: 1}
"""


def busbw_mbit(nodes, work):
    config = os.path.join(work, "0a.yaml")
    with open(config, "w") as f:
        f.write(BENCHMARK)
    ranks = []
    for rank, node in enumerate(nodes):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR=nodes[0].address, MASTER_PORT="29611")
        argv = node.in_netns([RUNNER, "--config", config, "--bind-address", node.address, "--metrics-port", "-1",
                              "--threads", "1", "--energy-interval", "0",
                              "--result-file", os.path.join(work, f"rank{rank}.json")])
        with open(os.path.join(work, f"rank{rank}.log"), "w") as log:
            ranks.append(subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT))
    if any(rank.wait() != 0 for rank in ranks):
        raise RuntimeError(f"a rank failed; see {work}/rank*.log")
    with open(os.path.join(work, "rank0.json")) as f:
        return json.loads(f.readline())["allreduce"]["peakBusBandwidthBytesPerSecond"] * 8 / 1e6


def main():
    rates = [network.parse_rate(text, "RATE") for text in sys.argv[1:]] or [500e6, 1e9, 2e9, None]
    if network.switch_ports() or os.path.exists(f"/sys/class/net/{network.SWITCH}"):
        sys.exit("bench/link_rate.py: a cluster's network is up; `ergobench cluster down` first")
    nodes = [network.NodeAddress(index) for index in (1, 2)]
    try:
        network.add_switch()
        for node in nodes:
            network.add_node(node, nodes)
        print(f"{'link':<12} {'busbw (Mbit/s)':<18} {'TCP goodput':<18} measured/expected")
        with tempfile.TemporaryDirectory() as work:
            for rate in rates:
                for node in nodes:
                    network.shape_link(node, rate)
                busbw = busbw_mbit(nodes, work)
                if rate is None:
                    print(f"{'unshaped':<12} {busbw:<18.1f} {'-':<18} -")
                else:
                    expected = rate / 1e6 * 1448 / 1514
                    print(f"{network.format_rate(rate):<12} {busbw:<18.1f} {expected:<18.1f} {busbw / expected:.3f}",
                          flush=True)
    finally:
        network.remove_all()


if __name__ == "__main__":
    main()
