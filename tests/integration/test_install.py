"""Installing ergobench on a real control plane (etcd, kube-apiserver and
kube-controller-manager v1.20 from Debian's source package): `kubectl apply -k` of the
kustomize base and `helm install` of the chart must be accepted, and the operator
Deployment's pod spec must be one the operator runs with: its args and env, its
ServiceAccount's token and RBAC, and its probes on the port it binds."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "tests/kube"))

from control_plane import HELM, ControlPlane, free_port  # noqa: E402
from harness import BIN_DIR  # noqa: E402

OPERATOR = os.path.join(BIN_DIR, "ergobench-operator")
CHART = os.path.join(ROOT, "charts/ergobench")


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=1) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ergobench-install-")
        cls.cp = ControlPlane(os.path.join(cls.tmp, "control-plane")).start()

    @classmethod
    def tearDownClass(cls):
        cls.cp.stop()

    def helm(self, *args, check=True):
        result = subprocess.run([HELM, f"--kubeconfig={self.cp.admin_kubeconfig}", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} failed: {result.stderr}")
        return result

    def wait_established(self):
        self.cp.wait_for(lambda: "True" in self.cp.kubectl(
            "get", "crd", "benchmarks.ergobench.io", "-o",
            "jsonpath={.status.conditions[?(@.type=='Established')].status}", check=False).stdout,
            30, "the Benchmark CRD to be established")

    def test_1_kustomize_base_and_local_overlay_are_accepted(self):
        for path in ("manifests/base", "manifests/overlays/local"):
            with self.subTest(path=path):
                self.cp.kubectl("apply", "-k", os.path.join(ROOT, path))
        self.wait_established()
        deployment = self.cp.get_json("-n", "ergobench-system", "deployment", "ergobench-operator")
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual(container["image"], "localhost/ergobench-operator:0.1.0")
        self.assertEqual(container["securityContext"]["readOnlyRootFilesystem"], True)
        self.cp.get_json("-n", "ergobench-system", "service", "ergobench-operator-metrics")
        self.cp.get_json("clusterrolebinding", "ergobench-operator")
        # Leave the cluster empty for the chart, which must own the CRD it installs.
        self.cp.kubectl("delete", "-k", os.path.join(ROOT, "manifests/base"), "--wait=true")

    def test_2_the_charts_deployment_runs_the_operator(self):
        """The pod spec as the API server stored it: run ergobench-operator with exactly its
        args and env, as its ServiceAccount, and probe it where the probes point."""
        self.helm("install", "ergobench", CHART, "--namespace", "ergobench-system", "--create-namespace")
        spec = self.cp.get_json("-n", "ergobench-system", "deployment", "ergobench")["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        bind = next(a.split("=", 1)[1] for a in container["args"] if a.startswith("--metrics-bind-address="))
        self.assertEqual(int(bind.rsplit(":", 1)[1]), ports[container["livenessProbe"]["httpGet"]["port"]])
        self.assertEqual(int(bind.rsplit(":", 1)[1]), ports[container["readinessProbe"]["httpGet"]["port"]])

        # Out of cluster only in how it reaches the API server: the ServiceAccount's token in a
        # kubeconfig whose namespace is the pod's, as in-cluster config reads it. The probe
        # port moves to a free one here, the same for the bind address and the probes.
        kubeconfig = self.cp.service_account_kubeconfig("ergobench-system", spec["serviceAccountName"],
                                                        os.path.join(self.tmp, "operator.kubeconfig"))
        port = free_port()
        args = [a.replace(bind, f"127.0.0.1:{port}") for a in container["args"]]
        env = dict(os.environ, **{e["name"]: e["value"] for e in container["env"]})
        log_path = os.path.join(self.tmp, "operator.log")
        with open(log_path, "w") as log:
            operator = subprocess.Popen([OPERATOR, *args, "--kubeconfig", kubeconfig], env=env, stdout=log,
                                        stderr=subprocess.STDOUT)
        try:
            for probe in ("livenessProbe", "readinessProbe"):
                path = container[probe]["httpGet"]["path"]
                self.cp.wait_for(lambda: http_status(f"http://127.0.0.1:{port}{path}") == 200, 30, f"{probe} {path}")
            lease_id = next(a.split("=", 1)[1] for a in args if a.startswith("--leader-election-id="))
            self.cp.wait_for(lambda: self.cp.get_json("-n", "ergobench-system", "lease", lease_id)["spec"].get(
                "holderIdentity"), 30, "the operator to hold its Lease")

            self.cp.kubectl("create", "namespace", "install-check")
            benchmark = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": "b"},
                         "spec": {"task": "0a", "workers": 2}}
            self.cp.kubectl("apply", "-n", "install-check", "-f", "-", input=json.dumps(benchmark))
            self.cp.wait_for(lambda: len(self.cp.get_json("-n", "install-check", "pods")["items"]) == 2, 30,
                             "the workers to be created")
            pods = self.cp.get_json("-n", "install-check", "pods")["items"]
            runner_image = next(e["value"] for e in container["env"] if e["name"] == "ERGOBENCH_RUNNER_IMAGE")
            self.assertEqual({p["spec"]["containers"][0]["image"] for p in pods}, {runner_image})
            self.cp.wait_for(lambda: self.cp.get_json("-n", "install-check", "benchmark", "b").get("status", {}).get(
                "phase") == "Pending", 30, "the Benchmark's status")
        except AssertionError:
            with open(log_path) as f:
                sys.stderr.write(f.read()[-4000:])
            raise
        finally:
            operator.send_signal(signal.SIGTERM)
            operator.wait(timeout=30)
        self.assertEqual(operator.returncode, 0)
        # It hands the Lease back on SIGTERM, so a new replica leads at once.
        self.assertFalse(self.cp.get_json("-n", "ergobench-system", "lease", lease_id)["spec"].get("holderIdentity"))

        self.helm("upgrade", "ergobench", CHART, "--namespace", "ergobench-system", "--set", "workers=4")
        deployment = self.cp.get_json("-n", "ergobench-system", "deployment", "ergobench")
        self.assertIn("--workers=4", deployment["spec"]["template"]["spec"]["containers"][0]["args"])
        self.helm("uninstall", "ergobench", "--namespace", "ergobench-system")
        self.assertEqual(self.cp.kubectl("get", "-n", "ergobench-system", "deployment", "ergobench",
                                         check=False).returncode, 1)
        # helm.sh/resource-policy: keep: the CRD, and every Benchmark with it, outlive the release.
        self.cp.get_json("-n", "install-check", "benchmark", "b")

    def test_3_helm_install_for_one_namespace_with_an_existing_crd(self):
        self.cp.kubectl("create", "namespace", "benchmarks")
        self.helm("install", "ergobench", CHART, "--namespace", "ergobench-helm", "--create-namespace",
                  "-f", os.path.join(CHART, "ci/namespaced-values.yaml"))
        deployment = self.cp.get_json("-n", "ergobench-helm", "deployment", "ergobench")
        self.assertIn("--namespace=benchmarks", deployment["spec"]["template"]["spec"]["containers"][0]["args"])
        binding = self.cp.get_json("-n", "benchmarks", "rolebinding", "ergobench")
        self.assertEqual(binding["subjects"][0]["namespace"], "ergobench-helm")
        can = lambda *args: self.cp.kubectl("auth", "can-i", *args, "--as=system:serviceaccount:ergobench-helm:ergobench",
                                            check=False).stdout.strip()
        self.assertEqual(can("create", "pods", "-n", "benchmarks"), "yes")
        self.assertEqual(can("create", "pods", "-n", "default"), "no")


if __name__ == "__main__":
    unittest.main()
