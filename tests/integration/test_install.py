"""Installing ergobench on a real cluster (kube/cluster) as users do:
`kubectl apply -k` of the kustomize base and local overlay, and `helm install`, `upgrade` and
`uninstall` of the chart. The kubelet runs the operator image under the Deployment's pod spec:
its args and env, its securityContext, in-cluster config from its ServiceAccount's token,
that account's RBAC, and its probes."""

import json
import os
import unittest

from cluster_suite import OPERATOR_NAMESPACE, OPERATOR_SELECTOR, RELEASE, ROOT, VERSION, ClusterSuite

CHART = os.path.join(ROOT, "charts/ergobench")


class InstallTest(ClusterSuite):
    install_at_start = False

    def wait_established(self):
        self.cp.wait_for(lambda: "True" in self.cp.kubectl(
            "get", "crd", "benchmarks.ergobench.io", "-o",
            "jsonpath={.status.conditions[?(@.type=='Established')].status}", check=False).stdout,
            30, "the Benchmark CRD to be established")

    def test_1_kustomize_base_and_local_overlay_run_the_operator(self):
        for path in ("manifests/base", "manifests/overlays/local"):
            with self.subTest(path=path):
                self.cp.kubectl("apply", "-k", os.path.join(ROOT, path))
        self.wait_established()
        deployment = self.cp.get_json("-n", OPERATOR_NAMESPACE, "deployment", "ergobench-operator")
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual(container["image"], f"localhost/ergobench-operator:{VERSION}")
        self.assertEqual(container["securityContext"]["readOnlyRootFilesystem"], True)
        self.cp.get_json("-n", OPERATOR_NAMESPACE, "service", "ergobench-operator-metrics")
        self.cp.get_json("clusterrolebinding", "ergobench-operator")
        # The local overlay's image, never pulled: the kubelet finds it in the node's store.
        self.cp.kubectl("rollout", "status", "-n", OPERATOR_NAMESPACE, "deployment/ergobench-operator",
                        "--timeout=120s")
        # Leave the cluster empty for the chart, which must own the CRD it installs.
        self.cp.kubectl("delete", "-k", os.path.join(ROOT, "manifests/overlays/local"), "--wait=true")

    def test_2_the_charts_deployment_runs_the_operator(self):
        """The chart's Deployment as the kubelet runs it: Ready by its probes, non-root on a
        read-only root, holding its Lease with in-cluster config, creating a Benchmark's workers
        with the runner image through its ServiceAccount's RBAC; upgraded, then uninstalled,
        handing its Lease back and leaving the CRD and every Benchmark."""
        installed = self.helm("install", RELEASE, CHART, "--namespace", OPERATOR_NAMESPACE, "--create-namespace",
                              "--wait", "--timeout", "120s")
        # NOTES.txt names all three kinds, their short names and the command that lists them.
        for line in ("Benchmark       (bench)", "BenchmarkSweep  (ebsw)", "Dataset         (ebds)",
                     "kubectl get bench,ebsw,ebds -w", "kind: BenchmarkSweep",
                     "kubectl delete crd benchmarks.ergobench.io benchmarksweeps.ergobench.io datasets.ergobench.io",
                     f"helm test {RELEASE} -n {OPERATOR_NAMESPACE}"):
            self.assertIn(line, installed.stdout)
        # `helm test`: a Benchmark created, followed to Succeeded and deleted by `ergobench run
        # --cluster --rm` in a pod of the runner image, with the hook's own RBAC.
        tested = self.helm("test", RELEASE, "--namespace", OPERATOR_NAMESPACE, "--logs", "--timeout", "300s", check=False)
        self.assertEqual(tested.returncode, 0, tested.stdout + tested.stderr)
        self.assertIn("Phase:          Succeeded", tested.stdout)
        self.assertRegex(tested.stdout, rf"{RELEASE}-test: Succeeded · [0-9.]+ [kMG]?B/s")
        self.assertEqual(self.cp.get_json("-n", OPERATOR_NAMESPACE, "benchmarks")["items"], [], "--rm deleted it")
        # The pod stays for `--logs` until the next `helm test`; its RBAC went once it passed.
        self.assertEqual(self.cp.kubectl("get", "-n", OPERATOR_NAMESPACE, "role,rolebinding,serviceaccount,configmap",
                                         "-l", "app.kubernetes.io/name=ergobench-helm-test", "-o", "name").stdout, "")
        self.cp.kubectl("delete", "-n", OPERATOR_NAMESPACE, "pod", f"{RELEASE}-test")
        (pod,) = self.operator_pods()
        self.assertEqual(pod["spec"]["containers"][0]["image"], f"ergobench-operator:{VERSION}")
        self.assertTrue(all(c["ready"] for c in pod["status"]["containerStatuses"]))
        self.assertEqual(pod["spec"]["securityContext"]["runAsUser"], 65532)
        self.assertTrue(pod["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"])
        self.cp.wait_for(lambda: self.leader() == pod["metadata"]["name"], 30, "the operator to hold its Lease")

        self.cp.kubectl("create", "namespace", "install-check")
        benchmark = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": "b"},
                     "spec": {"task": "0a", "workers": 2, "resources": {"cpu": "500m"},
                              "scheduling": {"ranksPerNode": 2},  # one node
                              "hyperparameters": {"maxElements": 4096, "repetitions": 3, "warmup": 1}}}
        self.cp.kubectl("apply", "-n", "install-check", "-f", "-", input=json.dumps(benchmark))
        self.cp.wait_for(lambda: self.cp.get_json("-n", "install-check", "benchmark", "b").get("status", {}).get(
            "phase") == "Succeeded", 120, "the Benchmark to succeed")
        env = {e["name"]: e["value"] for e in pod["spec"]["containers"][0]["env"]}
        self.assertEqual(env["ERGOBENCH_RUNNER_IMAGE"], f"ergobench-runner:{VERSION}")
        self.assertEqual(self.operator_restarts(), 0)

        self.helm("upgrade", RELEASE, CHART, "--namespace", OPERATOR_NAMESPACE, "--set", "workers=4", "--wait")
        deployment = self.cp.get_json("-n", OPERATOR_NAMESPACE, "deployment", RELEASE)
        self.assertIn("--workers=4", deployment["spec"]["template"]["spec"]["containers"][0]["args"])
        self.wait_operator_rolled_out()
        # SIGTERM hands the Lease back, so a new replica leads at once. (Scaled to zero first:
        # `helm uninstall` removes the RBAC that the hand-back needs at the same time.)
        self.cp.kubectl("scale", "-n", OPERATOR_NAMESPACE, f"deployment/{RELEASE}", "--replicas=0")
        # Ended, not only marked for deletion: its process has ended, after handing the Lease back.
        # (Not "gone": kubelet 1.20 may remove an ended container before it reports it terminated,
        # and then keep the pod until its status manager's next resync, a minute later; a full
        # run's cluster trace showed a rolled-out replica kept 62 s so.)
        self.cp.wait_for(self.operator_processes_ended, 60, "the operator pods' processes to end")
        self.assertEqual(self.leader(), "", "the Lease handed back")
        self.helm("uninstall", RELEASE, "--namespace", OPERATOR_NAMESPACE, "--wait")
        self.assertEqual(self.cp.kubectl("get", "-n", OPERATOR_NAMESPACE, "deployment", RELEASE,
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
        self.assertEqual(can("get", "secrets", "-n", "benchmarks"), "no")

        # It runs the namespace's Benchmarks to their results under that grant (the token that
        # guards rank 0's files included), and nobody else's.
        self.cp.kubectl("rollout", "status", "-n", "ergobench-helm", "deployment/ergobench", "--timeout=120s")
        self.cp.kubectl("create", "namespace", "install-elsewhere")
        benchmark = {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": "tenant"},
                     "spec": {"task": "0a", "workers": 1, "resources": {"cpu": "500m"},
                              "hyperparameters": {"maxElements": 4096, "repetitions": 3, "warmup": 1}}}
        for namespace in ("install-elsewhere", "benchmarks"):
            self.cp.kubectl("apply", "-n", namespace, "-f", "-", input=json.dumps(benchmark))
        phase = lambda ns: self.cp.get_json("-n", ns, "benchmark", "tenant").get("status", {}).get("phase")
        self.cp.wait_for(lambda: phase("benchmarks") in ("Succeeded", "Failed"), 180, "the watched namespace's run")
        self.assertEqual(phase("benchmarks"), "Succeeded")
        data = self.cp.get_json("-n", "benchmarks", "configmap", "tenant-results")["data"]
        self.assertIn('"key":"run_stop"', data["rank-0.mllog"])
        self.cp.get_json("-n", "ergobench-helm", "secret", "ergobench-artifact-key")
        self.assertIsNone(phase("install-elsewhere"), "another namespace's Benchmark is not this operator's")
        self.assertEqual(self.cp.get_json("-n", "install-elsewhere", "pods")["items"], [])


if __name__ == "__main__":
    unittest.main()
