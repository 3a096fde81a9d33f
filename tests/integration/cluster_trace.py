"""An opt-in trace of the shared cluster, for finding where a slow test's time went: with
ERGOBENCH_CLUSTER_TRACE=<dir>, every change to a pod, Benchmark, BenchmarkSweep or event is
written to <dir>/changes.log as one timed line, each operator pod's log is followed into
<dir>/operator-<pod>.log, the end of each test is marked (record_time), and the control plane's
own logs are copied there as the cluster stops. Watches, not polls: it costs the 2 cores
almost nothing while the tests run."""

import json
import os
import shutil
import subprocess
import threading
import time

WATCHED = ("pods", "benchmarks.ergobench.io", "benchmarksweeps.ergobench.io", "events")


def _summary(kind, obj):
    """What matters of one object for the trace: its phase or conditions, and whether it is
    being deleted."""
    meta = obj.get("metadata", {})
    status = obj.get("status") or {}
    parts = []
    if meta.get("deletionTimestamp"):
        parts.append("deleting")
    if meta.get("finalizers"):
        parts.append("finalizers=" + ",".join(meta["finalizers"]))
    if kind == "events":
        return f"{obj.get('reason')} {obj.get('involvedObject', {}).get('name')}: {obj.get('message', '')[:160]}"
    if kind == "pods":
        states = [f"{s['name']}:{next(iter(s.get('state', {'?': 0})))}" for s in status.get("containerStatuses", [])]
        parts += [status.get("phase", "?"), *states]
    else:
        parts.append(status.get("phase", "?"))
        parts += [f"{c['type']}={c['status']}" for c in status.get("conditions", []) if c.get("status") == "True"]
    return " ".join(str(p) for p in parts)


class ClusterTrace:
    def __init__(self, directory, kubectl, kubeconfig):
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        self.kubectl = [kubectl, f"--kubeconfig={kubeconfig}"]
        self.stopped = threading.Event()
        self.lock = threading.Lock()
        self.changes = open(os.path.join(directory, "changes.log"), "a")
        self.procs = []
        self.followed = set()
        for kind in WATCHED:
            threading.Thread(target=self._watch, args=(kind,), daemon=True).start()
        threading.Thread(target=self._follow_operator_logs, daemon=True).start()

    def mark(self, text):
        with self.lock:
            self.changes.write(f"{time.time():.3f} ==== {text}\n")
            self.changes.flush()

    def _watch(self, kind):
        # A watch ends when its CRD is deleted (the install suite removes the operator): start again.
        while not self.stopped.is_set():
            proc = subprocess.Popen([*self.kubectl, "get", kind, "-A", "-w", "--output-watch-events", "-o", "json"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self.procs.append(proc)
            decoder, buffer = json.JSONDecoder(), ""
            for line in proc.stdout:
                buffer += line
                try:
                    event, end = decoder.raw_decode(buffer.lstrip())
                except ValueError:
                    continue
                buffer = buffer.lstrip()[end:]
                obj = event.get("object", {})
                meta = obj.get("metadata", {})
                self.mark_change(kind, event.get("type"), f"{meta.get('namespace')}/{meta.get('name')}",
                                 _summary(kind, obj))
            proc.wait()
            self.stopped.wait(1)

    def mark_change(self, kind, event_type, name, summary):
        with self.lock:
            self.changes.write(f"{time.time():.3f} {kind:10.10} {event_type:8} {name} {summary}\n")
            self.changes.flush()

    def _follow_operator_logs(self):
        while not self.stopped.wait(2):
            result = subprocess.run([*self.kubectl, "get", "pods", "-A", "-l", "app.kubernetes.io/name=ergobench-operator",
                                     "--field-selector=status.phase=Running", "-o",
                                     "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}"],
                                    capture_output=True, text=True)
            for pod in result.stdout.split():
                if pod in self.followed:
                    continue
                self.followed.add(pod)
                namespace, name = pod.split("/")
                log = open(os.path.join(self.directory, f"operator-{name}.log"), "a")
                self.procs.append(subprocess.Popen([*self.kubectl, "logs", "-f", "-n", namespace, name,
                                                    "--timestamps"], stdout=log, stderr=subprocess.STDOUT))

    def stop(self, control_plane_dir):
        self.stopped.set()
        for proc in self.procs:
            proc.kill()
        for folder, _, names in os.walk(control_plane_dir):
            for name in names:
                if name.endswith(".log"):
                    shutil.copy(os.path.join(folder, name), self.directory)
        self.changes.close()
