"""The cluster itself (kube/cluster): the three-node cluster of `ergobench cluster up`, which the
cluster suites share, its links against the rate tc was given, pods talking across nodes, nodes
lost, and `down` leaving nothing behind; and a cluster killed mid-run, or a machine restarted
under one, never keeping the next from starting clean. containerd's image stores outlive clusters, and with them the containers of one
that never tore down."""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))

from cluster import Cluster, is_ready, process_start_time  # noqa: E402
from cluster_suite import AGENT_SELECTOR, NODES_WATTS, OPERATOR_NAMESPACE, ClusterSuite, SharedCluster  # noqa: E402
from control_plane import KUBECTL  # noqa: E402
import cpu_lock  # noqa: E402
from harness import ERGOBENCH, ergobench_version, http_get, mllog_events  # noqa: E402
from node import PAUSE_IMAGE, shims_of  # noqa: E402
import test_cosmoflow  # noqa: E402  (the tiny preset's FLOPs)
import test_translation  # noqa: E402  (its small models and goal)

HOST_PORT = 19810
# Epochs of a translation run across nodes, compared with the same run on one machine.
TRANSLATION_EPOCHS = 3
NEEDS = (os.geteuid() == 0 and shutil.which("buildah"),
         "a cluster node needs root, and its pause image buildah (scripts/install-deps.sh --tests)")
# What TCP carries over a link of rate R: a full frame's payload (MSS 1448, with timestamps) over
# the 1514 bytes tbf counts (1500 of IP, 14 of Ethernet).
GOODPUT = 1448 / 1514
# Measured over 3 s, the receiver's clock starting at the first byte: bench/link_rate.py saw
# 1.000-1.013 of the goodput at 1 Gbit/s; 3% holds a loaded 2-core machine.
RATE_TOLERANCE = 0.03
# 0a's peak over 3 sizes and 5 repetitions of a ring across 3 ranks: 5%. MPI's ranks poll while
# they wait (Open MPI 4.1 has no blocking wait; they yield), and three of them share this host's
# two cores: 0.971-0.979 of the goodput on one 2-core VM; on an AMD EPYC one (2026-11-28) 0.917,
# 0.917, 0.946, 0.948 and 0.966 in five runs, CI's among them: 10%. (Open MPI's TCP progress
# thread, btl_tcp_progress_thread, was worse there: 0.780 and 0.862.)
BUSBW_TOLERANCE = 0.05
MPI_BUSBW_TOLERANCE = 0.10

# A TCP receiver that reports the Mbit/s it got, back to its sender, and a sender that sends for
# N seconds: perl, which the runner image has (it has no python, nc or iperf). perl-base has no
# Time::HiRes: the clock is /proc/uptime's, to 10 ms, 0.3% of a 3 s transfer.
CLOCK = r'''sub now { open(my $f, "<", "/proc/uptime") or die; (split(" ", <$f>))[0] }'''
RECEIVER = CLOCK + r'''
use IO::Socket::INET;
my $s = IO::Socket::INET->new(LocalPort => 5201, Listen => 5, ReuseAddr => 1) or die "listen: $!";
while (my $c = $s->accept) { my ($n, $t0, $b) = (0);
  while (my $r = sysread($c, $b, 1 << 20)) { $t0 //= now(); $n += $r }
  printf $c "%.3f\n", $n * 8 / (now() - $t0) / 1e6; close $c }'''
SENDER = CLOCK + r'''
use IO::Socket::INET;
my $c = IO::Socket::INET->new("$ARGV[0]:5201") or die "connect: $!"; my $b = "x" x (1 << 20);
my $end = now() + $ARGV[1]; while (now() < $end) { defined(syswrite($c, $b)) or die "send: $!" }
shutdown($c, 1); print scalar <$c>;'''


def pod(name, node, command, image=PAUSE_IMAGE, labels=None):
    container = {"name": "main", "image": image, "imagePullPolicy": "Never"}
    if command:
        container["command"] = command
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                            "labels": labels or {"app": name}},
            "spec": {"nodeName": node, "containers": [container], "terminationGracePeriodSeconds": 0}}


# How often a kubelet collects (1.20's ContainerGCPeriod).
KUBELET_GC_PERIOD = 60


def ended_pod():
    """A pod on node 1 that prints a line and ends."""
    manifest = pod("ended", "ergobench-node1", ["sh", "-c", "echo ended on node 1"],
                   f"ergobench-runner:{ergobench_version()}")
    manifest["spec"]["restartPolicy"] = "Never"
    return manifest


def sleeper_pod(name):
    """A pod with a hostPort, as the node energy agent has: its rule outlives a killed cluster."""
    manifest = pod(name, None, None)
    del manifest["spec"]["nodeName"]
    manifest["spec"]["containers"][0]["ports"] = [{"containerPort": HOST_PORT, "hostPort": HOST_PORT}]
    return manifest


def host_port_rules(node):
    """portmap's DNAT rules for HOST_PORT in the node's nat table; none where the node is gone."""
    rules = subprocess.run(node.in_netns(["iptables-save", "-t", "nat"]), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True).stdout
    return re.findall(rf"--dport {HOST_PORT} -j DNAT --to-destination (\S+)", rules)


def phase_totals(pod_ip):
    """(steps, {phase: seconds}) from rank 0's metrics: what the operator reads."""
    _, text = http_get(f"http://{pod_ip}:9400/metrics", timeout=5)
    phases = {m.group(1): float(m.group(2))
              for m in re.finditer(r'^ergobench_phase_seconds_total\{.*phase="(\w+)"\} (\S+)$', text, re.M)}
    steps = re.search(r"^ergobench_step_duration_seconds_count\{.*\} (\S+)$", text, re.M)
    return (float(steps.group(1)) if steps else 0, phases)


def steps_served(pod_ip):
    """Rank 0's steps so far; -1 while its metrics server is not up yet."""
    try:
        return phase_totals(pod_ip)[0]
    except OSError:
        return -1


def sleep_then(seconds, function, *args):
    time.sleep(seconds)
    return function(*args)


def per_step(first, second):
    """Seconds per step between two phase_totals: communication, the rest of the step time
    (data, forward, backward, optimizer), and the communication ratio of those steps."""
    steps = second[0] - first[0]
    delta = {phase: second[1][phase] - first[1].get(phase, 0) for phase in second[1] if phase != "eval"}
    communication = delta["communication"] / steps
    step = sum(delta.values()) / steps
    return {"communication": communication, "compute": step - communication, "ratio": communication / step}


def runner_processes(node):
    """The pids of runners in node `node`'s pods (under its cgroup root)."""
    pids = []
    for directory, _, files in os.walk(f"/sys/fs/cgroup/freezer/{node}/kubepods"):
        if "cgroup.procs" in files:
            with open(os.path.join(directory, "cgroup.procs")) as f:
                pids += [pid for pid in f.read().split() if process_name(pid) == "ergobench-runne"]
    return pids


def process_name(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def node_namespaces():
    return {n for n in (os.listdir("/run/netns") if os.path.isdir("/run/netns") else []) if n.startswith("ergobench")}


@unittest.skipUnless(*NEEDS)
class ClusterRecoveryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ergobench-cluster-recovery-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def start_with_a_running_pod(self, name):
        cluster = Cluster(os.path.join(self.tmp, name))
        try:
            cluster.start()
            cluster.kubectl("apply", "-f", "-", input=json.dumps(sleeper_pod(name)))
            cluster.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=90s")
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def test_a_cluster_starts_clean_after_a_run_killed_under_the_last(self):
        first = self.start_with_a_running_pod("first")
        self.addCleanup(first.stop)  # what is still its own if the test fails early
        # What a run killed with SIGKILL leaves: the lock released, nothing torn down, every
        # process of the cluster and its pods still running.
        first.lock.close()
        first.lock = None
        first_shims = shims_of(first.nodes[0].containerd_socket)
        self.assertTrue(first_shims)
        # And a process no cluster knows in a node's namespace (a shell someone entered it with,
        # a rank mpirun left): the namespace, and its link to the switch, live while it does.
        stray = subprocess.Popen(first.nodes[0].in_netns(["sleep", "600"]), start_new_session=True)
        self.addCleanup(stray.kill)

        second = self.start_with_a_running_pod("second")
        first_alive = [p.pid for p in first.procs.values() if p.poll() is None]
        first.procs.clear()  # the second ended them: nothing is left for the first's cleanup
        try:
            # The kubelet never saw the first cluster's sandboxes: when it does, its start
            # races its own garbage collector (kubelet 1.20: "no PodsandBox found", exit 255).
            with open(os.path.join(second.workdir, "ergobench-node1-containerd.log")) as f:
                self.assertNotIn("RemovePodSandbox", f.read())
            self.assertEqual([], shims_of(first.nodes[0].containerd_socket))
            self.assertEqual([], [pid for pid in first_shims if process_start_time(pid) is not None])
            self.assertEqual([], first_alive)
            self.assertEqual(-9, stray.wait(timeout=10))
            with open("/proc/mounts") as f:
                self.assertEqual([], [line for line in f if first.workdir + "/" in line])
            # The first's hostPort rule went with its node's namespace: only the second's is there.
            self.assertEqual(len(host_port_rules(second.nodes[0])), 1, host_port_rules(second.nodes[0]))
        finally:
            second.stop()
        self.assertEqual([], host_port_rules(second.nodes[0]))
        self.assertEqual(set(), node_namespaces())


def mllog_values(text):
    """{key: [value, ...]} of an mllog's events, in order."""
    values = {}
    for event in mllog_events(text):
        values.setdefault(event["key"], []).append(event["value"])
    return values


def ergobench_cluster(*args, check=True):
    result = subprocess.run([ERGOBENCH, "cluster", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"ergobench cluster {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


class ClusterCommandTest(ClusterSuite):
    """The suites' shared cluster (cluster_suite.SharedCluster) is the one `ergobench cluster up`
    starts with its up_options: three nodes, 1 Gbit/s links, energy agents. Here pods go to every
    node, and the product's commands act on it. A test that measures a rate has the CPUs alone
    (cpu_lock): beside another suite's training, a rank's compute falls behind its peer's and the
    wait shows as communication (CI saw 11 ms per step at 1 Gbit/s, and 0.947 of the link's rate
    from mpi)."""

    energy_agent = True
    all_nodes = True

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.kubeconfig = cls.cluster.admin_kubeconfig

        def agents_ready():  # the DaemonSet's pods on the nodes untainted a moment ago too
            pods = cls.cluster.get_json("-n", OPERATOR_NAMESPACE, "pods", "-l", AGENT_SELECTOR)["items"]
            return sorted(p["spec"]["nodeName"] for p in pods if is_ready(p))
        nodes = [node.name for node in cls.cluster.nodes]
        cls.cluster.wait_for(lambda: agents_ready() == nodes, 120, "an energy agent Ready on every node",
                             lambda: f"ready on {agents_ready()}")
        # A pod that ends now, for test_each_node_keeps_its_own_pods_logs_...: the other tests
        # give the kubelets' collection time to run before that one reads its log.
        cls.cluster.kubectl("apply", "-f", "-", input=json.dumps(ended_pod()))
        cls.addClassCleanup(cls.cluster.kubectl, "delete", "pod", "ended", "--wait=false", check=False)
        cls.ended_pod_applied = time.monotonic()

    def kubectl(self, *args, check=True, input=None):
        result = subprocess.run([KUBECTL, f"--kubeconfig={self.kubeconfig}", *args], input=input,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: {result.stderr}")
        return result.stdout

    def run_pods(self, *manifests):
        for manifest in manifests:
            self.addCleanup(self.kubectl, "delete", "pod", manifest["metadata"]["name"], "--wait=false", check=False)
            self.kubectl("apply", "-f", "-", input=json.dumps(manifest))
        self.kubectl("wait", "--for=condition=Ready", "--timeout=90s",
                     *[f"pod/{m['metadata']['name']}" for m in manifests])

    def mbit_per_second(self, sender, to, seconds=3):
        return float(self.kubectl("exec", sender, "--", "perl", "-e", SENDER, to, str(seconds)))

    def assert_rate(self, measured, rate_mbit, tolerance=RATE_TOLERANCE):
        expected = rate_mbit * GOODPUT
        self.assertAlmostEqual(measured / expected, 1.0, delta=tolerance,
                               msg=f"{measured:.1f} Mbit/s over a {rate_mbit} Mbit/s link, expected {expected:.1f}")

    def test_each_node_keeps_its_own_pods_logs_past_the_other_kubelets_collection(self):
        """Every kubelet's container GC, once a minute, deletes from /var/log/pods the folders of
        pods it does not run. The nodes of one machine would share that folder (1.20's kubelet
        fixes its path; KubeletConfiguration.podLogsDir came in 1.29): each node has its own, in
        a mount namespace of its own, and a finished pod's log outlives the others' collection."""
        name = "ended"
        self.cluster.wait_for(
            lambda: json.loads(self.kubectl("get", "pod", name, "-o", "json"))["status"].get("phase") == "Succeeded",
            60, f"{name} to end")
        time.sleep(max(0.0, self.ended_pod_applied + KUBELET_GC_PERIOD + 15 - time.monotonic()))
        self.assertEqual("ended on node 1\n", self.kubectl("logs", name))
        uid = json.loads(self.kubectl("get", "pod", name, "-o", "json"))["metadata"]["uid"]
        folder = f"default_{name}_{uid}"
        node1 = self.cluster.nodes[0]
        self.assertEqual(["main"], os.listdir(os.path.join(node1.log_dir("/var/log/pods"), folder)))
        self.assertFalse(os.path.exists(os.path.join("/var/log/pods", folder)), "the host's /var/log/pods")

    def test_up_starts_three_ready_nodes_labelled_and_is_idempotent(self):
        nodes = json.loads(self.kubectl("get", "nodes", "-o", "json"))["items"]
        self.assertEqual({"ergobench-node1": "test.small", "ergobench-node2": "test.small",
                          "ergobench-node3": "test.large"},
                         {n["metadata"]["name"]: n["metadata"]["labels"]["node.kubernetes.io/instance-type"]
                          for n in nodes})
        self.assertTrue(all(any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"]["conditions"])
                            for n in nodes))
        self.assertEqual(["10.250.0.11", "10.250.0.12", "10.250.0.13"],
                         sorted(a["address"] for n in nodes for a in n["status"]["addresses"]
                                if a["type"] == "InternalIP"))
        again = ergobench_cluster("up", *self.shared.up_options())
        self.assertEqual(f"export KUBECONFIG={os.path.abspath(self.kubeconfig)}", again.stdout.splitlines()[-1])
        other = ergobench_cluster("up", "--nodes", "2", check=False)
        self.assertEqual(2, other.returncode)
        self.assertIn("a cluster of 3 node(s) runs", other.stderr)
        status = ergobench_cluster("status").stdout
        self.assertRegex(status, r"ergobench-node2\s+10\.250\.0\.12\s+true\s+1Gbit")

    @cpu_lock.alone
    def test_pods_on_two_nodes_reach_each_other_by_service_name(self):
        image = f"ergobench-runner:{ergobench_version()}"
        self.run_pods(pod("server", "ergobench-node2", ["perl", "-e", RECEIVER], image),
                      pod("client", "ergobench-node1", ["sleep", "3600"], image))
        self.kubectl("expose", "pod", "server", "--port", "5201", "--name", "server")
        self.addCleanup(self.kubectl, "delete", "service", "server", check=False)
        server_ip = json.loads(self.kubectl("get", "pod", "server", "-o", "json"))["status"]["podIP"]
        self.assertTrue(server_ip.startswith("10.244.2."), server_ip)  # node 2's pod CIDR
        # By the Service's DNS name, once the cluster DNS on the switch has it: the Service's
        # rules on node 1 send it to node 2's pod, across both nodes' links, at 1 Gbit/s.
        name = "server.default.svc.cluster.local"
        deadline = time.monotonic() + 30
        while self.kubectl("exec", "client", "--", "getent", "hosts", name, check=False) == "":
            self.assertLess(time.monotonic(), deadline, f"{name} never resolved")
            time.sleep(0.5)
        self.assert_rate(self.mbit_per_second("client", name), 1000)

    @cpu_lock.alone
    def test_a_link_changed_while_running_carries_its_new_rate_both_ways(self):
        image = f"ergobench-runner:{ergobench_version()}"
        self.run_pods(pod("rx1", "ergobench-node1", ["perl", "-e", RECEIVER], image),
                      pod("rx2", "ergobench-node2", ["perl", "-e", RECEIVER], image))
        ip = {name: json.loads(self.kubectl("get", "pod", name, "-o", "json"))["status"]["podIP"]
              for name in ("rx1", "rx2")}
        ergobench_cluster("link", "2", "--rate", "200Mbit")
        self.addCleanup(ergobench_cluster, "link", "2", "--rate", "1Gbit")
        self.assertRegex(ergobench_cluster("status").stdout, r"ergobench-node2\s+\S+\s+true\s+200Mbit")
        self.assert_rate(self.mbit_per_second("rx1", ip["rx2"]), 200)  # into node 2
        self.assert_rate(self.mbit_per_second("rx2", ip["rx1"]), 200)  # out of node 2
        refused = ergobench_cluster("link", "2", "--rate", "fast", check=False)
        self.assertEqual((2, "ergobench cluster: --rate: 'fast' is not a rate such as 500Mbit, 1Gbit or 7.5Gbit\n"),
                         (refused.returncode, refused.stderr))


    def benchmark_status(self, manifest, timeout=300):
        """Applies a Benchmark and waits for its end; its status."""
        name = manifest["metadata"]["name"]
        self.kubectl("apply", "-f", "-", input=json.dumps(manifest))
        self.addCleanup(self.kubectl, "delete", "benchmark", name, "--wait=false", check=False)
        return self.benchmark_status_of(name, timeout)

    def benchmark_status_of(self, name, timeout=300):
        deadline = time.monotonic() + timeout
        while True:
            status = json.loads(self.kubectl("get", "benchmark", name, "-o", "json")).get("status", {})
            if status.get("phase") in ("Succeeded", "Failed"):
                self.assertEqual("Succeeded", status["phase"], json.dumps(status, indent=1))
                return status
            self.assertLess(time.monotonic(), deadline, f"{name} still {status.get('phase')}")
            time.sleep(1)

    def translation_across_nodes_follows_the_local_run(self, task):
        """Task 4a or 4b at k=2, one rank per node, follows the run of one machine (the same seed,
        the same shards, a sum of two the same either way, one torch thread a rank): after each
        of three epochs its training loss is the one `ergobench run` gets here within 1e-4 (a
        gradient of the wrong scale, as SMALL's learning rate instead of AT_K2's, is 2% off
        after one), and the status's progress is its BLEU. Not to the bit: here and in a pod
        the losses part after the sixth digit (4a's first epoch, 4b's second: 1.1e-5 at most
        after three), though pods agree with pods and runs here with runs here, and so does
        the BLEU of a model this young (by 0.8% once).
        test_translation runs it here to the BLEU goal; three epochs rather than the twenty-odd
        to it (183 s on CI)."""
        name = f"translate-{task}-k2"
        manifest = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
                    "spec": {"task": task, "workers": 2, "resources": {"cpu": "1"}, "scheduling": {"ranksPerNode": 1},
                             "dataset": {"source": "synthetic"}, "maxEpochs": TRANSLATION_EPOCHS,
                             "goal": {"metric": "bleu", "target": test_translation.GOAL},
                             "hyperparameters": test_translation.small(task, 2)}}
        self.kubectl("apply", "-f", "-", input=json.dumps(manifest))
        self.addCleanup(self.kubectl, "delete", "benchmark", name, "--wait=false", check=False)
        here = self.run_locally(name, manifest, ERGOBENCH_THREADS="1")
        status = self.benchmark_status_of(name)
        kept = json.loads(self.kubectl("get", "configmap", f"{name}-results", "-o", "json"))["data"]
        there = mllog_values(kept["rank-0.mllog"])
        print(f"{task} k=2, 3 epochs: BLEU {here['eval_accuracy']} here, {there['eval_accuracy']} across nodes; "
              f"training loss {here['train_loss']} here, {there['train_loss']} across nodes")
        self.assertEqual(TRANSLATION_EPOCHS, len(here["train_loss"]))
        for loss_here, loss_there in zip(here["train_loss"], there["train_loss"], strict=True):
            self.assertAlmostEqual(loss_here, loss_there, delta=1e-4 * loss_here)
        self.assertEqual(2, len(set(status["results"]["environment"]["nodes"])))
        bleu = there["eval_accuracy"][-1]
        self.assertEqual("bleu", status["progress"]["metric"])
        self.assertAlmostEqual(bleu, status["progress"]["value"], places=12)  # written to 16 digits
        self.assertEqual(bleu, status["results"]["translation"]["bleu"])

    def run_locally(self, name, manifest, **env):
        """`ergobench run` of the manifest on this machine (free metrics ports: a local suite may
        run beside this one); rank 0's mllog values."""
        folder = tempfile.mkdtemp(prefix=f"ergobench-{name}-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, f"{name}.yaml")
        with open(path, "w") as f:
            json.dump(manifest, f)  # JSON is YAML
        run = subprocess.run([ERGOBENCH, "run", "-q", "--metrics-port", "0", path], cwd=folder, capture_output=True,
                             text=True, timeout=300, env=dict(os.environ, **env))
        self.assertEqual(0, run.returncode, run.stdout + run.stderr)
        with open(os.path.join(folder, "ergobench-results", name, "rank-0.mllog")) as f:
            return mllog_values(f.read())

    def test_gnmt_across_nodes_follows_the_run_of_one_machine(self):
        self.translation_across_nodes_follows_the_local_run("4a")

    def test_transformer_across_nodes_follows_the_run_of_one_machine(self):
        self.translation_across_nodes_follows_the_local_run("4b")

    def test_the_fmnist_k3_example_runs_as_written_one_rank_per_node_to_its_goal(self):
        with open(os.path.join(ROOT, "manifests/examples/fmnist-k3.yaml")) as f:
            example = f.read()
        self.kubectl("apply", "-f", "-", input=example)
        self.addCleanup(self.kubectl, "delete", "benchmark", "fmnist-k3", "--wait=false", check=False)
        status = self.benchmark_status_of("fmnist-k3")
        self.assertTrue(status["results"]["goalReached"], status["results"])
        self.assertEqual(["ergobench-node1", "ergobench-node2", "ergobench-node3"],
                         sorted(status["results"]["environment"]["nodes"]))
        self.assertEqual("3 workers on 3 nodes",
                         next(c["message"] for c in status["conditions"] if c["type"] == "Scheduled"))

    def test_the_cosmoflow_example_learns_to_its_goal_one_rank_per_node(self):
        """MLPerf HPC's CosmoFlow (tiny) at k=2 across two nodes, as the example is written: to
        a mean absolute error of 0.40 on the universes each pod generates alike, with the
        network's hand count of FLOPs a sample (test_cosmoflow runs k=1 and k=2 here)."""
        with open(os.path.join(ROOT, "manifests/examples/cosmoflow-tiny.yaml")) as f:
            example = f.read()
        self.kubectl("apply", "-f", "-", input=example)
        self.addCleanup(self.kubectl, "delete", "benchmark", "cosmoflow-tiny-k2", "--wait=false", check=False)
        status = self.benchmark_status_of("cosmoflow-tiny-k2")
        results = status["results"]
        self.assertTrue(results["goalReached"], results)
        self.assertEqual(2, len(set(results["environment"]["nodes"])))
        self.assertEqual(test_cosmoflow.TINY_FLOPS_PER_SAMPLE, results["flopsPerSample"])
        kept = json.loads(self.kubectl("get", "configmap", "cosmoflow-tiny-k2-results", "-o", "json"))["data"]
        errors = mllog_values(kept["rank-0.mllog"])["eval_error"]
        self.assertLessEqual(errors[-1], 0.4)
        self.assertTrue(all(e > 0.4 for e in errors[:-1]), errors)
        self.assertEqual(("mae", errors[-1]), (status["progress"]["metric"], status["progress"]["value"]))

    def running_gang(self, name, workers):
        """Waits until `workers` pods of Benchmark `name` run; {rank: pod}."""
        deadline = time.monotonic() + 120
        while True:
            pods = json.loads(self.kubectl("get", "pods", "-l", f"ergobench.io/benchmark={name}", "-o", "json"))["items"]
            running = {int(p["metadata"]["labels"]["ergobench.io/rank"]): p for p in pods
                       if p["status"].get("phase") == "Running" and "deletionTimestamp" not in p["metadata"]}
            if len(running) == workers:
                return running
            self.assertLess(time.monotonic(), deadline, f"{name}: {len(running)} of {workers} pods run")
            time.sleep(0.3)

    @cpu_lock.alone
    def test_a_link_slowed_mid_run_costs_what_the_ring_model_says_and_shows_in_the_status(self):
        """fmnist at k=2, one rank per node. Its link slowed to 10 Mbit/s mid-run, each step's
        all-reduce moves 2(k-1)/k of the gradients each way at the link's goodput: rank 0's
        communication time per step (its phase counters) becomes that plus what it waited at
        1 Gbit/s, and the communication ratio, of its counters and of the status, jumps to that
        over that plus its compute."""
        name = "links-slowed"
        self.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": "fmnist", "workers": 2, "resources": {"cpu": "600m"}, "scheduling": {"ranksPerNode": 1}}}))
        self.addCleanup(self.kubectl, "delete", "benchmark", name, "--wait=false", check=False)
        gang = self.running_gang(name, 2)
        rank0 = gang[0]["status"]["podIP"]
        slowed = gang[1]["spec"]["nodeName"]
        deadline = time.monotonic() + 60
        while steps_served(rank0) < 20:
            self.assertLess(time.monotonic(), deadline, "rank 0 took no 20 steps")
            time.sleep(0.2)
        before = per_step(phase_totals(rank0), sleep_then(2, phase_totals, rank0))
        ergobench_cluster("link", slowed, "--rate", "10Mbit")
        self.addCleanup(ergobench_cluster, "link", slowed, "--rate", "1Gbit")
        time.sleep(0.5)  # what was queued at 1 Gbit/s drains
        after = per_step(phase_totals(rank0), sleep_then(3, phase_totals, rank0))
        # The status's ratio is of the steps between two of the operator's reads of rank 0, 1 s
        # apart: a dozen steps, whose edges shift it by up to one step's communication, written
        # when the operator gets to it (a read 3.5 s after the slowdown once said 0.711 where the
        # steps said 0.804). The median of its values over the next 3 s, all of them slowed.
        status_ratios = []
        for _ in range(7):
            status_ratios.append(json.loads(self.kubectl("get", "benchmark", name, "-o", "json"))["status"]["progress"]
                                 .get("communicationRatio"))
            time.sleep(0.5)
        status_ratio = statistics.median(r for r in status_ratios if r is not None)
        ergobench_cluster("link", slowed, "--rate", "1Gbit")  # the rest of the run at full speed
        results = self.benchmark_status_of(name)["results"]

        workers = 2
        ring_bits = 2 * (workers - 1) / workers * results["memory"]["parameterBytes"] * 8
        model = ring_bits / (10e6 * GOODPUT)
        # What is not the link's: the wait for the slower rank and the latency, measured at 1 Gbit/s.
        waited = before["communication"] - ring_bits / (1e9 * GOODPUT)
        # The ring model is of the communication; the compute is the one measured before the
        # slowdown, over other steps than those judged, with the CPUs the test's alone
        # (cpu_lock.alone: 15.8 ms before and 14.9 after, 2026-11-29; beside other suites, before
        # it held them alone, CI's machine once made it 12.2 before and 17.6 after).
        ratio = (model + waited) / (model + waited + before["compute"])
        print(f"fmnist k=2, rank 1's link 1 Gbit/s -> 10 Mbit/s: communication per step {before['communication'] * 1e3:.1f} "
              f"-> {after['communication'] * 1e3:.1f} ms (ring model {model * 1e3:.1f} ms, waits {waited * 1e3:.1f} ms); "
              f"compute {before['compute'] * 1e3:.1f} -> {after['compute'] * 1e3:.1f} ms; "
              f"ratio {before['ratio']:.3f} -> {after['ratio']:.3f}, status {status_ratio} of {status_ratios} "
              f"(expected {ratio:.3f})")
        # The wait for the slower rank is hidden, or not: the rank that comes first sends its
        # half into its socket while the other computes (CI: 78.5 ms against 68.6 + 10.3; a
        # run alone: 68.6 against 68.6 + 4.5). So at least the ring model's time and at most it
        # plus the whole wait, each within 10%: the bucket lets up to 4 ms pass at once after
        # each step's compute (docs/kubernetes/cluster.md), and the wait varies step to step.
        self.assertGreater(after["communication"], 0.90 * model)
        self.assertLess(after["communication"], 1.10 * (model + waited))
        self.assertAlmostEqual(after["ratio"], ratio, delta=0.05)
        self.assertAlmostEqual(status_ratio, ratio, delta=0.08)  # the operator's 1 s windows

    def test_each_rank_takes_its_energy_from_its_own_nodes_agent(self):
        """One energy agent a node (the chart's DaemonSet), each reading its node's own RAPL
        counter (`--node-sysfs`: 100, 50 and 150 W): a rank's energy over its timed region is its
        node's power times that region's length, within the agents' 100 ms sampling."""
        name = "metered-k3"
        self.benchmark_status({
            "apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": "0a", "workers": 3, "resources": {"cpu": "500m"}, "scheduling": {"ranksPerNode": 1},
                     "hyperparameters": {"maxElements": 262144, "repetitions": 20, "warmup": 3}}})
        data = json.loads(self.kubectl("get", "configmap", f"{name}-results", "-o", "json"))["data"]
        for rank in (json.loads(data[f"rank-{r}.json"]) for r in range(3)):
            watts = NODES_WATTS[int(rank["environment"]["node"].rsplit("node", 1)[1])]
            print(f"rank {rank['rank']} on {rank['environment']['node']} ({watts:.0f} W): {rank['energyJoules']:.2f} J "
                  f"over {rank['runSeconds']:.3f} s")
            self.assertGreater(rank["runSeconds"], 1.0, "a timed region much longer than the sampling interval")
            self.assertAlmostEqual(rank["energyJoules"], watts * rank["runSeconds"], delta=watts * 2 * 0.1 + 1.0)

    def test_two_instance_types_are_two_systems_in_the_report(self):
        """Nodes 1 and 2 are test.small, node 3 test.large (setUpClass's labels): a run on each kind
        is a run on its own system, and `ergobench report`, reading the cluster, tells them apart
        as it would two cloud offers."""
        nodes = {}
        for name, instance_type, workers in (("on-small", "test.small", 2), ("on-large", "test.large", 1)):
            status = self.benchmark_status({
                "apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
                "spec": {"task": "0a", "workers": workers, "resources": {"cpu": "500m"},
                         "scheduling": {"ranksPerNode": 1,
                                        "nodeSelector": {"node.kubernetes.io/instance-type": instance_type}},
                         "hyperparameters": {"maxElements": 65536, "sizes": 2, "repetitions": 2, "warmup": 1}}})
            nodes[name] = sorted(status["results"]["system"]["nodes"])
        self.assertEqual({"on-small": ["ergobench-node1", "ergobench-node2"], "on-large": ["ergobench-node3"]}, nodes)
        report = subprocess.run([ERGOBENCH, "report", "--kubeconfig", self.kubeconfig, "--namespace", "default",
                                 "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(0, report.returncode, report.stderr)
        systems = {row["benchmark"]: row["system"] for row in json.loads(report.stdout)
                   if row["benchmark"] in ("on-small", "on-large")}
        self.assertEqual({"on-small": "test.small", "on-large": "test.large"}, systems)

    def test_a_node_lost_mid_run_restarts_the_gang_on_the_others_and_keeps_its_results(self):
        """fmnist at k=2, twice (repeats: 2), one rank per node. In the second repeat the node of a
        rank (not the operator's) hangs and its link is cut. After the controller manager's
        node-monitor-grace-period (40 s) the node is Unknown; the gang restarts on the other two
        nodes, the first repeat's results kept; never two pods of one rank; and once the node
        comes back, its kubelet stops the pod the API no longer has."""
        name = "node-lost"
        self.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": "fmnist", "workers": 2, "repeats": 2, "resources": {"cpu": "600m"},
                     "scheduling": {"ranksPerNode": 1}, "runPolicy": {"backoffLimit": 1}}}))
        self.addCleanup(self.kubectl, "delete", "benchmark", name, "--wait=false", check=False)
        deadline = time.monotonic() + 120
        while not json.loads(self.kubectl("get", "benchmark", name, "-o", "json")).get("status", {}).get("repeats"):
            self.assertLess(time.monotonic(), deadline, "the first repeat never ended")
            time.sleep(0.5)
        gang = self.running_gang(name, 2)
        operator_node = json.loads(self.kubectl("get", "pods", "-n", "ergobench-system", "-o", "json"))["items"][0][
            "spec"]["nodeName"]
        lost = next(p["spec"]["nodeName"] for p in gang.values() if p["spec"]["nodeName"] != operator_node)
        index = lost.rsplit("node", 1)[1]
        ergobench_cluster("fail", index)
        self.addCleanup(self.wait_until_ready, lost)
        self.addCleanup(ergobench_cluster, "recover", index, check=False)
        self.assertRegex(ergobench_cluster("status").stdout, rf"{lost}\s.*hung, link cut")
        failed_at = time.monotonic()

        most_per_rank, restarted_after = 0, None
        deadline = time.monotonic() + 240
        while True:
            status = json.loads(self.kubectl("get", "benchmark", name, "-o", "json")).get("status", {})
            if restarted_after is None and status.get("restarts") == 1:
                restarted_after = time.monotonic() - failed_at
            if status.get("phase") in ("Succeeded", "Failed"):
                break
            pods = json.loads(self.kubectl("get", "pods", "-l", f"ergobench.io/benchmark={name}", "-o", "json"))["items"]
            ranks = [p["metadata"]["labels"]["ergobench.io/rank"] for p in pods]
            most_per_rank = max([most_per_rank] + [ranks.count(r) for r in ranks])
            self.assertLess(time.monotonic(), deadline, f"{name} still {status.get('phase')}")
            time.sleep(0.5)
        print(f"{lost} hung and cut: the gang restarted {restarted_after:.1f} s later")
        self.assertEqual("Succeeded", status["phase"], json.dumps(status, indent=1))
        self.assertEqual(1, status["restarts"])
        self.assertEqual([0, 1], [r["repeat"] for r in status["results"]["repeats"]])
        self.assertNotIn(lost, status["results"]["environment"]["nodes"])
        self.assertEqual(1, most_per_rank, "two pods of one rank at once")
        # The control plane's verdict, not the operator's guess: the node is Unknown 40 s after its
        # last lease renewal (every 10 s), so 30-40 s after it hung; the operator sees it at its
        # pod's mark, or at its next look (kLostNodeRecheck, 10 s).
        self.assertGreater(restarted_after, 30)
        self.assertLess(restarted_after, 60)
        events = self.kubectl("get", "events", "--field-selector", f"involvedObject.name={name},reason=Restarting",
                              "-o", "jsonpath={.items[*].message}")
        self.assertRegex(events, rf"rank \d \(pod {name}-worker-\d\) failed: pod {name}-worker-\d was lost with its "
                                 rf"node: node {lost} stopped reporting \(NodeStatusUnknown: Kubelet stopped posting "
                                 r"node status\.\); restarting all workers \(restart 1 of 1\)")

        ergobench_cluster("recover", index)
        self.wait_until_ready(lost)
        deadline = time.monotonic() + 60
        while runner_processes(lost):
            self.assertLess(time.monotonic(), deadline, f"the lost pod still runs on {lost} after it came back")
            time.sleep(0.5)

    def wait_until_ready(self, node):
        deadline = time.monotonic() + 60
        while not is_ready(json.loads(self.kubectl("get", "node", node, "-o", "json"))):
            self.assertLess(time.monotonic(), deadline, f"{node} not Ready again")
            time.sleep(0.5)

    @cpu_lock.alone
    def test_0a_one_rank_per_node_reaches_the_link_rate_over_gloo_and_mpi(self):
        """A ring all-reduce's bus bandwidth is what each rank's link carries each way: at
        messages of 16-64 MiB, over 1 Gbit/s links, TCP's goodput on the link."""
        busbw = {}
        for backend in ("gloo", "mpi"):
            status = self.benchmark_status({
                "apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": f"links-{backend}"},
                # A whole CPU: an MPI rank polls while it waits, and under a quota below one CPU
                # the kernel throttles it mid-transfer (0.70-0.79 of the link at 500m; gloo,
                # which blocks, is at the link's rate either way: bench/RESULTS.md).
                "spec": {"task": "0a", "workers": 3, "backend": backend, "resources": {"cpu": "1"},
                         "scheduling": {"ranksPerNode": 1},
                         "hyperparameters": {"minElements": 4194304, "maxElements": 16777216, "sizes": 3,
                                             "repetitions": 5, "warmup": 1}}})
            busbw[backend] = status["results"]["allreduce"]["peakBusBandwidthBytesPerSecond"] * 8 / 1e6
        print(f"0a k=3 over 1 Gbit/s links: busbw gloo {busbw['gloo']:.1f} Mbit/s, mpi {busbw['mpi']:.1f} Mbit/s "
              f"(TCP goodput {1000 * GOODPUT:.1f})")
        self.assert_rate(busbw["gloo"], 1000, BUSBW_TOLERANCE)
        self.assert_rate(busbw["mpi"], 1000, MPI_BUSBW_TOLERANCE)


@unittest.skipUnless(*NEEDS)
class ClusterDownTest(unittest.TestCase):
    """The last of the cluster suites (tests/integration/CMakeLists.txt): `ergobench cluster down`
    ends the shared cluster with a node hung (`cluster fail`), and leaves nothing."""

    def test_down_leaves_no_process_namespace_link_mount_cgroup_or_rule(self):
        shared = SharedCluster.get()
        # The kubelet and the API server restarted (test_operator): the commands still find the cluster.
        self.assertEqual(0, ergobench_cluster("status", check=False).returncode)
        with open(os.path.join(shared.workdir, "cluster.json")) as f:
            state = json.load(f)
        procs = shared.let_go()
        self.addCleanup(ergobench_cluster, "down", check=False)  # what a failure below leaves
        # A hung node's processes do not die of SIGKILL until thawed: `down` must thaw them.
        ergobench_cluster("fail", "3")
        down = ergobench_cluster("down", check=False)
        self.assertEqual(0, down.returncode, down.stderr)
        for proc in procs:
            proc.wait(timeout=30)
        self.assertEqual([], [name for name, (pid, start) in state["processes"].items()
                              if process_start_time(pid) == start])
        self.assertEqual(set(), node_namespaces())
        links = subprocess.run(["ip", "-o", "link", "show"], stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual([], re.findall(r" (ebsw0\S*):", links))
        with open("/proc/mounts") as f:
            self.assertEqual([], [line for line in f if shared.workdir in line])
        self.assertEqual([], [h for h in os.listdir("/sys/fs/cgroup/cpu") if h.startswith("ergobench-node")])
        forward = subprocess.run(["iptables", "-S", "FORWARD"], stdout=subprocess.PIPE, text=True).stdout
        self.assertNotIn("ergobench", forward)
        self.assertEqual(3, ergobench_cluster("status", check=False).returncode)


if __name__ == "__main__":
    unittest.main()
