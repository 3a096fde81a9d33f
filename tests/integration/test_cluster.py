"""The test cluster itself (tests/cluster/cluster.py): a run killed mid-suite, or a machine that
restarted under one, must not leave the next cluster unable to start. containerd's image
store outlives clusters, and with it the containers of one that never tore down."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "../cluster")))

from cluster import Cluster, process_start_time, shims_of  # noqa: E402


HOST_PORT = 19810


def sleeper_pod(name):
    """A pod with a hostPort, as the node energy agent has: its rule outlives a killed cluster."""
    container = {"name": "pause", "image": Cluster.pause_image(), "imagePullPolicy": "Never",
                 "ports": [{"containerPort": HOST_PORT, "hostPort": HOST_PORT}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [container], "terminationGracePeriodSeconds": 0}}


def host_port_rules():
    """portmap's DNAT rules for HOST_PORT in the node's nat table."""
    rules = subprocess.run(["iptables-save", "-t", "nat"], check=True, stdout=subprocess.PIPE, text=True).stdout
    return re.findall(rf"--dport {HOST_PORT} -j DNAT --to-destination (\S+)", rules)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("buildah"),
                     "a cluster node needs root, and its pause image buildah (scripts/install-deps.sh --tests)")
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
        host_netns = set(os.listdir("/var/run/netns")) if os.path.isdir("/var/run/netns") else set()
        first = self.start_with_a_running_pod("first")
        self.addCleanup(first.stop)  # what is still its own if the test fails early
        # What a run killed with SIGKILL leaves: the lock released, nothing torn down, every
        # process of the cluster and its pods still running.
        first.lock.close()
        first_shims = shims_of(first.containerd_socket)
        self.assertTrue(first_shims)

        second = self.start_with_a_running_pod("second")
        first_alive = [p.pid for p in first.procs.values() if p.poll() is None]
        first.procs.clear()  # the second ended them: nothing is left for the first's cleanup
        try:
            # The kubelet never saw the first cluster's sandboxes: when it does, its start
            # races its own garbage collector (kubelet 1.20: "no PodsandBox found", exit 255).
            with open(os.path.join(second.workdir, "containerd.log")) as f:
                self.assertNotIn("RemovePodSandbox", f.read())
            self.assertEqual([], shims_of(first.containerd_socket))
            self.assertEqual([], [pid for pid in first_shims if process_start_time(pid) is not None])
            self.assertEqual([], first_alive)
            with open("/proc/mounts") as f:
                self.assertEqual([], [line for line in f if first.workdir + "/" in line])
            # The first's hostPort rule went with it: only the second's pod is reached.
            self.assertEqual(len(host_port_rules()), 1, host_port_rules())
        finally:
            second.stop()
        self.assertEqual([], host_port_rules())
        # Pods' network namespaces live, and go, with their cluster's work dir.
        now = set(os.listdir("/var/run/netns")) if os.path.isdir("/var/run/netns") else set()
        self.assertEqual(set(), now - host_netns)


if __name__ == "__main__":
    unittest.main()
