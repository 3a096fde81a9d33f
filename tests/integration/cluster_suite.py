"""The test bed of the cluster suites: a real one-node cluster (tests/kube/cluster.py), the
images of images/build.sh imported into its containerd, and the operator installed by its Helm
chart, running in the cluster as its Deployment, as a user installs it."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "tests/kube"))

from cluster import Cluster  # noqa: E402
from control_plane import HELM  # noqa: E402
from harness import FakeRapl, build_images, ergobench_version  # noqa: E402

VERSION = ergobench_version()
OPERATOR_NAMESPACE = "ergobench-system"
RELEASE = "ergobench"
OPERATOR_SELECTOR = "app.kubernetes.io/name=ergobench-operator"
AGENT_SELECTOR = "app.kubernetes.io/name=ergobench-energy-agent"
# The CI node has 2 CPUs and the operator asks for 50m of them: two workers of 900m fit beside
# it, Guaranteed and one torch thread each (the runner takes its threads from the quota).
WORKER_CPU = "900m"


def container_id(pod):
    """The containerd id of the pod's first container."""
    return pod["status"]["containerStatuses"][0]["containerID"].split("//")[1]


def container_states(pod):
    """The state of each of the pod's containers: waiting, running or terminated."""
    return [state for s in pod["status"].get("containerStatuses", []) for state in s.get("state", {})]


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("buildah"),
                     "a cluster node needs root, and images need buildah (scripts/install-deps.sh --tests)")
class ClusterSuite(unittest.TestCase):
    """One cluster per suite class; `helm_values` go to the operator's release, installed
    before the tests unless `install_at_start` is False. With `node_watts`, the node has a
    RAPL package counter advancing at that power (FakeRapl under `cls.node_sysfs`), which
    every container reads as its sysfs; with `energy_agent` too, the chart's node energy agent
    reads it through its hostPath mounts, and the ranks read the agent."""

    helm_values = {}
    install_at_start = True
    node_watts = None
    energy_agent = False

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"ergobench-{cls.__name__.lower()}-")
        build_images()
        cls.node_sysfs = os.path.join(cls.tmp, "node-sysfs") if cls.node_watts else None
        cls.rapl = FakeRapl(cls.node_sysfs, cls.node_watts).__enter__() if cls.node_sysfs else None
        if cls.energy_agent:
            # The agent mounts <hostSysfs>/class and <hostSysfs>/devices, as a real /sys has them.
            os.makedirs(os.path.join(cls.node_sysfs, "sys/devices"))
            cls.helm_values = {**cls.helm_values,
                               "energyAgent": {"enabled": True, "hostSysfs": os.path.join(cls.node_sysfs, "sys")}}
        cls.cluster = cls.cp = Cluster(os.path.join(cls.tmp, "cluster"), cls.node_sysfs)
        try:
            cls.cluster.start()
            for image in ("operator", "runner"):
                cls.cluster.import_podman_image(f"ergobench-{image}:{VERSION}")
            if cls.install_at_start:
                cls.install_operator()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()
        if cls.rapl:
            cls.rapl.__exit__()

    @classmethod
    def helm(cls, *args, check=True):
        result = subprocess.run([HELM, f"--kubeconfig={cls.cluster.admin_kubeconfig}", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    @classmethod
    def install_operator(cls, **values):
        settings = {**cls.helm_values, **values}
        args = [arg for key, value in settings.items() for arg in ("--set-json", f"{key}={json.dumps(value)}")]
        cls.helm("upgrade", "--install", RELEASE, os.path.join(ROOT, "charts/ergobench"), "--namespace",
                 OPERATOR_NAMESPACE, "--create-namespace", "--wait", "--timeout", "120s", *args)
        cls.wait_operator_rolled_out()

    @classmethod
    def wait_operator_rolled_out(cls, timeout=120):
        cls.cluster.kubectl("rollout", "status", "-n", OPERATOR_NAMESPACE, f"deployment/{RELEASE}",
                            f"--timeout={timeout}s")

    # --- the operator in the cluster -------------------------------------------------------
    def operator_pods(self):
        """The operator's pods, less those being deleted."""
        pods = self.cluster.get_json("-n", OPERATOR_NAMESPACE, "pods", "-l", OPERATOR_SELECTOR)["items"]
        return [p for p in pods if not p["metadata"].get("deletionTimestamp")]

    def leader(self):
        """The name of the operator pod holding the lease: its identity is "<hostname>_<random>"."""
        lease = self.cluster.get_json("-n", OPERATOR_NAMESPACE, "lease", RELEASE)
        return (lease["spec"].get("holderIdentity") or "").rsplit("_", 1)[0]

    def operator_metrics(self):
        pod = next(p for p in self.operator_pods() if p["metadata"]["name"] == self.leader())
        with urllib.request.urlopen(f"http://{pod['status']['podIP']}:8080/metrics", timeout=5) as r:
            return r.read().decode()

    def operator_restarts(self):
        return sum(s.get("restartCount", 0) for p in self.operator_pods()
                   for s in p["status"].get("containerStatuses", []))

    def kill_container(self, namespace, pod_name, sig=signal.SIGKILL):
        """Signals the main process of the pod's first container, as the OOM killer or a crash
        would: the kubelet sees the container end with the signal's exit code."""
        pod = self.cluster.get_json("-n", namespace, "pod", pod_name)
        task = self.containerd_tasks().get(container_id(pod))
        if task is None:
            raise AssertionError(f"no running task for pod {namespace}/{pod_name}")
        os.kill(task[0], sig)

    def containerd_tasks(self):
        """containerd's own view, which needs neither the API server nor the kubelet:
        {container id: (pid, status)}, status RUNNING, STOPPED, ..."""
        tasks = {}
        for line in self.cluster.ctr("tasks", "list").stdout.splitlines()[1:]:
            task, pid, status = line.split()
            tasks[task] = (int(pid), status)
        return tasks

    def operator_logs(self, tail=40):
        return self.cluster.kubectl("logs", "-n", OPERATOR_NAMESPACE, "-l", OPERATOR_SELECTOR, "--prefix",
                                    f"--tail={tail}", check=False).stdout

    def agent_state(self):
        """The node energy agent's pods (restarts, state) and last log lines, where it runs."""
        if not self.energy_agent:
            return ""
        pods = self.cluster.kubectl("get", "pods", "-n", OPERATOR_NAMESPACE, "-l", AGENT_SELECTOR, "-o", "wide", check=False)
        logs = self.cluster.kubectl("logs", "-n", OPERATOR_NAMESPACE, "-l", AGENT_SELECTOR, "--tail=20", check=False)
        nat = subprocess.run(["iptables-save", "-t", "nat"], stdout=subprocess.PIPE, text=True).stdout
        hostports = "".join(line + "\n" for line in nat.splitlines() if "HOSTPORT" in line or "9810" in line)
        return "--- energy agent\n" + pods.stdout + logs.stdout + logs.stderr + hostports

    def component_logs(self, tail=20):
        """The last lines of every component's log, for a failure's report."""
        out = []
        for name in ("kubelet", "containerd", "kube-scheduler", "kube-controller-manager", "dnsmasq"):
            path = os.path.join(self.cluster.workdir, f"{name}.log")
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    out.append(f"--- {path}\n" + "".join(f.readlines()[-tail:]))
        return "".join(out)


class NamespacedClusterSuite(ClusterSuite):
    """Each test in a namespace of its own, named after it, deleted after it; on a failure the
    operator's and the components' last log lines are printed."""

    def setUp(self):
        self.ns = self.id().split(".")[-1].replace("_", "-")[:40].strip("-")
        self.cp.kubectl("create", "namespace", self.ns)
        self.restarts_before = self.operator_restarts()

    def tearDown(self):
        self.cp.kubectl("delete", "namespace", self.ns, "--wait=false", check=False)
        result = self._outcome.result
        if any(test is self for test, _ in result.failures + result.errors):
            sys.stderr.write("--- operator\n" + self.operator_logs() + self.agent_state() + self.component_logs())

    def apply(self, obj):
        self.cp.kubectl("apply", "-n", self.ns, "-f", "-", input=json.dumps(obj))

    def benchmark(self, name):
        return self.cp.get_json("-n", self.ns, "benchmark", name)

    def status(self, name):
        return self.benchmark(name).get("status", {})

    def wait_phase(self, name, phases, timeout=240):
        self.cp.wait_for(lambda: self.status(name).get("phase") in phases, timeout, f"{name} to reach {phases}",
                         context=lambda: f"status: {json.dumps(self.status(name))}")
        return self.status(name)

    def wait_workers_stopped(self, name, timeout=60):
        """Until every worker pod of `name` is deleted or being deleted with no container left
        running: stopped, as the operator can make it. The kubelet removes a killed pod's object
        only after it has reclaimed its volumes and cgroups, 10-30 s more on this node."""
        def stopped(pod):
            return "deletionTimestamp" in pod["metadata"] and "running" not in container_states(pod)
        self.cp.wait_for(lambda: all(stopped(p) for p in self.pods(name)), timeout, f"the workers of {name} to stop",
                         context=lambda: f"pods: {self.pod_states(name)}")

    def pod_states(self, name):
        """Each pod's name, phase, whether it is being deleted and its containers' states."""
        return [(p["metadata"]["name"], p["status"].get("phase"), "deletionTimestamp" in p["metadata"],
                 container_states(p)) for p in self.pods(name)]

    def pods(self, name):
        return self.cp.get_json("-n", self.ns, "pods", "-l", f"ergobench.io/benchmark={name}")["items"]

    def condition(self, status, kind):
        return next((c for c in status.get("conditions", []) if c["type"] == kind), None)

