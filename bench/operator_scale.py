"""Operator scale benchmark: N Benchmarks x k workers on the real cluster (kube/cluster/cluster.py),
the operator installed by its Helm chart and running there as its Deployment.

Prints:
  - apply → all k pods of a Benchmark created: p50, p99 and max over N Benchmarks, for the
    operator, and for the floor: a plain client that creates the same objects (the Service,
    the ConfigMap and the k pods the operator created, copied into another namespace) with the
    same concurrency and order (as many workers as the operator has, the Service and ConfigMap
    at once, the peers in the same slow-start batches, rank 0 once the peers are placed), each
    Benchmark's once an apply like its own (a create of the same size by the same client) has
    returned;
  - Kubernetes API requests per Benchmark lifecycle (create → Running → Succeeded), by verb;
  - the operator's CPU seconds and resident memory: idle, peak, and with N finished
    Benchmarks cached.

The pods name a scheduler that does not exist, so no node runs them: the script plays the
scheduler (each new pod gets the PodScheduled condition a binding gives, without a node) and
the kubelet (it writes pod status itself, with a valid result as each rank's termination
message), so that hundreds of pods cost no processes and what is measured is the operator
and the API server. Needs root and what the test command installs; run with
bench/operator_scale.sh.
"""

import argparse
import concurrent.futures
import http.client
import json
import os
import queue
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))
sys.path.insert(0, os.path.join(ROOT, "tests/integration"))
from cluster import Cluster  # noqa: E402
from control_plane import HELM  # noqa: E402
from harness import build_images, ergobench_version  # noqa: E402

from kubernetes import client, config, watch  # noqa: E402

NAMESPACE, FLOOR_NAMESPACE = "scale", "floor"
BENCHMARK_LABEL, FLOOR_LABEL = "ergobench.io/benchmark", "floor.ergobench.io/benchmark"
UNSCHEDULED = "ergobench-bench-no-scheduler"


def benchmark(name, workers):
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": "0a", "workers": workers, "backend": "gloo", "scheduling": {"schedulerName": UNSCHEDULED}}}


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def result_message(name, rank, workers):
    return json.dumps({"benchmark": name, "task": "0a", "backend": "gloo", "rank": rank, "worldSize": workers,
                       "status": "Succeeded", "initSeconds": 0.1, "runSeconds": 1.0,
                       "environment": {"host": "bench"}}) + "\nrank succeeded\n"


class OperatorProcess:
    """The operator container's main process, as the node sees it: RSS and CPU time."""

    def __init__(self, cluster):
        pod = cluster.get_json("-n", "ergobench-system", "pods", "-l", "app.kubernetes.io/name=ergobench-operator")
        pod = pod["items"][0]
        self.ip = pod["status"]["podIP"]
        container = pod["status"]["containerStatuses"][0]["containerID"].split("//")[1]
        tasks = [line.split() for line in cluster.nodes[0].ctr("tasks", "list").stdout.splitlines()[1:]]
        self.pid = next(int(pid) for task, pid, _ in tasks if task == container)
        self.peak = self.rss_mib()
        self.stop = threading.Event()
        threading.Thread(target=self.sample, daemon=True).start()

    def rss_mib(self):
        with open(f"/proc/{self.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024

    def cpu_seconds(self):
        """User and system CPU seconds."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return [int(fields[i]) / os.sysconf("SC_CLK_TCK") for i in (11, 12)]

    def sample(self):
        try:
            while not self.stop.wait(0.2):
                self.peak = max(self.peak, self.rss_mib())
        except OSError:
            pass  # the cluster stopping

    def requests(self):
        with urllib.request.urlopen(f"http://{self.ip}:8080/metrics", timeout=10) as r:
            text = r.read().decode()
        counts = {line.split('verb="')[1].split('"')[0]: float(line.split()[-1]) for line in text.splitlines()
                  if line.startswith("ergobench_operator_api_requests_total{")}
        counts["reconciles"] = sum(float(line.split()[-1]) for line in text.splitlines()
                                   if line.startswith("ergobench_operator_reconcile_total{"))
        counts["reconcile seconds"] = sum(float(line.split()[-1]) for line in text.splitlines()
                                          if line.startswith("ergobench_operator_reconcile_duration_seconds_sum"))
        return counts


def watch_new_pods(core, *handlers):
    """Calls each handler(namespace, name, owner) for every new pod of a Benchmark or of the
    floor, from one watch of every namespace on a thread of its own."""

    def watch_all():
        try:
            for event in watch.Watch().stream(core.list_pod_for_all_namespaces, timeout_seconds=1800):
                pod = event["object"].metadata
                owner = (pod.labels or {}).get(BENCHMARK_LABEL) or (pod.labels or {}).get(FLOOR_LABEL)
                if event["type"] == "ADDED" and owner:
                    for handler in handlers:
                        handler(pod.namespace, pod.name, owner)
        except Exception:
            pass  # the cluster stopping at the end

    threading.Thread(target=watch_all, daemon=True).start()
    time.sleep(1)


class PodsCreated:
    """When the first and the k-th pod of each Benchmark appeared."""

    def __init__(self, k):
        self.k, self.first_at, self.done_at, self.seen, self.lock = k, {}, {}, {}, threading.Lock()

    def added(self, namespace, name, owner):
        key = (namespace, owner)
        with self.lock:
            self.seen.setdefault(key, set()).add(name)
            self.first_at.setdefault(key, time.monotonic())
            if len(self.seen[key]) == self.k and key not in self.done_at:
                self.done_at[key] = time.monotonic()

    def count(self, namespace):
        with self.lock:
            return sum(1 for ns, _ in self.done_at if ns == namespace)


class Scheduler:
    """Stands in for kube-scheduler: each new pod, the operator's and the floor's, gets the
    PodScheduled condition a binding gives it (no node, so none runs them)."""

    def __init__(self, core):
        self.core, self.placed, self.changed = core, {}, threading.Condition()
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=8)

    def added(self, namespace, name, owner):
        self.pool.submit(self.bind, namespace, name, owner).add_done_callback(self.report)

    @staticmethod
    def report(future):
        if future.exception():
            print(f"operator_scale: the stand-in scheduler failed: {future.exception()}", file=sys.stderr)

    def bind(self, namespace, name, owner):
        self.core.patch_namespaced_pod_status(name, namespace, {"status": {"conditions": [
            {"type": "PodScheduled", "status": "True"}]}})
        with self.changed:
            self.placed[(namespace, owner)] = self.placed.get((namespace, owner), 0) + 1
            self.changed.notify_all()

    def wait_placed(self, namespace, owner, count, timeout=600):
        with self.changed:
            if not self.changed.wait_for(lambda: self.placed.get((namespace, owner), 0) >= count, timeout):
                raise RuntimeError(f"{namespace}/{owner}: {count} pods not placed after {timeout} s")


class PlainClient:
    """Creates objects over keep-alive HTTPS connections, one per request in flight."""

    def __init__(self, cluster):
        self.host, self.port = "127.0.0.1", cluster.api_port
        self.context = ssl.create_default_context(cafile=cluster.pki.path("ca.crt"))
        self.context.load_cert_chain(cluster.pki.path("admin.crt"), cluster.pki.path("admin.key"))
        self.connections = queue.SimpleQueue()

    def create(self, path, body):
        try:
            connection = self.connections.get_nowait()
        except queue.Empty:
            connection = http.client.HTTPSConnection(self.host, self.port, context=self.context)
        connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status != 201:
            raise RuntimeError(f"POST {path}: {response.status}")
        self.connections.put(connection)


def floor_objects(core, names):
    """The Service, ConfigMap and pods the operator made for each Benchmark, as a plain client
    would send them: in the floor's namespace, without owner or server fields, under a label the
    operator does not watch."""

    def plain(obj, kind):
        obj = client.ApiClient().sanitize_for_serialization(obj)
        metadata = obj["metadata"]
        labels = {k: v for k, v in (metadata.get("labels") or {}).items() if not k.startswith("ergobench.io/")}
        labels[FLOOR_LABEL] = metadata["labels"][BENCHMARK_LABEL] if kind == "pods" else ""
        obj["metadata"] = {"name": metadata["name"], "namespace": FLOOR_NAMESPACE, "labels": labels,
                           "annotations": metadata.get("annotations") or {}}
        obj.pop("status", None)
        if kind == "services" and obj["spec"].get("clusterIP") != "None":
            obj["spec"] = {k: v for k, v in obj["spec"].items() if k not in ("clusterIP", "clusterIPs")}
        return obj

    services = {s.metadata.labels[BENCHMARK_LABEL]: plain(s, "services")
                for s in core.list_namespaced_service(NAMESPACE).items}
    configs = {c.metadata.labels[BENCHMARK_LABEL]: plain(c, "configmaps")
               for c in core.list_namespaced_config_map(NAMESPACE).items if c.metadata.labels}
    pods = {}
    for p in core.list_namespaced_pod(NAMESPACE).items:
        pods.setdefault(p.metadata.labels[BENCHMARK_LABEL], []).append(plain(p, "pods"))
    return {name: (services[name], configs[name], sorted(pods[name], key=lambda p: p["metadata"]["name"]))
            for name in names}


def run_floor(cluster, objects, apply, workers, scheduler):
    """Each Benchmark's objects, created by `workers` workers once `apply(name)` (the same kind
    of request as the Benchmark's own create, by the same client) has returned: the Service and
    ConfigMap at once, then the peers in batches of 1, 2, 4, ... at once, then rank 0 once the
    scheduler has placed the peers, as the operator does. Returns when each apply began."""
    plain = PlainClient(cluster)
    base = f"/api/v1/namespaces/{FLOOR_NAMESPACE}"
    released, todo = {}, queue.Queue()
    batch_pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers * 8)

    def at_once(calls):
        for future in [batch_pool.submit(call) for call in calls]:
            future.result()

    def worker():
        while (name := todo.get()) is not None:
            service, config_map, pods = objects[name]  # pods[0] is rank 0
            at_once([lambda: plain.create(f"{base}/services", service),
                     lambda: plain.create(f"{base}/configmaps", config_map)])
            begin, size = 1, 1
            while begin < len(pods):
                at_once([lambda p=p: plain.create(f"{base}/pods", p) for p in pods[begin:begin + size]])
                begin, size = begin + size, size * 2
            scheduler.wait_placed(FLOOR_NAMESPACE, name, len(pods) - 1)
            plain.create(f"{base}/pods", pods[0])

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for name in objects:
        released[name] = time.monotonic()
        apply(name)
        todo.put(name)
    for _ in threads:
        todo.put(None)
    for thread in threads:
        thread.join()
    batch_pool.shutdown()
    return released


def play_kubelet(cluster, core, custom, k):
    """Every pod Running, then Succeeded with its rank's result."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    pods = core.list_namespaced_pod(NAMESPACE).items

    def phase_count(phase):
        items = custom.list_namespaced_custom_object("ergobench.io", "v1alpha1", NAMESPACE, "benchmarks")["items"]
        return sum(1 for b in items if b.get("status", {}).get("phase") == phase)

    for pod in pods:
        core.patch_namespaced_pod_status(pod.metadata.name, NAMESPACE, {"status": {
            "phase": "Running", "podIP": "127.0.0.1", "conditions": [{"type": "Ready", "status": "True"}]}})
    cluster.wait_for(lambda: phase_count("Running") == len(pods) // k, 600, "every Benchmark Running")
    for pod in pods:
        labels = pod.metadata.labels
        core.patch_namespaced_pod_status(pod.metadata.name, NAMESPACE, {"status": {
            "phase": "Succeeded", "containerStatuses": [{
                "name": "runner", "image": "x", "imageID": "", "ready": False, "restartCount": 0,
                "state": {"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": now,
                                         "message": result_message(labels[BENCHMARK_LABEL],
                                                                   int(labels["ergobench.io/rank"]), k)}}}]}})
    cluster.wait_for(lambda: phase_count("Succeeded") == len(pods) // k, 600, "every Benchmark Succeeded")


def latencies_ms(created, namespace, started, until="done_at"):
    return [(getattr(created, until)[(namespace, name)] - at) * 1000 for name, at in started.items()]


def summary(values):
    return (f"p50 {percentile(values, 0.5):.0f} ms, p99 {percentile(values, 0.99):.0f} ms, "
            f"max {max(values):.0f} ms, mean {statistics.mean(values):.0f} ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--benchmarks", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--operator-workers", type=int, default=4)
    args = parser.parse_args()
    n, k = args.benchmarks, args.workers

    build_images()
    tmp = tempfile.mkdtemp(prefix="ergobench-operator-scale-")
    cluster = Cluster(os.path.join(tmp, "cluster"))
    try:
        cluster.start()
        cluster.import_podman_image(f"ergobench-operator:{ergobench_version()}")
        subprocess.run([HELM, f"--kubeconfig={cluster.admin_kubeconfig}", "install", "ergobench",
                             os.path.join(ROOT, "charts/ergobench"), "-n", "ergobench-system", "--create-namespace",
                             "--wait", "--set", f"workers={args.operator_workers}",
                             "--set", "policy.allowSchedulerName=true"], check=True, stdout=subprocess.DEVNULL)
        config.load_kube_config(config_file=cluster.admin_kubeconfig)
        core, custom = client.CoreV1Api(), client.CustomObjectsApi()
        for namespace in (NAMESPACE, FLOOR_NAMESPACE):
            core.create_namespace({"metadata": {"name": namespace}})
        operator = OperatorProcess(cluster)
        idle_rss, cpu_before = operator.rss_mib(), operator.cpu_seconds()
        created, scheduler = PodsCreated(k), Scheduler(core)
        watch_new_pods(core, created.added, scheduler.added)

        applied, start = {}, time.monotonic()
        for i in range(n):
            name = f"b{i:03d}"
            applied[name] = time.monotonic()
            custom.create_namespaced_custom_object("ergobench.io", "v1alpha1", NAMESPACE, "benchmarks", benchmark(name, k))
        apply_seconds = time.monotonic() - start
        cluster.wait_for(lambda: created.count(NAMESPACE) == n, 600, "every Benchmark's pods")
        copies = floor_objects(core, applied)  # before the operator deletes the finished pods
        play_kubelet(cluster, core, custom, k)
        time.sleep(3)  # the operator's gauges refresh every 2 s
        requests = operator.requests()
        cpu = [after - before for after, before in zip(operator.cpu_seconds(), cpu_before)]
        finished_rss = operator.rss_mib()

        def apply_stand_in(name):
            # What the operator run's apply cost the machine, without a Benchmark to reconcile.
            core.create_namespaced_config_map(FLOOR_NAMESPACE, {"metadata": {"name": f"apply-{name}"},
                                                                 "data": {"benchmark": json.dumps(benchmark(name, k))}})
        released = run_floor(cluster, copies, apply_stand_in, args.operator_workers, scheduler)
        cluster.wait_for(lambda: created.count(FLOOR_NAMESPACE) == n, 600, "the floor's pods")
        operator.stop.set()

        ours, floor = latencies_ms(created, NAMESPACE, applied), latencies_ms(created, FLOOR_NAMESPACE, released)
        
        print(f"operator scale: {n} Benchmarks x {k} workers, {args.operator_workers} reconcile workers, "
              f"{os.cpu_count()}-core machine, the operator in the cluster")
        print(f"  {n} Benchmark creates took {apply_seconds:.2f} s")
        print(f"  apply -> all {k} pods created, operator: {summary(ours)}")
        print(f"  the same objects by a plain client, same concurrency, after the same applies (floor): {summary(floor)}")
        print(f"  operator p99 / floor p99: {percentile(ours, 0.99) / percentile(floor, 0.99):.2f}")
        print(f"  apply -> first pod, operator: {summary(latencies_ms(created, NAMESPACE, applied, 'first_at'))}; "
              f"floor: {summary(latencies_ms(created, FLOOR_NAMESPACE, released, 'first_at'))}")
        lifecycle = {verb: count / n for verb, count in sorted(requests.items())
                     if verb not in ("list", "watch", "reconciles", "reconcile seconds")}
        print(f"  API requests per Benchmark lifecycle: {sum(lifecycle.values()):.1f} "
              f"({', '.join(f'{v} {c:.1f}' for v, c in lifecycle.items())}); "
              f"plus {requests.get('list', 0):.0f} lists and {requests.get('watch', 0):.0f} watches in all")
        print(f"  operator CPU: {sum(cpu):.1f} s for the {n} lifecycles ({cpu[0]:.1f} s user, {cpu[1]:.1f} s system); "
              f"{requests['reconciles'] / n:.1f} reconciles per lifecycle, "
              f"{requests['reconcile seconds'] / requests['reconciles'] * 1000:.1f} ms each on average")
        print(f"  operator RSS: {idle_rss:.1f} MiB idle, {operator.peak:.1f} MiB peak, "
              f"{finished_rss:.1f} MiB with {n} finished Benchmarks cached")
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
