"""A trace of the shared cluster, for finding where a slow or failed test's time went: with
ERGOBENCH_CLUSTER_TRACE=<dir> (scripts/test.sh sets <build>/cluster-trace), every change to a
pod, Benchmark, BenchmarkSweep or event is written to <dir>/changes.log as one timed line, each
operator pod's log is followed into <dir>/operator-<pod>.log, the end of each test is marked
(record_time), and the control plane's own logs are copied there as the cluster stops. Watches,
not polls: it costs the 2 cores almost nothing while the tests run."""

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
                if kind == "pods":
                    self._follow_if_operator(obj)
            proc.wait()
            self.stopped.wait(1)

    def mark_change(self, kind, event_type, name, summary):
        with self.lock:
            self.changes.write(f"{time.time():.3f} {kind:10.10} {event_type:8} {name} {summary}\n")
            self.changes.flush()

    def _follow_if_operator(self, pod):
        """Follows the log of an operator pod once it runs (a watched change, not a poll)."""
        meta = pod.get("metadata", {})
        if meta.get("labels", {}).get("app.kubernetes.io/name") != "ergobench-operator" or \
                pod.get("status", {}).get("phase") != "Running" or meta.get("uid") in self.followed:
            return
        self.followed.add(meta.get("uid"))
        log = open(os.path.join(self.directory, f"operator-{meta.get('name')}.log"), "a")
        self.procs.append(subprocess.Popen([*self.kubectl, "logs", "-f", "-n", meta.get("namespace"), meta.get("name"),
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
