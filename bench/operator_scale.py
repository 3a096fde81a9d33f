"""Operator scale benchmark: N Benchmarks x k workers on the real control plane.

Prints:
  - apply → all k pods of a Benchmark created: p50, p99 and max over N Benchmarks;
  - Kubernetes API requests per Benchmark lifecycle (create → Running → Succeeded), by verb;
  - the operator's resident memory, peak and at the end.

This script plays the kubelet itself (it writes pod status directly, with a valid result as
each rank's termination message), so that hundreds of pods cost no processes: what is
measured is the operator alone. Run it with bench/operator_scale.sh.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests/kube"))
from control_plane import ControlPlane, free_port  # noqa: E402

from kubernetes import client, config, watch  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def result_message(name, rank, workers):
    return json.dumps({"benchmark": name, "task": "0a", "backend": "gloo", "rank": rank, "worldSize": workers,
                       "status": "Succeeded", "initSeconds": 0.1, "runSeconds": 1.0,
                       "environment": {"host": "bench"}}) + "\nrank succeeded\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--benchmarks", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--operator-workers", type=int, default=4)
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, "build/bin"))
    args = parser.parse_args()
    n, k = args.benchmarks, args.workers

    tmp = tempfile.mkdtemp(prefix="ergobench-operator-scale-")
    cp = ControlPlane(os.path.join(tmp, "cp")).start()
    try:
        for manifest in ("crd/benchmarks.ergobench.io.yaml", "rbac/namespace.yaml", "rbac/service_account.yaml",
                         "rbac/role.yaml"):
            cp.kubectl("apply", "-f", os.path.join(ROOT, "manifests", manifest))
        cp.wait_for(lambda: cp.kubectl("get", "benchmarks", check=False).returncode == 0, 30, "the CRD")
        sa = cp.service_account_kubeconfig("ergobench-system", "ergobench-operator", os.path.join(tmp, "sa.kubeconfig"))
        config.load_kube_config(config_file=cp.admin_kubeconfig)
        core = client.CoreV1Api()
        custom = client.CustomObjectsApi()
        core.create_namespace({"metadata": {"name": "scale"}})

        port = free_port()
        with open(os.path.join(tmp, "operator.log"), "w") as log:
            operator = subprocess.Popen([os.path.join(args.bin_dir, "ergobench-operator"), "--kubeconfig", sa,
                                         "--metrics-bind-address", f"127.0.0.1:{port}",
                                         "--workers", str(args.operator_workers)],
                                        stdout=log, stderr=subprocess.STDOUT)
        cp.wait_for(lambda: subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/readyz"],
                                           capture_output=True).returncode == 0, 30, "operator ready")
        idle_rss = rss_kib(operator.pid)

        # Pods seen per Benchmark, from our own watch.
        seen, done_at, lock = {}, {}, threading.Lock()
        applied_at = {}

        def watch_pods():
            try:
                for event in watch.Watch().stream(core.list_namespaced_pod, "scale", timeout_seconds=600):
                    if event["type"] != "ADDED":
                        continue
                    name = event["object"].metadata.labels.get("ergobench.io/benchmark")
                    with lock:
                        seen.setdefault(name, set()).add(event["object"].metadata.name)
                        if len(seen[name]) == k and name not in done_at:
                            done_at[name] = time.monotonic()
            except Exception:
                pass  # the control plane stopping at the end
        threading.Thread(target=watch_pods, daemon=True).start()
        time.sleep(1)

        peak = [idle_rss]

        def sample_rss():
            while operator.poll() is None:
                peak[0] = max(peak[0], rss_kib(operator.pid))
                time.sleep(0.2)
        threading.Thread(target=sample_rss, daemon=True).start()

        start = time.monotonic()
        for i in range(n):
            name = f"b{i:03d}"
            body = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
                    "spec": {"task": "0a", "workers": k, "backend": "gloo"}}
            applied_at[name] = time.monotonic()
            custom.create_namespaced_custom_object("ergobench.io", "v1alpha1", "scale", "benchmarks", body)
        apply_seconds = time.monotonic() - start
        cp.wait_for(lambda: len(done_at) == n, 300, "every Benchmark's pods")
        latencies = [done_at[name] - applied_at[name] for name in applied_at]

        # Play the kubelet: every pod Running, then Succeeded with its rank's result.
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        pods = core.list_namespaced_pod("scale").items
        for pod in pods:
            core.patch_namespaced_pod_status(pod.metadata.name, "scale", {"status": {
                "phase": "Running", "podIP": "10.0.0.1",
                "conditions": [{"type": "Ready", "status": "True"}]}})
        cp.wait_for(lambda: sum(1 for b in custom.list_namespaced_custom_object(
            "ergobench.io", "v1alpha1", "scale", "benchmarks")["items"]
            if b.get("status", {}).get("phase") == "Running") == n, 300, "every Benchmark Running")
        for pod in pods:
            labels = pod.metadata.labels
            rank = int(labels["ergobench.io/rank"])
            core.patch_namespaced_pod_status(pod.metadata.name, "scale", {"status": {
                "phase": "Succeeded", "containerStatuses": [{
                    "name": "runner", "image": "x", "imageID": "", "ready": False, "restartCount": 0,
                    "state": {"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": now,
                                             "message": result_message(labels["ergobench.io/benchmark"], rank, k)}}}]}})
        cp.wait_for(lambda: sum(1 for b in custom.list_namespaced_custom_object(
            "ergobench.io", "v1alpha1", "scale", "benchmarks")["items"]
            if b.get("status", {}).get("phase") == "Succeeded") == n, 300, "every Benchmark Succeeded")
        time.sleep(3)  # the operator's gauges refresh every 2 s
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as r:
            metrics = r.read().decode()
        requests = {}
        for line in metrics.splitlines():
            if line.startswith("ergobench_operator_api_requests_total{"):
                verb = line.split('verb="')[1].split('"')[0]
                requests[verb] = float(line.split()[-1])
        end_rss = rss_kib(operator.pid)
        operator.terminate()
        operator.wait(timeout=30)

        print(f"operator scale: {n} Benchmarks x {k} workers, {args.operator_workers} reconcile workers, 2-core machine")
        print(f"  {n} creates took {apply_seconds:.2f} s")
        print(f"  apply -> all {k} pods created: p50 {percentile(latencies, 0.5) * 1000:.0f} ms, "
              f"p99 {percentile(latencies, 0.99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
        lifecycle = {verb: count / n for verb, count in sorted(requests.items()) if verb not in ("list", "watch")}
        print(f"  API requests per Benchmark lifecycle: {sum(lifecycle.values()):.1f} "
              f"({', '.join(f'{v} {c:.1f}' for v, c in lifecycle.items())}); "
              f"plus {requests.get('list', 0):.0f} lists and {requests.get('watch', 0):.0f} watches in all")
        print(f"  operator RSS: {idle_rss / 1024:.1f} MiB idle, {peak[0] / 1024:.1f} MiB peak, "
              f"{end_rss / 1024:.1f} MiB with {n} finished Benchmarks cached")
    finally:
        cp.stop()


if __name__ == "__main__":
    main()
