"""Task 0a and fmnist across the nodes of `ergobench cluster`, one rank per node, at several link
rates: 0a's peak bus bandwidth over TCP's goodput on the link (the rate x 1448/1514), for gloo
and mpi, and fmnist's communication ratio at each rate. A ring all-reduce's bus bandwidth is
what each rank's link carries each way, so at large messages it should be the link's goodput.

Then fmnist at slow links (--ring-rates), where its all-reduce is the link's to pace: its
communication time per step against the ring model, 2(k-1)/k x its gradient bytes at the
link's goodput. Steps per rank are counted as samples / (k x 64), its batch: a partial last
batch each epoch makes that 0.2% short at k=3.

  python3 bench/cluster_links.py [--nodes 3] [--rates 500Mbit,1Gbit,2Gbit] [--no-fmnist]
                                 [--ring-rates 10Mbit,20Mbit,50Mbit]

Needs root, the build (build/bin), images/build.sh's images and the tools the test command
installs. Starts its own cluster (ending any other that runs) and takes it down at the end.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))
from control_plane import HELM, KUBECTL  # noqa: E402
from network import format_rate, parse_rate  # noqa: E402

ERGOBENCH = os.path.join(ROOT, "build/bin/ergobench")
GOODPUT = 1448 / 1514
ALLREDUCE = {"minElements": 4194304, "maxElements": 16777216, "sizes": 3, "repetitions": 3, "warmup": 1}


def run(*argv, input=None):
    return subprocess.run(argv, input=input, check=True, stdout=subprocess.PIPE, text=True).stdout


def benchmark(name, task, backend, nodes, cpu, **spec):
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": task, "workers": nodes, "backend": backend, "resources": {"cpu": cpu},
                     "scheduling": {"ranksPerNode": 1}, **spec}}


class Bench:
    def __init__(self, kubeconfig):
        self.kubectl = [KUBECTL, f"--kubeconfig={kubeconfig}"]

    def results(self, manifest, timeout=900):
        name = manifest["metadata"]["name"]
        run(*self.kubectl, "delete", "benchmark", name, "--ignore-not-found", "--wait=true")
        run(*self.kubectl, "apply", "-f", "-", input=json.dumps(manifest))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = json.loads(run(*self.kubectl, "get", "benchmark", name, "-o", "json")).get("status", {})
            if status.get("phase") == "Succeeded":
                return status["results"]
            if status.get("phase") == "Failed":
                raise RuntimeError(f"{name} failed: {json.dumps(status.get('conditions'))}")
            time.sleep(1)
        raise RuntimeError(f"{name} did not end in {timeout} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--rates", default="500Mbit,1Gbit,2Gbit")
    parser.add_argument("--no-fmnist", action="store_true")
    parser.add_argument("--ring-rates", default="10Mbit,20Mbit,50Mbit", help="'' for none")
    args = parser.parse_args()
    rates = [parse_rate(rate, "--rates") for rate in args.rates.split(",") if rate]
    ring_rates = [parse_rate(rate, "--ring-rates") for rate in args.ring_rates.split(",") if rate]
    version = run(ERGOBENCH, "version").split()[1]
    subprocess.run([os.path.join(ROOT, "images/build.sh")], check=True, stdout=subprocess.DEVNULL)
    workdir = tempfile.mkdtemp(prefix="ergobench-cluster-links-")
    up = run(ERGOBENCH, "cluster", "up", "--nodes", str(args.nodes), "--workdir", workdir,
             "--image", f"ergobench-operator:{version}", "--image", f"ergobench-runner:{version}")
    kubeconfig = re.search(r"export KUBECONFIG=(\S+)", up).group(1)
    try:
        run(HELM, f"--kubeconfig={kubeconfig}", "install", "ergobench", os.path.join(ROOT, "charts/ergobench"),
            "-n", "ergobench-system", "--create-namespace", "--wait", "--set", "progressInterval=1")
        bench = Bench(kubeconfig)
        if rates:
            link_rates(bench, args, rates)
        if ring_rates:
            ring_model(bench, args.nodes, ring_rates)
    finally:
        run(ERGOBENCH, "cluster", "down")


def set_links(nodes, rate):
    for node in range(1, nodes + 1):
        run(ERGOBENCH, "cluster", "link", str(node), "--rate", format_rate(rate))


def link_rates(bench, args, rates):
    print(f"{args.nodes} nodes, one rank each; 0a at 16-64 MiB; busbw over TCP's goodput on the link")
    print(f"{'link':<9} {'gloo Mbit/s':>12} {'/goodput':>9} {'mpi Mbit/s':>11} {'/goodput':>9} "
          f"{'fmnist comm ratio':>18} {'fmnist TTA s':>13}")
    for rate in rates:
        set_links(args.nodes, rate)
        row = [format_rate(rate)]
        for backend in ("gloo", "mpi"):
            # A whole CPU a rank: an MPI rank polls while it waits, and a quota below one
            # CPU throttles it mid-transfer (docs/kubernetes/mpi.md).
            results = bench.results(benchmark(f"links-{backend}", "0a", backend, args.nodes, "1",
                                              hyperparameters=ALLREDUCE))
            busbw = results["allreduce"]["peakBusBandwidthBytesPerSecond"] * 8
            row += [f"{busbw / 1e6:.1f}", f"{busbw / (rate * GOODPUT):.3f}"]
        if args.no_fmnist:
            row += ["-", "-"]
        else:
            # What the machine's 2 cores hold for 3 training ranks side by side.
            results = bench.results(benchmark("links-fmnist", "fmnist", "gloo", args.nodes, "600m"))
            row += [f"{results['communicationRatio']:.3f}", f"{results.get('timeToAccuracySeconds', 0):.1f}"]
        print(f"{row[0]:<9} {row[1]:>12} {row[2]:>9} {row[3]:>11} {row[4]:>9} {row[5]:>18} {row[6]:>13}",
              flush=True)


def ring_model(bench, nodes, rates):
    print(f"fmnist, {nodes} nodes, one rank each, gloo: communication per step against the ring model")
    print(f"{'link':<9} {'comm ms/step':>13} {'model ms':>9} {'/model':>7} {'comm ratio':>11} {'TTA s':>7}")
    for rate in rates:
        set_links(nodes, rate)
        results = bench.results(benchmark("ring-fmnist", "fmnist", "gloo", nodes, "600m"))
        steps = results["samples"] / (nodes * 64)
        measured = results["communicationSeconds"] / steps
        model = 2 * (nodes - 1) / nodes * results["memory"]["parameterBytes"] * 8 / (rate * GOODPUT)
        print(f"{format_rate(rate):<9} {measured * 1e3:>13.1f} {model * 1e3:>9.1f} {measured / model:>7.3f} "
              f"{results['communicationRatio']:>11.3f} {results.get('timeToAccuracySeconds', 0):>7.1f}", flush=True)


if __name__ == "__main__":
    main()
