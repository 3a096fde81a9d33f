"""The test bed of the cluster suites: one real cluster of three nodes (kube/cluster/cluster.py)
for them all, the images of images/build.sh imported into their containerds, and the operator
installed by its Helm chart, running in the cluster as its Deployment, as a user installs it."""

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))

from cluster import FIRST_NODE as NODE_NAME, Cluster  # noqa: E402
from cluster_command import parser as cluster_parser, spec_of  # noqa: E402
from network import NODE_PREFIX  # noqa: E402
from control_plane import HELM, KUBECTL  # noqa: E402
from cluster_trace import ClusterTrace  # noqa: E402
from harness import ON_RECORD, FakeRapl, build_images, ergobench_version, record_time  # noqa: E402

VERSION = ergobench_version()
OPERATOR_NAMESPACE = "ergobench-system"
RELEASE = "ergobench"
OPERATOR_SELECTOR = "app.kubernetes.io/name=ergobench-operator"
AGENT_SELECTOR = "app.kubernetes.io/name=ergobench-energy-agent"
# The CI node has 2 CPUs and the operator asks for 50m of them: two workers of 900m fit beside
# it, Guaranteed and one torch thread each (the runner takes its threads from the quota).
WORKER_CPU = "900m"
# The power of each node's RAPL package counter, for every suite: one counter a node for the whole
# run. Node 1 (NODE_NAME) is where the suites run, and NODE_WATTS its power.
NODES_WATTS = {1: 100.0, 2: 50.0, 3: 150.0}
NODE_WATTS = NODES_WATTS[1]
# Every node but the first carries this taint, except while a suite of `all_nodes` runs: no pod
# goes there, the energy agent's included (NoExecute, which no DaemonSet tolerates unasked), so
# the suites written for one node see one, and the idle nodes cost a kubelet's polling.
IDLE_TAINT = "ergobench.io/idle=true:NoExecute"
# The chart values of every suite's release: progress rounds of 1 s, so that rank 0 hands its
# results over within a second of its run's end (at the chart's 10 s, a run's pods would stay up
# to 10 s longer, and every test waits for them).
BASE_VALUES = {"progressInterval": 1}


def container_id(pod):
    """The containerd id of the pod's first container."""
    return pod["status"]["containerStatuses"][0]["containerID"].split("//")[1]


def container_states(pod):
    """The state of each of the pod's containers: waiting, running or terminated."""
    return [state for s in pod["status"].get("containerStatuses", []) for state in s.get("state", {})]


def pod_state(pod):
    """The pod's name, phase, whether it is being deleted and its containers' states."""
    return (pod["metadata"]["name"], pod["status"].get("phase"), "deletionTimestamp" in pod["metadata"],
            container_states(pod))


def node_labels(cluster):
    return cluster.get_json("node", NODE_NAME)["metadata"].get("labels", {})


class SharedCluster:
    """The one cluster of a test process, started by the first suite that needs it and stopped
    as the process exits: the cluster suites run in one process (tests/CMakeLists.txt,
    integration_kube) and share it, each in namespaces of its own. It is the cluster
    `ergobench cluster up` starts with up_options() (test_cluster runs that command and its
    siblings against it): three nodes on 1 Gbit/s links, each with a RAPL package counter
    advancing at its NODES_WATTS (FakeRapl under the node's folder of `sysfs`), which its
    containers read as their sysfs (runc_node_sysfs.py) and its energy agent through the
    chart's hostPath mounts (`host_sysfs`). Between suites, clean() leaves it as it started: no
    namespace of a test, node 1's labels restored, the other nodes idle. The operator's release
    is installed with each suite's values, and upgraded only where they differ from the values
    it runs with."""

    _instance = None

    @classmethod
    def get(cls):
        if cls._instance is None:
            shared = cls()
            try:
                shared.start()
            except BaseException:
                shared.stop()
                raise
            atexit.register(shared.stop)
            cls._instance = shared
        return cls._instance

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="ergobench-shared-cluster-")
        self.workdir = os.path.join(self.tmp, "cluster")
        self.sysfs = os.path.join(self.tmp, "node-sysfs")
        self.node_sysfs = os.path.join(self.sysfs, NODE_NAME)  # node 1's: ERGOBENCH_SYSFS_ROOT of its runner
        self.host_sysfs = os.path.join(self.sysfs, "sys")  # the chart's energyAgent.hostSysfs
        self.rapls, self.cluster, self.trace = [], None, None
        self.release = None  # the values the operator's release runs with; None: no release

    def up_options(self):
        return ["--nodes", str(len(NODES_WATTS)), "--link-rate", "1Gbit", "--instance-type", "test.small",
                "--node-label", "3:node.kubernetes.io/instance-type=test.large", "--workdir", self.workdir,
                "--node-sysfs", self.sysfs]

    def other_nodes(self):
        return [node.name for node in self.cluster.nodes[1:]]

    def start(self):
        started = time.monotonic()
        build_images()
        record_time("cluster", "images/build.sh", time.monotonic() - started)
        started = time.monotonic()
        for index, watts in NODES_WATTS.items():
            folder = os.path.join(self.sysfs, f"{NODE_PREFIX}{index}")
            self.rapls.append(FakeRapl(folder, watts).__enter__())
            os.makedirs(os.path.join(folder, "sys/devices"))
        self.cluster = Cluster(self.workdir, spec_of(cluster_parser().parse_args(["up", *self.up_options()])))
        self.cluster.start()
        for image in ("operator", "runner"):
            self.cluster.import_podman_image(f"ergobench-{image}:{VERSION}")
        self.cluster.kubectl("taint", "nodes", *self.other_nodes(), IDLE_TAINT)
        self.namespaces = self.namespace_names() | {OPERATOR_NAMESPACE}
        self.labels = node_labels(self.cluster)
        record_time("cluster", "start and import the images", time.monotonic() - started)
        if os.environ.get("ERGOBENCH_CLUSTER_TRACE"):
            self.trace = ClusterTrace(os.environ["ERGOBENCH_CLUSTER_TRACE"], KUBECTL, self.cluster.admin_kubeconfig)
            ON_RECORD.append(lambda suite, name, seconds: self.trace.mark(f"{suite} {name} {seconds:.1f} s"))

    def stop(self):
        if self.trace:
            self.trace.stop(self.tmp)
        if self.cluster:
            self.cluster.stop()
        for rapl in self.rapls:
            rapl.__exit__()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def let_go(self):
        """For `ergobench cluster down` to end the cluster (test_cluster's last test): the
        machine's lock released for it to take, and this process no longer the cluster's owner.
        Returns the processes it started, to be reaped once `down` has ended them (until then
        they are zombies, which /proc still lists)."""
        self.cluster.lock.close()
        self.cluster.lock = None
        procs, self.cluster = list(self.cluster.procs.values()), None
        return procs

    def use_all_nodes(self):
        self.cluster.kubectl("taint", "nodes", *self.other_nodes(), IDLE_TAINT.split("=")[0] + "-")

    def namespace_names(self):
        return {n["metadata"]["name"] for n in self.cluster.get_json("namespaces")["items"]}

    def pods_in(self, namespaces):
        return [p for p in self.cluster.get_json("pods", "-A")["items"] if p["metadata"]["namespace"] in namespaces]

    def clean(self, timeout=300):
        """Deletes every namespace a test made, and puts the node's labels back as they were at
        the start. Their pods go at once (force, no grace period), as on a node's loss: the
        kubelet kills what still runs, and the next suite does not wait for a long run's
        graceful end. It waits for those pods to be gone, which is what the next suite needs
        (the CPUs, and no stray pod in a listing across namespaces), not for the namespaces: the
        namespace controller takes about 5 s more a namespace, in the background, and a
        terminating namespace admits nothing new."""
        started = time.monotonic()
        leftover = self.namespace_names() - self.namespaces
        if leftover:
            self.cluster.kubectl("delete", "namespace", *sorted(leftover), "--wait=false", check=False)
        for namespace in leftover:
            self.cluster.kubectl("delete", "pods", "--all", "-n", namespace, "--grace-period=0", "--force",
                                 check=False)
        self.cluster.wait_for(lambda: not self.pods_in(leftover), timeout, f"the pods of {sorted(leftover)} to go")
        if leftover:
            record_time("cluster", f"clean: {len(leftover)} namespaces deleted", time.monotonic() - started)
        labels = node_labels(self.cluster)
        changes = [f"{key}-" for key in labels if key not in self.labels] + \
                  [f"{key}={value}" for key, value in self.labels.items() if labels.get(key) != value]
        if changes:
            self.cluster.kubectl("label", "node", NODE_NAME, "--overwrite", *changes)
        self.cluster.kubectl("taint", "nodes", *self.other_nodes(), IDLE_TAINT, "--overwrite")

    def helm(self, *args, check=True):
        result = subprocess.run([HELM, f"--kubeconfig={self.cluster.admin_kubeconfig}", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def install_operator(self, values):
        """The operator's release with exactly `values` (chart defaults for the rest)."""
        if self.release == values:
            return
        started = time.monotonic()
        args = [arg for key, value in values.items() for arg in ("--set-json", f"{key}={json.dumps(value)}")]
        self.release = None  # until the upgrade has rolled out
        self.helm("upgrade", "--install", RELEASE, os.path.join(ROOT, "charts/ergobench"), "--namespace",
                  OPERATOR_NAMESPACE, "--create-namespace", "--wait", "--timeout", "120s", *args)
        self.release = values
        record_time("cluster", f"install the operator: {json.dumps(values, sort_keys=True)}",
                    time.monotonic() - started)

    def remove_operator(self):
        """No release of the chart, no CRD, no operator pod: the cluster as it was before any
        install (the install suite's own releases included). The namespaces go with clean()."""
        started = time.monotonic()
        for release, namespace in ((RELEASE, OPERATOR_NAMESPACE), ("ergobench", "ergobench-helm")):
            self.helm("uninstall", release, "--namespace", namespace, check=False)
        crds = [c["metadata"]["name"] for c in self.cluster.get_json("crd")["items"]
                if c["metadata"]["name"].endswith(".ergobench.io")]
        if crds:
            self.cluster.kubectl("delete", "crd", *crds, "--wait=true")
        # Uninstalled, its pods need no graceful end (the install suite tests that on its own).
        self.cluster.kubectl("delete", "pods", "-A", "-l", OPERATOR_SELECTOR, "--grace-period=0", "--force",
                             check=False)
        self.cluster.wait_for(lambda: not self.cluster.get_json("pods", "-A", "-l", OPERATOR_SELECTOR)["items"], 120,
                              "the operator's pods to go")
        self.release = None
        record_time("cluster", "remove the operator", time.monotonic() - started)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("buildah"),
                     "a cluster node needs root, and images need buildah (scripts/install-deps.sh --tests)")
class ClusterSuite(unittest.TestCase):
    """A suite on the process's SharedCluster. `helm_values` (over BASE_VALUES) go to the
    operator's release, installed before the tests unless `install_at_start` is False (then the
    suite starts with no release and no CRD). With `energy_agent`, the chart's node energy agent
    reads the node's counter and the ranks read the agent. With `all_nodes`, pods may go to
    every node; without, to node 1 alone. The suite leaves the cluster clean
    (SharedCluster.clean)."""

    helm_values = {}
    install_at_start = True
    energy_agent = False
    all_nodes = False

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"ergobench-{cls.__name__.lower()}-")
        cls.shared = SharedCluster.get()
        cls.cluster = cls.cp = cls.shared.cluster
        cls.node_sysfs = cls.shared.node_sysfs
        if cls.energy_agent:
            cls.helm_values = {**cls.helm_values,
                               "energyAgent": {"enabled": True, "hostSysfs": cls.shared.host_sysfs}}
        try:
            cls.shared.clean()
            if cls.all_nodes:
                cls.shared.use_all_nodes()
            if cls.install_at_start:
                cls.install_operator()
            else:
                cls.shared.remove_operator()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if not cls.install_at_start:
            cls.shared.remove_operator()
        cls.shared.clean()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def helm(cls, *args, check=True):
        return cls.shared.helm(*args, check=check)

    @classmethod
    def install_operator(cls, **values):
        cls.shared.install_operator({**BASE_VALUES, **cls.helm_values, **values})
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

    def operator_processes_ended(self):
        """Every operator pod is being deleted and runs no container."""
        pods = self.cluster.get_json("-n", OPERATOR_NAMESPACE, "pods", "-l", OPERATOR_SELECTOR)["items"]
        return all(p["metadata"].get("deletionTimestamp") and
                   not any("running" in s.get("state", {}) for s in p["status"].get("containerStatuses", []))
                   for p in pods)

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
        for line in self.cluster.nodes[0].ctr("tasks", "list").stdout.splitlines()[1:]:
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
        nat = subprocess.run(self.cluster.nodes[0].in_netns(["iptables-save", "-t", "nat"]), stdout=subprocess.PIPE,
                             text=True).stdout
        hostports = "".join(line + "\n" for line in nat.splitlines() if "HOSTPORT" in line or "9810" in line)
        return "--- energy agent\n" + pods.stdout + logs.stdout + logs.stderr + hostports

    def component_logs(self, tail=20):
        """The last lines of every component's log, for a failure's report."""
        out = []
        node = self.cluster.nodes[0].name
        for name in (f"{node}-kubelet", f"{node}-containerd", "kube-scheduler", "kube-controller-manager", "dnsmasq"):
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
        """Until every worker pod of `name` is stopped (wait_pods_stopped)."""
        self.wait_pods_stopped(f"ergobench.io/benchmark={name}", f"the workers of {name}", timeout)

    def wait_pods_stopped(self, selector, what, timeout=60):
        """Until every pod that `selector` picks is deleted or being deleted with no container
        left running: stopped, as the operator (or the garbage collector) can make it. The
        kubelet removes a killed pod's object only after it has reclaimed its volumes and cgroups,
        10-60 s more on this node, which no test of ours is about."""
        def pods():
            return self.cp.get_json("-n", self.ns, "pods", "-l", selector)["items"]

        def stopped(pod):
            return "deletionTimestamp" in pod["metadata"] and "running" not in container_states(pod)
        self.cp.wait_for(lambda: all(stopped(p) for p in pods()), timeout, f"{what} to stop",
                         context=lambda: f"pods: {[pod_state(p) for p in pods()]}")

    def pods(self, name):
        return self.cp.get_json("-n", self.ns, "pods", "-l", f"ergobench.io/benchmark={name}")["items"]

    def condition(self, status, kind):
        return next((c for c in status.get("conditions", []) if c["type"] == kind), None)

    def printed_tables(self, kinds):
        """What `kubectl get <kinds>` prints in this namespace, as {kind: {name: {COLUMN: cell}}},
        each cell cut at its header's columns (cells may hold single spaces). Name several kinds
        ("bench,ebds"): kubectl then prefixes each name with its kind."""
        text = self.cp.kubectl("get", "-n", self.ns, kinds).stdout
        tables = {}
        for block in filter(None, text.strip("\n").split("\n\n")):
            header, *rows = block.split("\n")
            starts = [i for i, c in enumerate(header) if c != " " and (i == 0 or header[i - 1] == " ")]
            columns = [header[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
            for row in rows:
                cells = dict(zip(columns, (row[s:e].strip() for s, e in zip(starts, starts[1:] + [None]))))
                kind, _, name = cells.pop("NAME").partition("/")
                tables.setdefault(kind.split(".")[0], {})[name] = cells
        return tables


def si(value, unit, symbol=False):
    """base/units.h FormatSi: three significant figures, an SI prefix from 1000 up."""
    prefixes, prefix = ["", "k", "M", "G", "T", "P", "E"], 0
    while prefix < 6 and abs(float("%.3g" % value)) >= 1000:
        value, prefix = value / 1000, prefix + 1
    number = "%.3g" % value
    return f"{number} {prefixes[prefix]}{unit}" if symbol else f"{number}{prefixes[prefix]} {unit}"


def seconds_text(seconds):
    """base/units.h FormatSeconds, for the durations above a second."""
    if seconds < 60:
        return "%.1f s" % seconds
    whole = round(seconds)
    return f"{whole // 60}m{whole % 60:02d}s" if whole < 3600 else f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def rate_text(rate):
    """base/units.h FormatBytesPerSecond: "2.35 GB/s"."""
    units, unit = ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"], 0
    while abs(rate) >= 1000 and unit < 4:
        rate, unit = rate / 1000, unit + 1
    return ("%.2f %s" if abs(rate) < 10 else "%.0f %s") % (rate, units[unit])


def byte_quantity(count):
    """api/v1alpha1/quantity.h FormatByteQuantity: "52.4Mi"."""
    suffixes, suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"], 0
    while suffix < 6 and abs(count) >= 1023.5:
        count, suffix = count / 1024, suffix + 1
    text = "%.0f" % count if abs(count) >= 100 or suffix == 0 else "%.1f" % count if abs(count) >= 10 else "%.2f" % count
    return (text.rstrip("0").rstrip(".") if "." in text else text) + suffixes[suffix]

