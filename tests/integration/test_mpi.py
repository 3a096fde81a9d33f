"""OpenMPI across pods on the real cluster, as mpi-operator v2 runs it: k worker pods serving
sshd as the runner's user, a launcher pod running mpirun over ssh with the Benchmark's own
keys (a Secret the operator makes), the hostfile in the ConfigMap. Compared with gloo on the
same node and the same seed."""

import base64
import json
import os
import subprocess
import tempfile
import time
import unittest
import urllib.request

from cluster_suite import NamespacedClusterSuite, WORKER_CPU
from harness import BIN_DIR

ERGOBENCH = os.path.join(BIN_DIR, "ergobench")
ONE_NODE = {"ranksPerNode": 8}


def benchmark(name, task, backend, workers=2, cpu=WORKER_CPU, **spec):
    spec = {"task": task, "workers": workers, "backend": backend, "resources": {"cpu": cpu},
            "scheduling": ONE_NODE, **spec}
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name}, "spec": spec}


class MpiTest(NamespacedClusterSuite):

    def gang_state(self, name):
        """Each pod's phase and last log lines, and the Benchmark's status: what a failure shows."""
        out = [json.dumps(self.status(name), indent=1)]
        for pod in self.pods(name):
            pod_name = pod["metadata"]["name"]
            out.append(f"--- {pod_name}: {pod['status'].get('phase')} "
                       f"{json.dumps(pod['status'].get('containerStatuses', []))[:1500]}")
            out.append(self.cp.kubectl("logs", "-n", self.ns, pod_name, "--tail=30", check=False).stdout)
        return "\n".join(out)

    def run_to_end(self, obj, timeout=300, first_step=False):
        """`first_step`: print the launch overhead, from `kubectl apply` to rank 0's first step in
        status (the operator polls progress each second)."""
        applied = time.monotonic()
        self.apply(obj)
        name = obj["metadata"]["name"]
        if first_step:
            self.cp.wait_for(lambda: self.status(name).get("progress", {}).get("step", 0) > 0, 120, f"{name}'s first step")
            print(f"{name}: apply to first step {time.monotonic() - applied:.1f} s")
        try:
            status = self.wait_phase(name, ["Succeeded", "Failed"], timeout=timeout)
        except AssertionError:
            print(self.gang_state(name))
            raise
        self.assertEqual(status["phase"], "Succeeded", self.gang_state(name))
        return status

    def kept_ranks(self, name, workers):
        data = self.cp.get_json("-n", self.ns, "configmap", f"{name}-results")["data"]
        return [json.loads(data[f"rank-{r}.json"]) for r in range(workers)]

    def test_fmnist_k2_over_mpi_reaches_its_goal_with_gloos_parameters(self):
        """Same seed, same arithmetic (a sum of two is the same either way), another transport:
        the final parameters are the same to the bit."""
        mpi = self.run_to_end(benchmark("fm-mpi", "fmnist", "mpi"), first_step=True)
        self.assertTrue(mpi["results"]["goalReached"], mpi["results"])
        self.assertEqual(mpi["workers"]["succeeded"], 2)
        ranks = self.kept_ranks("fm-mpi", 2)
        self.assertEqual({r["backend"] for r in ranks}, {"mpi"})
        self.assertTrue(ranks[0]["environment"]["mpiVersion"].startswith("Open MPI"), ranks[0]["environment"])
        gloo = self.run_to_end(benchmark("fm-gloo", "fmnist", "gloo"), first_step=True)
        gloo_ranks = self.kept_ranks("fm-gloo", 2)
        print(f"fmnist k=2: mpi {mpi['results']['epochs']} epochs, TTA {mpi['results']['timeToAccuracySeconds']:.1f} s; "
              f"gloo {gloo['results']['epochs']} epochs, TTA {gloo['results']['timeToAccuracySeconds']:.1f} s")
        self.assertEqual(mpi["results"]["epochs"], gloo["results"]["epochs"])
        self.assertEqual([r["parameterDigest"] for r in ranks], [r["parameterDigest"] for r in gloo_ranks])
        self.assertEqual(ranks[0]["parameterDigest"], ranks[1]["parameterDigest"])

        # The launcher only launched: its pod is gone with the workers (cleanPodPolicy All).
        self.wait_workers_stopped("fm-mpi")

    def test_task_0a_k3_over_mpi_and_gloo_side_by_side(self):
        """The all-reduce sweep over both transports on the same node; the report puts their
        bus bandwidth side by side."""
        # 1, 4, 16 and 64 MiB of float32: the sizes docs/kubernetes/mpi.md quotes.
        sweep = {"minElements": 1 << 18, "maxElements": 1 << 24, "sizes": 4, "repetitions": 5, "warmup": 1}
        mpi = self.run_to_end(benchmark("sweep-mpi", "0a", "mpi", workers=3, cpu="500m", hyperparameters=sweep))
        gloo = self.run_to_end(benchmark("sweep-gloo", "0a", "gloo", workers=3, cpu="500m", hyperparameters=sweep))
        self.assertEqual(mpi["workers"]["succeeded"], 3)
        for status in (mpi, gloo):
            self.assertGreater(status["results"]["allreduce"]["peakBusBandwidthBytesPerSecond"], 0, status["results"])
        cluster = ["--cluster", "--kubeconfig", self.cp.admin_kubeconfig, "--namespace", self.ns]
        report = subprocess.run([ERGOBENCH, "report", *cluster, "--format", "json"], capture_output=True, text=True)
        self.assertEqual(report.returncode, 0, report.stderr)
        rows = {r["backend"]: r for r in json.loads(report.stdout)}
        self.assertEqual(set(rows), {"mpi", "gloo"})
        for backend, status in (("mpi", mpi), ("gloo", gloo)):
            self.assertEqual(rows[backend]["peakBusBandwidthBytesPerSecond"],
                             status["results"]["allreduce"]["peakBusBandwidthBytesPerSecond"])
        print(subprocess.run([ERGOBENCH, "report", *cluster], capture_output=True, text=True).stdout)
        for name in ("sweep-gloo", "sweep-mpi"):
            table = json.loads(self.cp.get_json("-n", self.ns, "configmap", f"{name}-results")["data"]["allreduce.json"])
            self.assertEqual([row["bytes"] for row in table["rows"]], [1 << 20, 1 << 22, 1 << 24, 1 << 26])
            print(f"{name}: busbw " + ", ".join(f"{row['bytes'] >> 20} MiB {row['busbwBytesPerSecond'] / 1e9:.3f} GB/s"
                                                for row in table["rows"]))

    def test_a_killed_worker_restarts_the_gang_and_leaves_nothing_behind(self):
        """SIGKILL to a worker's main process, as the OOM killer would: the rank is named, the whole
        gang (launcher too) is replaced within backoffLimit, the new gang runs to the goal, and no
        process of the first is left on the node."""
        self.apply(benchmark("killed", "fmnist", "mpi", maxEpochs=3, runPolicy={"backoffLimit": 1}))
        self.cp.wait_for(lambda: self.status("killed").get("progress", {}).get("step", 0) > 0, 120, "killed to train")
        first = {p["metadata"]["uid"] for p in self.pods("killed")}
        self.assertEqual(len(first), 3)
        self.kill_container(self.ns, "killed-worker-1")
        status = self.wait_phase("killed", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", self.gang_state("killed"))
        self.assertEqual(status["restarts"], 1)
        events = [e["message"] for e in self.cp.get_json("-n", self.ns, "events")["items"] if e["reason"] == "Restarting"]
        self.assertEqual(len(events), 1, events)
        self.assertIn("rank 1 (pod killed-worker-1) failed", events[0])
        self.assertIn("137", events[0])
        self.wait_workers_stopped("killed")
        self.assertFalse(first & {p["metadata"]["uid"] for p in self.pods("killed")})
        # No rank, daemon or sshd of either gang outlives its pod.
        self.cp.wait_for(lambda: not self.node_processes(), 30, "no MPI process on the node",
                         context=self.node_processes)

    @staticmethod
    def node_processes():
        """The pods' MPI processes still on the node: the runner's user's sshd, mpirun's daemon,
        ergobench-mpi and the runner (its name as the kernel keeps it, cut at 15 characters)."""
        found = subprocess.run(["pgrep", "-a", "-u", "65532", "-x", "sshd|orted|ergobench-mpi|ergobench-runne"],
                               capture_output=True, text=True)
        return found.stdout.splitlines()

    def test_the_keys_stay_in_their_secret_and_sshd_takes_no_other(self):
        """The Benchmark's keys appear in no log, Event or status; the workers' sshd refuses a
        password and any key but the Benchmark's, which it takes (so the refusals are not a
        network failure)."""
        self.apply(benchmark("keys", "fmnist", "mpi", maxEpochs=3, goal={"target": 0.99}))
        self.cp.wait_for(lambda: self.status("keys").get("progress", {}).get("step", 0) > 0, 120, "keys to train")
        # Every rank serves its metrics on its own pod; the launcher only launched.
        for pod in self.pods("keys"):
            if pod["metadata"]["name"] == "keys-launcher":
                continue
            with urllib.request.urlopen(f"http://{pod['status']['podIP']}:9400/metrics", timeout=5) as r:
                metrics = r.read().decode()
            rank = pod["metadata"]["labels"]["ergobench.io/rank"]
            self.assertRegex(metrics, rf'ergobench_samples_total{{[^}}]*backend="mpi"[^}}]*rank="{rank}"')
        # Named by the Benchmark's uid: the operator never reads it back (no get on Secrets).
        ssh_secret = f"keys-ssh-{self.benchmark('keys')['metadata']['uid']}"
        secret = self.cp.get_json("-n", self.ns, "secret", ssh_secret)
        self.assertEqual(secret["metadata"]["ownerReferences"][0]["name"], "keys")
        self.assertTrue(secret["immutable"])
        files = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
        private_lines = [line for key in ("id_ed25519", "ssh_host_ed25519_key")
                         for line in files[key].splitlines() if "PRIVATE KEY" not in line]
        worker = next(p for p in self.pods("keys") if p["metadata"]["name"] == "keys-worker-0")
        ip = worker["status"]["podIP"]
        with tempfile.TemporaryDirectory() as home:
            ours, other = os.path.join(home, "ours"), os.path.join(home, "other")
            with open(ours, "w") as f:
                f.write(files["id_ed25519"])
            os.chmod(ours, 0o600)
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other], check=True)
            base = ["ssh", "-F", "/dev/null", "-p", "2222", "-l", "nonroot", "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={home}/known_hosts",
                    "-o", "ConnectTimeout=10"]
            password = subprocess.run(base + ["-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password",
                                              ip, "true"], capture_output=True, text=True, timeout=30)
            self.assertNotEqual(password.returncode, 0)
            self.assertIn("Permission denied (publickey)", password.stderr)
            stranger = subprocess.run(base + ["-o", "IdentitiesOnly=yes", "-i", other, ip, "true"],
                                      capture_output=True, text=True, timeout=30)
            self.assertNotEqual(stranger.returncode, 0)
            self.assertIn("Permission denied (publickey)", stranger.stderr)
            owner = subprocess.run(base + ["-o", "IdentitiesOnly=yes", "-i", ours, ip, "id", "-u"],
                                   capture_output=True, text=True, timeout=30)
            self.assertEqual((owner.returncode, owner.stdout.strip()), (0, "65532"), owner.stderr)
            # A worker holds the keys its sshd uses, not the launcher's client key.
            held = subprocess.run(base + ["-o", "IdentitiesOnly=yes", "-i", ours, ip, "ls", "/etc/ergobench-ssh"],
                                  capture_output=True, text=True, timeout=30)
            self.assertEqual(held.stdout.split(), ["authorized_keys", "ssh_host_ed25519_key"], held.stderr)
            with open(os.path.join(home, "known_hosts")) as f:  # the host key the Secret holds
                self.assertIn(files["known_hosts"].split()[2], f.read())
        texts = [json.dumps(self.benchmark("keys")), json.dumps(self.cp.get_json("-n", self.ns, "events")),
                 self.operator_logs(tail=2000)]
        texts += [self.cp.kubectl("logs", "-n", self.ns, p["metadata"]["name"], check=False).stdout
                  for p in self.pods("keys")]
        for line in private_lines:
            for text in texts:
                self.assertNotIn(line, text)
        self.cp.kubectl("delete", "-n", self.ns, "benchmark", "keys", "--wait=true")
        self.cp.wait_for(lambda: self.cp.kubectl("get", "-n", self.ns, "secret", ssh_secret, check=False).returncode != 0,
                         60, "the Secret to go with its Benchmark")


if __name__ == "__main__":
    unittest.main()
