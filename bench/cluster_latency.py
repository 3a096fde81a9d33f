"""The test cluster (kube/cluster/cluster.py): its bring-up, and `kubectl apply` → pods Running.

Prints:
  - bring-up, cold (an empty containerd image store: the pause, operator and runner images are
    imported) and warm (the store as the test runs leave it): control plane and node Ready,
    images, the operator installed by Helm and Ready;
  - `kubectl apply` of a k=4 Benchmark (task 0a, 400m CPU a worker, so four fit on 2 cores)
    → all four pods Running: p50, p99 and max over --runs;
  - the operator's API requests per Benchmark lifecycle, by verb (its own counter).

Needs root, the build, images/build.sh's images, and the tools the test command installs.
Run: python3 bench/cluster_latency.py [--runs 20]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))
import cluster as cluster_module  # noqa: E402
import node as node_module  # noqa: E402
from control_plane import HELM  # noqa: E402

VERSION = subprocess.run([os.path.join(ROOT, "build/bin/ergobench"), "version"], stdout=subprocess.PIPE,
                         text=True, check=True).stdout.split()[1]


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def bring_up(workdir):
    """A started cluster with the operator installed, and the seconds each step took."""
    steps = {}
    t = time.monotonic()
    cluster = cluster_module.Cluster(workdir)
    cluster.start()
    steps["control plane and node Ready"] = time.monotonic() - t
    t = time.monotonic()
    for image in ("operator", "runner"):
        cluster.import_podman_image(f"ergobench-{image}:{VERSION}")
    steps["images imported"] = time.monotonic() - t
    t = time.monotonic()
    subprocess.run([HELM, f"--kubeconfig={cluster.admin_kubeconfig}", "install", "ergobench",
                    os.path.join(ROOT, "charts/ergobench"), "-n", "ergobench-system", "--create-namespace",
                    "--wait", "--set", "progressInterval=1"], check=True, stdout=subprocess.DEVNULL)
    steps["operator installed and Ready"] = time.monotonic() - t
    return cluster, steps


def operator_requests(cluster):
    pod = cluster.get_json("-n", "ergobench-system", "pods", "-l", "app.kubernetes.io/name=ergobench-operator")
    ip = pod["items"][0]["status"]["podIP"]
    with urllib.request.urlopen(f"http://{ip}:8080/metrics", timeout=5) as r:
        text = r.read().decode()
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r'^ergobench_operator_api_requests_total\{verb="(\w+)"\} (\S+)$', text, re.M)}


def apply_to_running(cluster, runs):
    latencies = []
    before = operator_requests(cluster)
    for i in range(runs):
        name = f"lat-{i}"
        benchmark = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
                     "spec": {"task": "0a", "workers": 4, "backend": "gloo", "resources": {"cpu": "400m"},
                              "scheduling": {"ranksPerNode": 4},  # one node
                              "hyperparameters": {"maxElements": 1024, "repetitions": 2, "warmup": 1}}}
        start = time.monotonic()
        cluster.kubectl("apply", "-f", "-", input=json.dumps(benchmark))
        while True:
            pods = cluster.get_json("pods", "-l", f"ergobench.io/benchmark={name}")["items"]
            phases = [p["status"].get("phase") for p in pods]
            if len(pods) == 4 and all(phase in ("Running", "Succeeded") for phase in phases):
                break
            time.sleep(0.05)
        latencies.append(time.monotonic() - start)
        cluster.wait_for(lambda: cluster.get_json("benchmark", name).get("status", {}).get("phase")
                         in ("Succeeded", "Failed"), 120, f"{name} to finish")
        cluster.kubectl("delete", "benchmark", name, "--wait=true")
    after = operator_requests(cluster)
    per_lifecycle = {verb: (after.get(verb, 0) - before.get(verb, 0)) / runs for verb in after}
    return latencies, per_lifecycle


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    subprocess.run([os.path.join(ROOT, "images/build.sh")], check=True, stdout=subprocess.DEVNULL)
    tmp = tempfile.mkdtemp(prefix="ergobench-cluster-latency-")
    # Cold: an image store of its own, empty.
    cached_store = node_module.cache_dir
    node_module.cache_dir = lambda: os.path.join(tmp, "empty-store")
    cluster, cold = bring_up(os.path.join(tmp, "cold"))
    cluster.stop()
    node_module.cache_dir = cached_store
    shutil.rmtree(os.path.join(tmp, "empty-store"), ignore_errors=True)
    cluster, warm = bring_up(os.path.join(tmp, "warm"))
    try:
        for step in cold:
            print(f"bring-up {step}: cold {cold[step]:.1f} s, warm {warm[step]:.1f} s")
        print(f"bring-up total: cold {sum(cold.values()):.1f} s, warm {sum(warm.values()):.1f} s")
        latencies, per_lifecycle = apply_to_running(cluster, args.runs)
        print(f"apply -> 4 pods Running over {len(latencies)} runs: p50 {percentile(latencies, 0.5) * 1000:.0f} ms, "
              f"p99 {percentile(latencies, 0.99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
        print("operator API requests per lifecycle: " +
              ", ".join(f"{verb} {count:.1f}" for verb, count in sorted(per_lifecycle.items())))
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
