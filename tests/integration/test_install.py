"""Installing ergobench on a real control plane (etcd, kube-apiserver and
kube-controller-manager v1.20 from Debian's source package): `kubectl apply -k` of the
kustomize base and `helm install` of the chart must be accepted, and the operator image must
run under the Deployment's pod spec: its args and env, its securityContext, in-cluster
config from its ServiceAccount's token, that account's RBAC, and probes on the port it binds."""

import json
import os
import shutil
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
from test_images import VERSION, podman  # noqa: E402

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

    @unittest.skipUnless(shutil.which("podman") and os.geteuid() == 0, "needs podman (scripts/install-deps.sh --tests)")
    def test_2_the_charts_deployment_runs_the_operator(self):
        """The operator image run by podman as kubelet would run the Deployment's pod as the API
        server stored it: its args and env, its securityContext, its memory limit, its
        ServiceAccount's token where in-cluster config reads it; then its probes, its Lease,
        and a Benchmark's workers, all through that ServiceAccount's RBAC."""
        self.helm("install", "ergobench", CHART, "--namespace", "ergobench-system", "--create-namespace")
        spec = self.cp.get_json("-n", "ergobench-system", "deployment", "ergobench")["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        bind = next(a.split("=", 1)[1] for a in container["args"] if a.startswith("--metrics-bind-address="))
        for probe in ("livenessProbe", "readinessProbe"):
            self.assertEqual(int(bind.rsplit(":", 1)[1]), ports[container[probe]["httpGet"]["port"]], probe)

        build = subprocess.run([os.path.join(ROOT, "images/build.sh"), "--build-dir", os.path.dirname(BIN_DIR),
                                "operator"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(build.returncode, 0, build.stdout)
        image = container["image"]
        self.assertEqual(image, f"ergobench-operator:{VERSION}")
        user = json.loads(podman("image", "inspect", image).stdout)[0]["Config"]["User"]
        pod_security, security = spec["securityContext"], container["securityContext"]
        # runAsNonRoot: kubelet refuses an image whose user is root or not numeric.
        self.assertTrue(pod_security["runAsNonRoot"])
        self.assertNotEqual(int(user.split(":")[0]), 0)

        secrets = os.path.join(self.tmp, "serviceaccount")
        os.makedirs(secrets)
        for name, text in self.cp.service_account_secret("ergobench-system", spec["serviceAccountName"]).items():
            with open(os.path.join(secrets, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(secrets, name), 0o644)
        # Host network: the API server listens on 127.0.0.1. The bind port moves to a free
        # one, the same for the bind address and the probes.
        port = free_port()
        args = [a.replace(bind, f"127.0.0.1:{port}") for a in container["args"]]
        api_port = self.cp.server.rsplit(":", 1)[1]
        flags = ["--user", f"{pod_security['runAsUser']}:{pod_security['runAsGroup']}",
                 "--memory", container["resources"]["limits"]["memory"].replace("Mi", "m")]
        if security["readOnlyRootFilesystem"]:
            flags.append("--read-only")
        if not security["allowPrivilegeEscalation"]:
            flags += ["--security-opt", "no-new-privileges"]
        flags += [f"--cap-drop={c}" for c in security["capabilities"]["drop"]]
        env = {e["name"]: e["value"] for e in container["env"]}
        env.update(KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=api_port)
        for name, value in env.items():
            flags += ["-e", f"{name}={value}"]
        name = f"ergobench-install-{os.getpid()}"
        podman("run", "-d", "--name", name, "--network", "host", *flags,
               "-v", f"{secrets}:/var/run/secrets/kubernetes.io/serviceaccount:ro", image, *args)
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
            self.assertEqual({p["spec"]["containers"][0]["image"] for p in pods}, {env["ERGOBENCH_RUNNER_IMAGE"]})
            self.cp.wait_for(lambda: self.cp.get_json("-n", "install-check", "benchmark", "b").get("status", {}).get(
                "phase") == "Pending", 30, "the Benchmark's status")
        except AssertionError:
            sys.stderr.write(podman("logs", name, check=False).stdout[-4000:])
            raise
        finally:
            podman("stop", "--time", "30", name, check=False)
        state = json.loads(podman("inspect", name).stdout)[0]["State"]
        podman("rm", name, check=False)
        self.assertEqual(state["ExitCode"], 0)
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
