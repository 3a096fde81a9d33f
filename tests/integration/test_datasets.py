"""Datasets on the real cluster: a CIFAR-10-format archive served over HTTP from the
node (the pods' bridge address) is staged once by the operator's Job into a claim of the
default StorageClass, and task 1a Benchmarks train on it from that claim mounted read-only;
a second Benchmark reads the same copy, with no second download, and a third, of task cosmoflow,
the CosmoFlow reference's TFRecords (ergobench-universes's) beside it. The node energy agent runs
(on a fake RAPL counter), so the task1a example of docs/kubernetes/datasets.md is tested end to
end: applied as written but for its url (this machine has no internet), run locally from the
same file, and the two compared by `ergobench report`."""

import hashlib
import http.server
import io
import json
import os
import random
import subprocess
import tarfile
import threading

import yaml

from cluster_suite import (OPERATOR_NAMESPACE, ROOT, WORKER_CPU, NamespacedClusterSuite, byte_quantity,
                           seconds_text, si)
from network import HOST_ADDRESS  # noqa: E402 (cluster_suite puts kube/cluster on the path)
from harness import BIN_DIR, ERGOBENCH

ARCHIVE = "cifar-10-binary.tar.gz"
PER_BATCH = 64  # images per batch file: 320 to train on, 64 to evaluate


def cosmoflow_universes(folder):
    """The tiny preset's universes as the CosmoFlow reference's TFRecords, 4 to train on and 2 to
    validate on: {path in the archive: bytes}."""
    subprocess.run([os.path.join(BIN_DIR, "ergobench-universes"), "--model", "tiny", "--train", "4", "--validation",
                    "2", "--into", folder], check=True, capture_output=True, timeout=120)
    files = {}
    for part in ("train", "validation"):
        for name in sorted(os.listdir(os.path.join(folder, part))):
            with open(os.path.join(folder, part, name), "rb") as f:
                files[f"cosmoflow/{part}/{name}"] = f.read()
    return files


def cifar10_archive(seed=1, extra=None):
    """CIFAR-10's binary version in miniature (1 label byte + 3072 pixel bytes per image, five
    training batches, a test batch, the label names), each class a colour plus noise, so that
    the network can learn it; and the `extra` files ({path: bytes}) beside it."""
    rng = random.Random(seed)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        def add(name, data, folder="cifar-10-batches-bin/"):
            info = tarfile.TarInfo(folder + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, data in (extra or {}).items():
            add(name, data, folder="")
        for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
            records = bytearray()
            for _ in range(PER_BATCH):
                label = rng.randrange(10)
                records.append(label)
                records += bytes(min(255, 20 * label + rng.randrange(30)) for _ in range(3072))
            add(name, bytes(records))
        add("batches.meta.txt", "\n".join(["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse",
                                           "ship", "truck"]).encode() + b"\n")
    return out.getvalue()


class ArchiveServer:
    """Serves one archive on the pods' gateway (an address of this machine), counting GETs."""

    def __init__(self, data):
        self.gets = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path != "/" + ARCHIVE:
                    self.send_error(404)
                    return
                server.gets += 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer((HOST_ADDRESS, 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://{HOST_ADDRESS}:{self.httpd.server_port}/{ARCHIVE}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def dataset(name, url, sha256):
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Dataset", "metadata": {"name": name},
            "spec": {"source": {"url": url, "sha256": sha256}, "storage": {"size": "64Mi"}}}


def cosmoflow(name, ref):
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": "cosmoflow", "workers": 1, "maxEpochs": 1, "goal": {"target": 0.05},
                     "dataset": {"ref": ref, "path": "cosmoflow"},
                     "hyperparameters": {"model": "tiny", "trainSamples": 0, "evalSamples": 2, "batchSize": 2},
                     "resources": {"cpu": WORKER_CPU, "memory": "2Gi"}}}


def task1a(name, ref, clean="All"):
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": "1a", "workers": 1, "maxEpochs": 1, "goal": {"target": 0.05},
                     "dataset": {"ref": ref, "path": "cifar-10-batches-bin"},
                     "resources": {"cpu": WORKER_CPU, "memory": "2Gi"}, "runPolicy": {"cleanPodPolicy": clean}}}


class DatasetTest(NamespacedClusterSuite):
    energy_agent = True
    # The archive server listens on the node's bridge, a private address: allowed by name. A
    # NetworkPolicy per gang: the API server takes them, and the runs go on (this cluster's
    # bridge CNI enforces none; egress, the data's way in, is left open by them anyway).
    helm_values = {"policy": {"datasetAllowedNetworks": [f"{HOST_ADDRESS}/32"], "networkPolicy": {"enabled": True}}}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.archive = cifar10_archive(extra=cosmoflow_universes(os.path.join(cls.tmp, "universes")))
        cls.sha256 = hashlib.sha256(cls.archive).hexdigest()
        with tarfile.open(fileobj=io.BytesIO(cls.archive)) as tar:
            cls.extracted_bytes = sum(member.size for member in tar.getmembers())
        cls.server = ArchiveServer(cls.archive)

    @classmethod
    def tearDownClass(cls):
        cls.server.close()
        super().tearDownClass()

    def dataset_status(self, name):
        return self.cp.get_json("-n", self.ns, "dataset", name).get("status", {})

    def wait_dataset(self, name, phases, timeout=120):
        self.cp.wait_for(lambda: self.dataset_status(name).get("phase") in phases, timeout, f"{name} to reach {phases}")
        return self.dataset_status(name)

    def test_staged_once_and_read_only_by_two_benchmarks(self):
        # A Benchmark that names a Dataset not yet there waits, Pending, without pods.
        self.apply(task1a("first", "cifar10", clean="None"))
        self.cp.wait_for(lambda: (self.condition(self.status("first"), "DatasetReady") or {}).get("reason")
                         == "DatasetNotFound", 30, "first to wait for its Dataset")
        self.assertEqual(self.status("first")["phase"], "Pending")
        self.assertEqual(self.pods("first"), [])

        gets_before = self.server.gets
        self.apply(dataset("cifar10", self.server.url, self.sha256))
        staged = self.wait_dataset("cifar10", ("Ready", "Failed"))
        self.assertEqual(staged["phase"], "Ready", staged)
        self.assertEqual(staged["claimName"], "cifar10-data")
        self.assertEqual(staged["path"], f"{self.sha256}/data")
        self.assertEqual(staged["files"], 7 + 6)
        self.assertEqual(staged["bytes"], self.extracted_bytes)
        self.assertEqual(self.server.gets - gets_before, 1)
        # The Job is done with once the data is there; the claim stays.
        self.cp.wait_for(lambda: not self.cp.get_json("-n", self.ns, "jobs")["items"], 30, "the staging Job to go")

        done = self.wait_phase("first", ("Succeeded", "Failed"), timeout=420)
        self.assertEqual(done["phase"], "Succeeded", done)
        self.assertEqual(self.condition(done, "DatasetReady")["status"], "True")
        self.assertEqual(done["results"]["epochs"], 1)
        (pod,) = self.pods("first")
        volume = next(v for v in pod["spec"]["volumes"] if v["name"] == "dataset")
        self.assertEqual(volume["persistentVolumeClaim"], {"claimName": "cifar10-data", "readOnly": True})
        mount = next(m for m in pod["spec"]["containers"][0]["volumeMounts"] if m["name"] == "dataset")
        self.assertEqual((mount["mountPath"], mount["readOnly"]), ("/data", True))
        policy = self.cp.get_json("-n", self.ns, "networkpolicy", "first-gang")
        self.assertEqual(policy["metadata"]["ownerReferences"][0]["uid"], self.benchmark("first")["metadata"]["uid"])
        self.assertEqual(policy["spec"]["podSelector"], {"matchLabels": {"ergobench.io/benchmark": "first"}})
        self.assertEqual(policy["spec"]["ingress"][1]["from"],
                         [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": OPERATOR_NAMESPACE}}}])
        config = json.loads(self.cp.get_json("-n", self.ns, "configmap", "first-config")["data"]["benchmark.json"])
        self.assertEqual(config["spec"]["dataset"]["path"], f"/data/{self.sha256}/data/cifar-10-batches-bin")

        # A second reader: the same copy, no second download.
        self.apply(task1a("second", "cifar10"))
        done = self.wait_phase("second", ("Succeeded", "Failed"), timeout=420)
        self.assertEqual(done["phase"], "Succeeded", done)
        self.assertEqual(self.server.gets - gets_before, 1)
        self.assert_printed_columns(done)

        # Another task reads its own files of the same copy: CosmoFlow's TFRecords, all of train/.
        self.apply(cosmoflow("third", "cifar10"))
        done = self.wait_phase("third", ("Succeeded", "Failed"), timeout=300)
        self.assertEqual(done["phase"], "Succeeded", done)
        self.assertEqual(done["results"]["epochs"], 1)
        self.assertEqual(self.server.gets - gets_before, 1)

    def assert_printed_columns(self, second):
        """`kubectl get bench,ebsw,ebds` prints short strings with units, of the figures in status
        (issue 41): the backend the CRD defaults, the Dataset's size as a quantity."""
        tables = self.printed_tables("bench,ebsw,ebds")
        self.assertEqual(set(tables), {"benchmark", "dataset"}, "no sweep in this namespace")
        r = second["results"]
        goal = " · goal reached" if r.get("goalReached") else ""
        # One epoch of 320 images may end inside the throughput's warm-up: then no rate. The API
        # server prints a column whose field is absent as nothing.
        rate = si(r["samplesPerSecond"], "samples/s") if "samplesPerSecond" in r else ""
        row = tables["benchmark"]["second"]
        self.assertEqual(list(row), ["TASK", "WORKERS", "BACKEND", "PHASE", "PROGRESS", "THROUGHPUT", "TTA", "ENERGY",
                                     "COST", "AGE"])
        self.assertEqual({k: v for k, v in row.items() if k != "AGE"}, {
            "TASK": "1a", "WORKERS": "1", "BACKEND": "gloo", "PHASE": "Succeeded",
            "PROGRESS": f"done · epoch 1/1{goal}",
            "THROUGHPUT": rate,
            "TTA": seconds_text(r["timeToAccuracySeconds"]) if goal else "",
            "ENERGY": si(r["energyJoules"], "J", symbol=True), "COST": ""})
        self.assertEqual(second["display"].get("throughput", ""), row["THROUGHPUT"])
        data = tables["dataset"]["cifar10"]
        self.assertEqual({k: v for k, v in data.items() if k != "AGE"},
                         {"PHASE": "Ready", "CLAIM": "cifar10-data", "SIZE": byte_quantity(self.extracted_bytes),
                          "FILES": "13"})

    def readme_task1a(self):
        """manifests/examples/task1a.yaml, with this suite's archive for CIFAR-10's url and sized
        for this 2-CPU node: two ranks on it, one epoch."""
        with open(os.path.join(ROOT, "manifests/examples/task1a.yaml")) as f:
            data, benchmark = yaml.safe_load_all(f)
        data["spec"]["source"] = {"url": self.server.url, "sha256": self.sha256}
        benchmark["spec"].update({"workers": 2, "maxEpochs": 1, "goal": {"target": 0.05},
                                  "resources": {"cpu": WORKER_CPU, "memory": "2Gi"},
                                  "scheduling": {"ranksPerNode": 2}})
        path = os.path.join(self.tmp, f"{self.ns}.yaml")
        with open(path, "w") as f:
            yaml.safe_dump_all([data, benchmark], f)
        return path, benchmark["metadata"]["name"]

    def test_the_readme_task1a_on_the_cluster_and_locally(self):
        path, name = self.readme_task1a()
        self.cp.kubectl("apply", "-n", self.ns, "-f", path)
        status = self.wait_phase(name, ("Succeeded", "Failed"), timeout=420)
        self.assertEqual(status["phase"], "Succeeded", status)
        # The artifacts outlive the pods.
        self.wait_workers_stopped(name)
        kept = self.cp.get_json("-n", self.ns, "configmap", f"{name}-results")["data"]
        self.assertIn('"key":"run_stop"', kept["rank-0.mllog"])
        rank = json.loads(kept["rank-0.json"])
        self.assertEqual([m["name"] for m in rank["environment"]["energyMeters"]], ["agent"], rank)
        results = status["results"]
        self.assertEqual(results["epochs"], 1)
        self.assertGreater(results.get("energyJoules", 0), 0, rank)  # from the agent: the pods cannot read RAPL
        self.assertTrue(results["energyShared"])  # the operator's pod runs on the one node

        # The same file without a cluster, then both side by side.
        # Free metrics ports: a local suite may run beside this one (tests/integration/CMakeLists.txt).
        local = subprocess.run([ERGOBENCH, "run", "-q", "--metrics-port", "0", path], cwd=self.tmp, capture_output=True, text=True,
                               timeout=600, env=dict(os.environ, ERGOBENCH_DATA_DIR=os.path.join(self.tmp, "cache")))
        self.assertEqual(local.returncode, 0, local.stdout + local.stderr)
        report = subprocess.run([ERGOBENCH, "report", os.path.join(self.tmp, "ergobench-results"), "--kubeconfig",
                                 self.cp.admin_kubeconfig, "--namespace", self.ns, "--format", "json"],
                                capture_output=True, text=True)
        self.assertEqual(report.returncode, 0, report.stderr)
        rows = [r for r in json.loads(report.stdout) if r["benchmark"] == name]
        self.assertEqual(len(rows), 2, report.stdout)
        self.assertEqual({r["phase"] for r in rows}, {"Succeeded"})
        self.assertEqual(sorted(r.get("energyShared") for r in rows if "energyShared" in r), [True])  # the cluster's
        text = subprocess.run([ERGOBENCH, "report", os.path.join(self.tmp, "ergobench-results"), "--kubeconfig",
                               self.cp.admin_kubeconfig, "--namespace", self.ns], capture_output=True, text=True)
        print(text.stdout)

    def test_an_internal_address_is_refused_at_its_connection(self):
        """The cloud's metadata service, at a link-local address, as any internal address the
        chart's policy.datasetAllowedNetworks does not name: the staging Job never connects."""
        self.apply(dataset("metadata", "http://169.254.169.254/latest/meta-data/x.tgz", "0" * 64))
        failed = self.wait_dataset("metadata", ("Ready", "Failed"))
        self.assertEqual(failed["phase"], "Failed")
        ready = self.condition(failed, "Ready")
        self.assertEqual(ready["reason"], "StagingFailed")
        self.assertIn("spec.dataset.url: refusing to connect to an internal address", ready["message"])

    def test_a_wrong_checksum_fails_once_with_the_reason(self):
        gets_before = self.server.gets
        self.apply(dataset("wrong", self.server.url, "0" * 64))
        failed = self.wait_dataset("wrong", ("Ready", "Failed"))
        self.assertEqual(failed["phase"], "Failed")
        ready = self.condition(failed, "Ready")
        self.assertEqual(ready["reason"], "StagingFailed")
        self.assertIn(f"has sha256 {self.sha256}, expected {'0' * 64}", ready["message"])
        # No retry can mend it: the Job is gone after one try, not four.
        self.cp.wait_for(lambda: not self.cp.get_json("-n", self.ns, "jobs")["items"], 30, "the staging Job to go")
        self.wait_pods_stopped("ergobench.io/dataset=wrong", "the staging pod")
        self.assertEqual(self.server.gets - gets_before, 1)


if __name__ == "__main__":
    import unittest
    unittest.main()
