"""ergobench-operator on a real cluster (kube/cluster: kubelet, containerd,
kube-scheduler, kube-proxy and the control plane, all v1.20 from Debian's source package),
installed by its Helm chart: the operator and the runners run as containers of the images
images/build.sh makes, under the chart's ServiceAccount and RBAC."""

import base64
import hashlib
import hmac
import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

import yaml

from cluster_suite import (NODE_NAME, OPERATOR_NAMESPACE, RELEASE, VERSION, WORKER_CPU, NamespacedClusterSuite,
                           container_id, seconds_text, si)
from control_plane import free_port
from harness import BIN_DIR

OPERATOR = os.path.join(BIN_DIR, "ergobench-operator")
SA = f"system:serviceaccount:{OPERATOR_NAMESPACE}:{RELEASE}"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))


# The cluster has one node: a gang shares it, where by default each rank needs its own.
ONE_NODE = {"ranksPerNode": 8}


def fmnist(name, workers=2, run_policy=None, goal=None):
    """The fmnist example, sized so that k=2 fits on the node."""
    spec = {"task": "fmnist", "workers": workers, "backend": "gloo", "resources": {"cpu": WORKER_CPU},
            "scheduling": ONE_NODE}
    if run_policy:
        spec["runPolicy"] = run_policy
    if goal:
        spec["goal"] = goal
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name}, "spec": spec}


class OperatorTest(NamespacedClusterSuite):
    def wait_training(self, name):
        """Until status shows rank 0 past its first steps: the gang is training, not starting."""
        self.cp.wait_for(lambda: self.status(name).get("progress", {}).get("step", 0) > 0, 90, f"{name} to train")

    def kill_rank(self, name, rank):
        """SIGKILL the rank's process, as the OOM killer or a node failure would."""
        self.kill_container(self.ns, f"{name}-worker-{rank}")

    def events(self):
        """The operator's events about Benchmarks (the kubelet's about pods share reasons)."""
        return {(e["reason"], e["type"]) for e in self.cp.get_json("-n", self.ns, "events")["items"]
                if e["involvedObject"]["kind"] == "Benchmark"}

    # --- the tests --------------------------------------------------------------------
    def test_rbac_is_least_privilege(self):
        can = lambda *args: self.cp.kubectl("auth", "can-i", *args, f"--as={SA}", check=False).stdout.strip()
        self.assertEqual(can("create", "pods", "-n", self.ns), "yes")
        self.assertEqual(can("update", "benchmarks.ergobench.io", "--subresource=status", "-n", self.ns), "yes")
        self.assertEqual(can("list", "secrets", "-n", self.ns), "no")
        self.assertEqual(can("watch", "secrets", "-n", self.ns), "no")
        self.assertEqual(can("create", "secrets", "-n", self.ns), "yes")  # ssh keys, artifact tokens
        self.assertEqual(can("get", "secrets", "-n", self.ns), "no")  # never read back: named by uid
        # In its own namespace, the one Secret it reads: its artifact key.
        self.assertEqual(can("get", "secret/ergobench-artifact-key", "-n", OPERATOR_NAMESPACE), "yes")
        self.assertEqual(can("get", "secret/ergobench-token", "-n", OPERATOR_NAMESPACE), "no")
        self.assertEqual(can("list", "secrets", "-n", OPERATOR_NAMESPACE), "no")
        self.assertEqual(can("update", "benchmarks.ergobench.io", "-n", self.ns), "no")
        self.assertEqual(can("delete", "services", "-n", self.ns), "no")
        self.assertEqual(can("update", "leases", "-n", self.ns), "no")
        self.assertEqual(can("update", "leases", "-n", "ergobench-system"), "yes")

    def test_schema_rejects_invalid_benchmarks(self):
        cases = [
            ("spec.workers", {"task": "0a", "workers": 0}),
            ("spec.backend", {"task": "0a", "backend": "tcp"}),
            ("spec.task", {"workers": 2}),
            ("spec.runPolicy.cleanPodPolicy", {"task": "0a", "runPolicy": {"cleanPodPolicy": "Some"}}),
            ("spec.scheduling.ranksPerNode", {"task": "0a", "scheduling": {"ranksPerNode": 0}}),
            # The audit's crash: 600 two-byte characters. Now the schema's maxLength refuses it.
            ("spec.task", {"task": "\u00e9" * 600}),
        ]
        for field, spec in cases:
            obj = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": "bad"},
                   "spec": spec}
            # --validate=false: the API server itself must reject it, not kubectl.
            result = self.cp.kubectl("apply", "--validate=false", "-n", self.ns, "-f", "-", input=json.dumps(obj),
                                     check=False)
            self.assertNotEqual(result.returncode, 0, field)
            self.assertIn(field, result.stderr, field)
        explain = self.cp.kubectl("explain", "benchmark.spec.runPolicy").stdout
        self.assertIn("backoffLimit", explain)
        self.assertIn("Gang restarts", explain)

    def test_invalid_for_the_operator_fails_with_a_condition(self):
        obj = fmnist("typo")
        obj["spec"]["hyperparameters"] = {"learningRat": 0.1}
        self.apply(obj)
        status = self.wait_phase("typo", ["Failed"], timeout=30)
        failed = self.condition(status, "Failed")
        self.assertEqual(failed["reason"], "Invalid")
        self.assertIn("spec.hyperparameters.learningRat", failed["message"])
        self.assertEqual(failed["observedGeneration"], 1)
        self.assertEqual(self.pods("typo"), [])
        self.assertIn(("Invalid", "Warning"), self.events())
        # Terminal until the user edits it: the next generation starts over.
        fixed = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": "typo"},
                 "spec": {"task": "0a", "workers": 2, "backend": "gloo", "resources": {"cpu": WORKER_CPU},
                          "scheduling": ONE_NODE,
                          "hyperparameters": {"maxElements": 4096, "repetitions": 5, "warmup": 1}}}
        self.cp.kubectl("replace", "-n", self.ns, "-f", "-", input=json.dumps(fixed))
        status = self.wait_phase("typo", ["Succeeded"], timeout=120)
        self.assertEqual(self.condition(status, "Succeeded")["observedGeneration"], 2)
        self.assertIsNone(self.condition(status, "Failed"))

    def test_non_ascii_errors_past_an_events_limit_do_not_crash_the_operator(self):
        """Errors quoting non-ASCII text run past the 1 KiB an Event holds; the cut once split a
        character and the encoder's exception ended the operator."""
        obj = fmnist("accents")
        obj["spec"]["hyperparameters"] = {f"taux{i}" + "\u00e9" * 150: 0.1 for i in range(8)}
        self.apply(obj)
        status = self.wait_phase("accents", ["Failed"], timeout=30)
        self.assertEqual(self.condition(status, "Failed")["reason"], "Invalid")
        self.assertIn("\u00e9", self.condition(status, "Failed")["message"])
        self.cp.wait_for(lambda: ("Invalid", "Warning") in self.events(), 30, "the Invalid event")
        self.assertEqual(self.operator_restarts(), self.restarts_before, "the operator must survive")
        self.apply(fmnist("after", workers=1))
        self.wait_phase("after", ["Running", "Succeeded"], timeout=60)

    def test_an_image_the_policy_forbids_fails_once_without_pods(self):
        obj = fmnist("foreign", workers=1)
        obj["spec"]["image"] = "docker.io/someone/miner:latest"
        self.apply(obj)
        status = self.wait_phase("foreign", ["Failed"], timeout=30)
        failed = self.condition(status, "Failed")
        self.assertEqual(failed["reason"], "PolicyViolation")
        self.assertIn("policy.allowedImages", failed["message"])
        self.assertEqual(self.pods("foreign"), [])

    def test_worker_pods_as_stored_meet_the_restricted_profile(self):
        """The pods the API server stored (after its defaulting), checked against the Pod Security
        Standards' restricted profile, and run as such by the kubelet: non-root, on a read-only
        root filesystem. (This v1.20 server predates PodSecurity admission.)"""
        slow = fmnist("restricted", workers=1, goal={"target": 0.99})
        slow["spec"]["maxEpochs"] = 3  # a goal out of reach: it trains long enough to look inside
        self.apply(slow)
        self.wait_phase("restricted", ["Running"], timeout=90)
        inside = self.cp.kubectl("exec", "-n", self.ns, "restricted-worker-0", "--", "sh", "-c",
                                 "id -u; touch /probe 2>&1; cat /proc/self/status | grep ^CapEff", check=False).stdout
        self.assertIn("65532\n", inside)
        self.assertIn("Read-only file system", inside)
        self.assertIn("CapEff:\t0000000000000000", inside)
        (pod,) = self.pods("restricted")
        spec = pod["spec"]
        self.assertFalse(spec["automountServiceAccountToken"])
        self.assertTrue(spec["securityContext"]["runAsNonRoot"])
        self.assertEqual(spec["securityContext"]["seccompProfile"], {"type": "RuntimeDefault"})
        for container in spec["containers"]:
            security = container["securityContext"]
            self.assertFalse(security["allowPrivilegeEscalation"])
            self.assertTrue(security["readOnlyRootFilesystem"])
            self.assertEqual(security["capabilities"], {"drop": ["ALL"]})
            self.assertEqual(container["resources"]["requests"], container["resources"]["limits"])
        self.assertEqual(pod["status"].get("qosClass"), "Guaranteed")
        for volume in spec["volumes"]:
            # Of the restricted profile's volume types, these; the Secret is rank 0's artifact token.
            self.assertTrue({"configMap", "emptyDir", "secret"} & set(volume), volume)
            if "emptyDir" in volume:
                self.assertIn("sizeLimit", volume["emptyDir"])
            if "secret" in volume:
                self.assertEqual(volume["secret"]["secretName"], f"restricted-artifacts-{pod['metadata']['ownerReferences'][0]['uid']}")

    def test_a_refused_create_is_shown_and_retried(self):
        """A quota refuses the second worker (403): the Benchmark says so in the API's words, and
        goes on once the quota allows it."""
        quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "one-pod"}, "spec": {"hard": {"pods": "1"}}}
        self.apply(quota)
        # Until the quota controller has counted the namespace, admission refuses every pod with
        # "status unknown for quota"; the refusal this test is about comes after that.
        self.cp.wait_for(lambda: self.cp.get_json("-n", self.ns, "resourcequota", "one-pod")
                         .get("status", {}).get("hard", {}).get("pods") == "1", 30, "the quota's first count")
        self.apply(fmnist("quota"))
        self.cp.wait_for(lambda: (self.condition(self.status("quota"), "Created") or {}).get("reason") == "CreateForbidden",
                         60, "the refusal in status")
        created = self.condition(self.status("quota"), "Created")
        self.assertEqual(created["status"], "False")
        self.assertIn("exceeded quota", created["message"])
        self.cp.kubectl("delete", "-n", self.ns, "resourcequota", "one-pod")
        status = self.wait_phase("quota", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        self.assertEqual(self.condition(status, "Created")["status"], "True")

    def test_a_namesake_does_not_adopt_stale_children(self):
        """Children left by a deleted Benchmark of the same name (orphaned here; in general,
        waiting for garbage collection) are not adopted: the new one waits, says why, and runs its
        own spec once they are gone."""
        first = fmnist("same", workers=1)
        first["spec"]["maxEpochs"] = 1
        self.apply(first)
        self.wait_phase("same", ["Running", "Succeeded"], timeout=60)
        self.cp.kubectl("delete", "-n", self.ns, "benchmark", "same", "--cascade=orphan")
        second = fmnist("same", workers=1)
        second["spec"]["maxEpochs"] = 2
        self.apply(second)
        self.cp.wait_for(
            lambda: (self.condition(self.status("same"), "Created") or {}).get("reason") == "WaitingForStaleChildren",
            60, "the wait for stale children in status")
        self.assertIn("same-workers", self.condition(self.status("same"), "Created")["message"])
        # Gone at once (the pod forced: the kubelet's removal of a pod's object takes 10-60 s
        # here, and the test is of the operator, not of the kubelet).
        for kind, name in (("service", "same-workers"), ("configmap", "same-config")):
            self.cp.kubectl("delete", "-n", self.ns, kind, name, "--wait=true")
        self.cp.kubectl("delete", "-n", self.ns, "pod", "same-worker-0", "--grace-period=0", "--force")
        status = self.wait_phase("same", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        config = self.cp.get_json("-n", self.ns, "configmap", "same-config")
        self.assertEqual(config["metadata"]["ownerReferences"][0]["uid"], self.benchmark("same")["metadata"]["uid"])
        self.assertEqual(json.loads(config["data"]["benchmark.json"])["spec"]["maxEpochs"], 2)

    def test_a_standby_is_ready_and_the_leader_can_be_evicted(self):
        """HA as the chart offers it: two replicas and a PodDisruptionBudget of one. Readiness
        does not wait for the lease, so the standby is Ready and the budget lets the leader be
        evicted (a drain's eviction; a whole drain cannot end on one node, where the evicted
        pod's replacement has nowhere to go); the standby reconciles nothing until it leads."""
        self.addCleanup(self.install_operator)  # back to one replica, no budget
        leader = self.leader()
        self.install_operator(replicaCount=2, podDisruptionBudget={"enabled": True, "minAvailable": 1})
        (standby,) = [p["metadata"]["name"] for p in self.operator_pods() if p["metadata"]["name"] != leader]
        self.apply(fmnist("led", workers=1))
        self.wait_phase("led", ["Running", "Succeeded"], timeout=90)
        self.assertEqual(self.leader(), leader)
        self.assertNotIn("became the leader", self.pod_log(standby))
        eviction = {"apiVersion": "policy/v1beta1", "kind": "Eviction",
                    "metadata": {"name": leader, "namespace": OPERATOR_NAMESPACE}}
        self.cp.kubectl("create", "--raw", f"/api/v1/namespaces/{OPERATOR_NAMESPACE}/pods/{leader}/eviction",
                        "-f", "-", input=json.dumps(eviction))  # refused (429) if the budget forbids it
        # The evicted leader lets the lease go as it stops; the standby, or the replacement pod
        # if it asks first, takes it: either way no Benchmark waits out a lease duration.
        self.cp.wait_for(lambda: self.leader() not in ("", leader) and self.leader() in
                         {p["metadata"]["name"] for p in self.operator_pods()}, 20, "another pod to take over",
                         lambda: f"leader {self.leader()!r}, standby {standby}")
        self.apply(fmnist("taken-over", workers=1))
        self.wait_phase("taken-over", ["Running", "Succeeded"], timeout=90)

    def test_a_rolling_update_of_the_operator_completes(self):
        """The Deployment's default strategy (maxUnavailable 0) needs the new pod Ready while the
        old one still leads; it was a deadlock when readiness waited for the lease."""
        old = {p["metadata"]["name"] for p in self.operator_pods()}
        self.cp.kubectl("rollout", "restart", "-n", OPERATOR_NAMESPACE, f"deployment/{RELEASE}")
        self.wait_operator_rolled_out(timeout=120)
        self.cp.wait_for(lambda: {p["metadata"]["name"] for p in self.operator_pods()}.isdisjoint(old)
                         and len(self.operator_pods()) == 1, 60, "the old operator pod to go")
        self.cp.wait_for(lambda: self.leader() in {p["metadata"]["name"] for p in self.operator_pods()}, 30,
                         "the new pod to lead")
        self.apply(fmnist("after-rollout", workers=1))
        self.wait_phase("after-rollout", ["Running", "Succeeded"], timeout=90)

    def pod_log(self, name):
        return self.cp.kubectl("logs", "-n", OPERATOR_NAMESPACE, name, check=False).stdout

    def test_only_the_kubeconfigs_ca_is_trusted(self):
        """With a certificate authority in the kubeconfig, the system's trust store is not
        consulted: here the system store (SSL_CERT_FILE) holds the cluster's CA and the
        kubeconfig another one, and the operator must refuse the API server's certificate."""
        other = os.path.join(self.tmp, "other-ca")
        os.makedirs(other, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
                        "ca.crt", "-days", "1", "-subj", "/CN=unrelated-ca"], cwd=other, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sa_kubeconfig = self.cp.service_account_kubeconfig(OPERATOR_NAMESPACE, RELEASE,
                                                           os.path.join(self.tmp, "operator.kubeconfig"))
        with open(sa_kubeconfig) as f:
            config = yaml.safe_load(f)
        with open(os.path.join(other, "ca.crt"), "rb") as f:
            config["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(f.read()).decode()
        config["clusters"][0]["cluster"].pop("certificate-authority", None)
        path = os.path.join(other, "kubeconfig")
        with open(path, "w") as f:
            yaml.safe_dump(config, f)
        port = free_port()
        log = os.path.join(other, "operator.log")
        env = dict(os.environ, SSL_CERT_FILE=self.cp.pki.path("ca.crt"))
        with open(log, "w") as out:
            proc = subprocess.Popen([OPERATOR, "--kubeconfig", path, "--metrics-bind-address", f"127.0.0.1:{port}"],
                                    stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            self.cp.wait_for(lambda: "Error in SSL handshake" in open(log).read(), 30, "the TLS refusal")
            with self.assertRaises(OSError):  # never ready: its caches cannot fill
                urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)

    def test_fmnist_k2_runs_to_accuracy(self):
        with open(os.path.join(ROOT, "manifests/examples/fmnist-k2.yaml")) as f:
            example = yaml.safe_load(f)
        example["spec"]["resources"] = {"cpu": WORKER_CPU}
        example["spec"]["scheduling"] = ONE_NODE
        self.apply(example)
        self.cp.wait_for(lambda: len(self.pods("fmnist-k2")) == 2, 30, "2 worker pods")
        pod = self.cp.get_json("-n", self.ns, "pod", "fmnist-k2-worker-1")
        env = {e["name"]: e.get("value") for e in pod["spec"]["containers"][0]["env"]}
        self.assertEqual(env["RANK"], "1")
        self.assertEqual(env["WORLD_SIZE"], "2")
        self.assertEqual(env["MASTER_ADDR"], "fmnist-k2-worker-0.fmnist-k2-workers")
        owner = pod["metadata"]["ownerReferences"][0]
        self.assertEqual((owner["kind"], owner["controller"]), ("Benchmark", True))
        service = self.cp.get_json("-n", self.ns, "service", "fmnist-k2-workers")
        self.assertEqual(service["spec"]["clusterIP"], "None")
        self.assertTrue(service["spec"]["publishNotReadyAddresses"])

        self.wait_phase("fmnist-k2", ["Running"], timeout=60)
        def running_with_progress():
            status = self.status("fmnist-k2")
            self.assertNotIn(status.get("phase"), ("Succeeded", "Failed"), "it finished before status showed progress")
            return status.get("progress", {}).get("step", 0) > 0
        self.cp.wait_for(running_with_progress, 120, "progress from rank 0 while Running")
        status = self.wait_phase("fmnist-k2", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        results = status["results"]
        self.assertTrue(results["goalReached"])
        self.assertGreaterEqual(results["epochs"], 1)
        self.assertGreater(results["samplesPerSecond"], 100)
        self.assertGreater(results["timeToAccuracySeconds"], 0)
        self.assertTrue(0 < results["communicationRatio"] < 1)
        self.assertEqual(status["workers"]["succeeded"], 2)
        self.assertEqual(results["environment"]["nodes"], [NODE_NAME] * 2)
        self.assertEqual(self.condition(status, "Scheduled")["message"], "2 workers on 1 node")
        self.assertEqual(self.condition(status, "Succeeded")["status"], "True")
        self.assertEqual(self.condition(status, "Running")["status"], "False")
        # The example's pricing label: two c5.4xlarge in us-east-1 at the shipped catalog's price.
        self.assertEqual(results["costBasis"], "spec.pricing.label: 2 x c5.4xlarge")
        self.assertAlmostEqual(results["costUSD"], 2 * 0.68 * results["runSeconds"] / 3600, places=9)
        # kubectl's columns: the figures above in short strings with units (issue 41).
        row = self.printed_tables("bench,ebsw,ebds")["benchmark"]["fmnist-k2"]
        self.assertEqual({k: v for k, v in row.items() if k != "AGE"}, {
            "TASK": "fmnist", "WORKERS": "2", "BACKEND": "gloo", "PHASE": "Succeeded",
            "PROGRESS": f"done · epoch {results['epochs']}/10 · goal reached",
            "THROUGHPUT": si(results["samplesPerSecond"], "samples/s"),
            "TTA": seconds_text(results["timeToAccuracySeconds"]),
            "ENERGY": si(results["energyJoules"], "J", symbol=True) if "energyJoules" in results else "",
            "COST": si(results["costUSD"], results["currency"])})
        # cleanPodPolicy All (the default): the workers go, their results stay in status.
        self.wait_workers_stopped("fmnist-k2")
        self.assertTrue({("Created", "Normal"), ("Running", "Normal"), ("Succeeded", "Normal")} <= self.events())
        metrics = self.operator_metrics()
        tta = re.search(r'^ergobench_benchmark_time_to_accuracy_seconds\{[^}]*benchmark="fmnist-k2"[^}]*\} (\S+)$',
                        metrics, re.M)
        self.assertIsNotNone(tta, metrics)
        self.assertAlmostEqual(float(tta.group(1)), results["timeToAccuracySeconds"], places=6)
        # Every controller's reconciles, under its name; the Benchmark controller's ran.
        success = re.search(r'^ergobench_operator_reconcile_total\{controller="benchmark",result="success"\} (\d+)$',
                            metrics, re.M)
        self.assertIsNotNone(success, metrics)
        self.assertGreater(int(success.group(1)), 0)
        for controller in ("sweep", "dataset"):
            self.assertRegex(metrics, f'ergobench_operator_reconcile_total\\{{controller="{controller}",result="error"\\}} \\d+')
        # `ergobench report` reads the same results from the cluster.
        report = subprocess.run([os.path.join(BIN_DIR, "ergobench"), "report", "--kubeconfig", self.cp.admin_kubeconfig,
                                 "--namespace", self.ns, "--format", "json"], capture_output=True, text=True)
        self.assertEqual(report.returncode, 0, report.stderr)
        row = json.loads(report.stdout)[0]
        self.assertEqual((row["benchmark"], row["phase"], row["workers"]), ("fmnist-k2", "Succeeded", 2))
        self.assertAlmostEqual(row["timeToAccuracySeconds"], results["timeToAccuracySeconds"])

    def test_results_outlive_the_pods_and_the_benchmark(self):
        """What a local run leaves in its folder, kept in <name>-results: rank 0's files, which it
        offers after its run until the operator has taken them, and every rank's result. With
        keepResults the ConfigMap stays after the Benchmark; `ergobench results export` writes it
        as a local result folder, and `ergobench report` reads that."""
        spec = {"task": "0a", "workers": 2, "backend": "gloo", "resources": {"cpu": WORKER_CPU},
                "scheduling": ONE_NODE, "hyperparameters": {"maxElements": 4096, "repetitions": 5},
                "runPolicy": {"keepResults": True}}
        self.apply({"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": "kept"},
                    "spec": spec})
        status = self.wait_phase("kept", ["Succeeded", "Failed"], timeout=180)
        self.assertEqual(status["phase"], "Succeeded", status)
        self.wait_workers_stopped("kept")
        data = self.cp.get_json("-n", self.ns, "configmap", "kept-results")["data"]
        self.assertTrue({"benchmark.json", "MANIFEST", "rank-0.json", "rank-1.json", "rank-0.summary", "rank-0.mllog",
                         "allreduce.csv", "allreduce.json"} <= set(data), sorted(data))
        self.assertNotIn("left-out", data["MANIFEST"])
        self.assertIn('"key":"run_stop"', data["rank-0.mllog"])
        self.assertEqual(len(data["allreduce.csv"].splitlines()), 81)  # a header and 80 sizes
        self.assertEqual(json.loads(data["benchmark.json"])["status"]["phase"], "Succeeded")

        self.cp.kubectl("delete", "-n", self.ns, "benchmark", "kept")
        time.sleep(5)  # for the garbage collector, had the ConfigMap an owner
        self.cp.kubectl("get", "-n", self.ns, "configmap", "kept-results")
        out = os.path.join(self.tmp, "exported")
        export = subprocess.run([os.path.join(BIN_DIR, "ergobench"), "results", "export", "kept", "--kubeconfig",
                                 self.cp.admin_kubeconfig, "-n", self.ns, "--to", out], capture_output=True, text=True)
        self.assertEqual(export.returncode, 0, export.stderr)
        with open(os.path.join(out, "kept", "rank-0.mllog")) as f:
            self.assertEqual(f.read(), data["rank-0.mllog"])
        for source in ([out], ["--kubeconfig", self.cp.admin_kubeconfig, "--namespace", self.ns]):
            report = subprocess.run([os.path.join(BIN_DIR, "ergobench"), "report", *source, "--format", "json"],
                                    capture_output=True, text=True)
            self.assertEqual(report.returncode, 0, report.stderr)
            row = json.loads(report.stdout)[0]
            self.assertEqual((row["benchmark"], row["phase"], row["workers"]), ("kept", "Succeeded", 2), source)

    def test_another_namespaces_pod_cannot_take_or_release_rank_zeros_files(self):
        """Any pod can reach rank 0's metrics port (this cluster's bridge CNI enforces no
        NetworkPolicy): a pod of another namespace gets neither rank 0's files nor its release
        without the Benchmark's token, which is HMAC-SHA256(the operator's key, the uid), in a
        Secret only rank 0 mounts. The operator, which derives it, still takes the files."""
        self.apply(fmnist("guarded", workers=1, run_policy={"keepResults": True}))
        self.wait_training("guarded")
        (rank0,) = self.pods("guarded")
        uid = self.benchmark("guarded")["metadata"]["uid"]
        args = rank0["spec"]["containers"][0]["args"]
        self.assertEqual(args[args.index("--artifact-token-file") + 1], "/var/run/ergobench/artifacts/token")
        secret = self.cp.get_json("-n", self.ns, "secret", f"guarded-artifacts-{uid}")
        key = self.cp.get_json("-n", OPERATOR_NAMESPACE, "secret", "ergobench-artifact-key")
        key = base64.b64decode(key["data"]["key"])
        token = hmac.new(key, f"ergobench artifacts\n{uid}".encode(), hashlib.sha256).hexdigest()
        self.assertEqual(base64.b64decode(secret["data"]["token"]).decode(), token)

        ip = rank0["status"]["podIP"]
        intruder = f"{self.ns}-intruder"
        self.cp.kubectl("create", "namespace", intruder)
        # The answers go to the termination message, which the pod's status keeps.
        probe = " ".join(
            f'exec 3<>/dev/tcp/{ip}/9400; printf "{method} {path} HTTP/1.0\\r\\n\\r\\n" >&3; '
            f'head -n 1 <&3 >>/dev/termination-log; exec 3<&-;'
            for method, path in (("GET", "/artifacts"), ("POST", "/artifacts/release"), ("GET", "/metrics")))
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": intruder},
               "spec": {"restartPolicy": "Never", "containers": [{
                   "name": "probe", "image": f"ergobench-runner:{VERSION}", "command": ["bash", "-c", probe],
                   "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}}]}}
        self.cp.kubectl("apply", "-f", "-", input=json.dumps(pod))
        self.cp.wait_for(lambda: self.cp.get_json("-n", intruder, "pod", "probe")["status"].get("phase") == "Succeeded",
                         60, "the probe pod to end")
        (ended,) = self.cp.get_json("-n", intruder, "pod", "probe")["status"]["containerStatuses"]
        answers = ended["state"]["terminated"]["message"].split("\n")
        self.assertEqual([a.strip() for a in answers if a.strip()],
                         ["HTTP/1.0 401 Unauthorized", "HTTP/1.0 401 Unauthorized", "HTTP/1.0 200 OK"])
        # The token is what rank 0 takes: with it, the answer is that the run goes on.
        request = urllib.request.Request(f"http://{ip}:9400/artifacts", headers={"Authorization": f"Bearer {token}"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        self.assertEqual(refused.exception.code, 409)

        status = self.wait_phase("guarded", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        data = self.cp.get_json("-n", self.ns, "configmap", "guarded-results")["data"]
        self.assertIn('"key":"run_stop"', data["rank-0.mllog"])

    def test_a_gang_short_of_nodes_waits_pending_and_says_why(self):
        """One worker per node (the default) and two workers on one node: rank 1 is placed, rank
        0 cannot be. The Benchmark stays Pending in the scheduler's words, and rank 1 waits for
        rank 0 instead of timing out its rendezvous."""
        obj = fmnist("short", workers=2)
        del obj["spec"]["scheduling"]
        self.apply(obj)
        self.cp.wait_for(lambda: (self.condition(self.status("short"), "Scheduled") or {}).get("status") == "False",
                         60, "the Scheduled condition")
        scheduled = self.condition(self.status("short"), "Scheduled")
        self.assertEqual(scheduled["reason"], "Unschedulable")
        # The scheduler's words on the shared cluster: node 1 holds rank 1, the others are idle.
        self.assertIn("1 of 2 workers cannot be placed (ranksPerNode 1: the gang needs 2 nodes); rank 0 (pod "
                      "short-worker-0): 0/3 nodes are available", scheduled["message"])
        self.assertIn("anti-affinity", scheduled["message"])
        self.assertIn("2 node(s) had taint {ergobench.io/idle: true}", scheduled["message"])
        self.assertIn(("Unschedulable", "Warning"), self.events())
        peer = self.cp.get_json("-n", self.ns, "pod", "short-worker-1")
        self.assertEqual(peer["spec"]["nodeName"], NODE_NAME)
        args = peer["spec"]["containers"][0]["args"]
        self.assertEqual(args[args.index("--rendezvous-timeout") + 1], str(7 * 86400))
        time.sleep(10)
        self.assertEqual(self.status("short")["phase"], "Pending")
        self.assertEqual(self.cp.get_json("-n", self.ns, "pod", "short-worker-1")["status"]["phase"], "Running")
        # Allowed to share the node, the gang runs.
        self.cp.kubectl("patch", "-n", self.ns, "benchmark", "short", "--type=merge", "-p",
                        json.dumps({"spec": {"scheduling": ONE_NODE, "maxEpochs": 1}}))
        status = self.wait_phase("short", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        self.assertEqual(self.condition(status, "Scheduled")["status"], "True")

    def test_killed_rank_restarts_the_gang_within_backoff_limit(self):
        self.apply(fmnist("retry", run_policy={"backoffLimit": 1}))
        self.wait_training("retry")
        (killed,) = [p["metadata"]["uid"] for p in self.pods("retry") if p["metadata"]["name"] == "retry-worker-1"]
        self.kill_rank("retry", 1)
        self.cp.wait_for(lambda: self.status("retry").get("restarts") == 1, 60, "a gang restart")

        def killed_pod():
            return next((p for p in self.pods("retry") if p["metadata"]["uid"] == killed), None)

        def deleted(pod):
            return pod is None or "deletionTimestamp" in pod["metadata"]
        self.cp.wait_for(lambda: deleted(killed_pod()), 30, "the killed rank's pod to be deleted")
        # It had ended, so it went at once (grace 0), never seen terminating: the next gang need
        # not wait up to a minute for the kubelet's container collection to free the name.
        self.assertIsNone(killed_pod())
        self.cp.wait_for(lambda: {p["metadata"]["labels"]["ergobench.io/attempt"] for p in self.pods("retry")} == {"1"}
                         and len(self.pods("retry")) == 2, 90, "two pods of attempt 1", lambda: self.status("retry"))
        status = self.wait_phase("retry", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        self.assertEqual(status["restarts"], 1)
        self.assertIn(("Restarting", "Warning"), self.events())

    def test_killed_rank_fails_the_benchmark_without_backoff(self):
        self.apply(fmnist("once", run_policy={"cleanPodPolicy": "None"}))
        self.wait_training("once")
        self.kill_rank("once", 0)
        status = self.wait_phase("once", ["Failed"], timeout=120)
        failed = self.condition(status, "Failed")
        self.assertEqual(failed["reason"], "PodFailed")
        self.assertIn("rank 0 (pod once-worker-0) failed", failed["message"])
        self.assertIn("137", failed["message"])
        # cleanPodPolicy None keeps the pods for a post-mortem.
        self.assertEqual(len(self.pods("once")), 2)

    def test_a_spec_edit_while_running_restarts_the_gang_on_the_new_spec(self):
        edited = fmnist("edited", run_policy={"cleanPodPolicy": "None"}, goal={"target": 0.99})
        edited["spec"]["maxEpochs"] = 3  # a goal out of reach: the run lasts until the edit lands
        self.apply(edited)
        self.wait_training("edited")
        old_uids = {p["metadata"]["uid"] for p in self.pods("edited")}
        # The new spec runs one epoch: enough to show whose spec ran.
        self.cp.kubectl("patch", "-n", self.ns, "benchmark", "edited", "--type=merge", "-p",
                        '{"spec":{"workers":1,"maxEpochs":1}}')
        status = self.wait_phase("edited", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        self.assertEqual(status["observedGeneration"], 2)
        self.assertEqual(status.get("restarts", 0), 0, "an edit is not a failure: backoffLimit is not spent")
        self.assertEqual(status["workers"]["succeeded"], 1)
        # The whole new spec ran: one worker of generation 2, reading a ConfigMap that says so.
        # (An old rank stopped mid-collective may take its grace period to go.)
        self.cp.wait_for(lambda: [p["metadata"]["labels"]["ergobench.io/generation"] for p in self.pods("edited")]
                         == ["2"], 60, "only the pod of generation 2")
        pods = self.pods("edited")
        self.assertFalse(old_uids & {p["metadata"]["uid"] for p in pods})
        config = self.cp.get_json("-n", self.ns, "configmap", "edited-config")
        spec = json.loads(config["data"]["benchmark.json"])["spec"]
        self.assertEqual((spec["workers"], spec["maxEpochs"]), (1, 1))
        self.assertEqual(status["results"]["epochs"], 1)
        self.assertIn(("SpecChanged", "Normal"), self.events())

    def test_deadline_exceeded(self):
        self.apply(fmnist("late", run_policy={"activeDeadlineSeconds": 5}))
        status = self.wait_phase("late", ["Failed", "Succeeded"], timeout=60)
        self.assertEqual(self.condition(status, "Failed")["reason"], "DeadlineExceeded")
        self.wait_workers_stopped("late")

    def test_deleting_the_benchmark_collects_its_children(self):
        self.apply(fmnist("gone"))
        self.wait_phase("gone", ["Running"], timeout=60)
        self.cp.kubectl("delete", "-n", self.ns, "benchmark", "gone", "--wait=false")
        self.wait_workers_stopped("gone", timeout=90)  # by the garbage collector
        for kind, name in (("service", "gone-workers"), ("configmap", "gone-config")):
            self.cp.wait_for(lambda: self.cp.kubectl("get", "-n", self.ns, kind, name, check=False).returncode != 0,
                             60, f"garbage collection of {kind}/{name}")

    def test_operator_killed_mid_run_resumes(self):
        self.apply(fmnist("resume", run_policy={"cleanPodPolicy": "None"}))
        self.wait_phase("resume", ["Running"], timeout=90)
        uids = {p["metadata"]["uid"] for p in self.pods("resume")}
        (operator,) = self.operator_pods()
        self.kill_container(OPERATOR_NAMESPACE, operator["metadata"]["name"])
        # The kubelet restarts it; it takes its own lease back and picks up where it was.
        self.cp.wait_for(lambda: self.operator_restarts() > self.restarts_before, 60, "the operator's restart")
        status = self.wait_phase("resume", ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        self.assertEqual(status.get("restarts", 0), 0)
        # The same two pods ran to the end: nothing was created twice.
        self.assertEqual(status["workers"]["succeeded"], 2)
        self.assertEqual({p["metadata"]["uid"] for p in self.pods("resume")}, uids)

    def run_across_a_restart(self, name, component, start):
        """A Benchmark runs to Succeeded across `component`'s restart mid-run: the same pods ran
        to the end, none restarted, nothing created twice."""
        # 89% takes four epochs at k=2 (about 30 s; 85% takes one), so that the outage falls mid-run.
        self.apply(fmnist(name, run_policy={"cleanPodPolicy": "None"}, goal={"target": 0.89}))
        self.wait_training(name)
        pods = self.pods(name)
        uids = {p["metadata"]["uid"] for p in pods}
        containers = [container_id(p) for p in pods]
        self.cp.stop_process(component)
        time.sleep(5)  # the outage
        # Mid-run: the ranks are still training as the component comes back.
        tasks = self.containerd_tasks()
        self.assertEqual([tasks.get(c, (0, "gone"))[1] for c in containers], ["RUNNING"] * len(containers))
        start()
        status = self.wait_phase(name, ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", status)
        self.assertEqual(status.get("restarts", 0), 0)
        self.assertEqual({p["metadata"]["uid"] for p in self.pods(name)}, uids)
        for pod in self.pods(name):
            self.assertEqual(pod["status"]["containerStatuses"][0]["restartCount"], 0)
        created = [e for e in self.cp.get_json("-n", self.ns, "events")["items"]
                   if e["reason"] == "Created" and e["involvedObject"]["kind"] == "Benchmark"]
        self.assertEqual(len(created), 1)

    def test_apiserver_restarted_mid_run(self):
        self.run_across_a_restart("outage", "kube-apiserver", self.cp.start_apiserver)

    def test_kubelet_restarted_mid_run(self):
        """Containers keep running under containerd, and the new kubelet adopts them."""
        self.run_across_a_restart("node-restart", f"{NODE_NAME}-kubelet", self.cp.start_kubelet)


if __name__ == "__main__":
    unittest.main()
