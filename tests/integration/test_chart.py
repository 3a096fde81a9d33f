"""The Helm chart and the kustomize manifests, rendered by the real helm and kubectl
(scripts/install-kube-tools.sh): lint, schema, one source of truth for the CRD and RBAC, the
same hardened Deployment from both, dashboards, and the monitors validated against the
Prometheus Operator's own schemas (@kubernetes-models/prometheus-operator)."""

import glob
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))

from control_plane import HELM, KUBECTL  # noqa: E402
from harness import ERGOBENCH  # noqa: E402

CHART = os.path.join(ROOT, "charts/ergobench")
CI_VALUES = sorted(glob.glob(os.path.join(CHART, "ci", "*-values.yaml")))


def run(*argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def documents(text):
    return [d for d in yaml.safe_load_all(text) if d]


def helm_template(*args):
    result = run(HELM, "template", "ergobench", CHART, "--namespace", "ergobench-system", *args)
    if result.returncode != 0:
        raise AssertionError(f"helm template {' '.join(args)}: {result.stderr}")
    return documents(result.stdout)


def promtool_test(groups, tests):
    """`promtool test rules` of `tests` (which name rules.yaml) against the rule `groups`."""
    with tempfile.TemporaryDirectory() as scratch:
        with open(os.path.join(scratch, "rules.yaml"), "w") as f:
            yaml.safe_dump(groups, f)
        with open(os.path.join(scratch, "tests.yaml"), "w") as f:
            yaml.safe_dump(tests, f)
        return subprocess.run(["promtool", "test", "rules", "tests.yaml"], cwd=scratch,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def is_hook(document):
    """A helm hook's object (templates/tests/), not part of the release."""
    return "helm.sh/hook" in document["metadata"].get("annotations", {})


def kustomize(path):
    result = run(KUBECTL, "kustomize", os.path.join(ROOT, "manifests", path))
    if result.returncode != 0:
        raise AssertionError(f"kubectl kustomize {path}: {result.stderr}")
    return documents(result.stdout)


CRDS = ("manifests/crd/benchmarks.ergobench.io.yaml", "manifests/crd/datasets.ergobench.io.yaml",
        "manifests/crd/benchmarksweeps.ergobench.io.yaml")


def find(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    if len(found) != 1:
        raise AssertionError(f"expected one {kind} {name or ''}, found {len(found)}")
    return found[0]


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return documents(f.read())


class ChartTest(unittest.TestCase):
    def test_lint_strict_for_default_and_every_ci_values_file(self):
        self.assertGreaterEqual(len(CI_VALUES), 3)
        for values in [None] + CI_VALUES:
            with self.subTest(values=values and os.path.basename(values)):
                result = run(HELM, "lint", "--strict", CHART, *(["-f", values] if values else []))
                self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
                helm_template(*(["-f", values] if values else []))

    def test_schema_rejects_bad_values_naming_the_field(self):
        for setting, message in (("logFormat=xml", "logFormat"), ("workers=0", "workers"),
                                 ("metricsPort=70000", "metricsPort"), ("imageTag=1", "imageTag"),
                                 ("monitoring.podMonitor.interval=5 seconds", "interval")):
            with self.subTest(setting=setting):
                result = run(HELM, "template", "x", CHART, "--set", setting)
                self.assertNotEqual(result.returncode, 0)
                self.assertIn(message, result.stderr)
        # Two replicas need the Lease, or both would reconcile.
        result = run(HELM, "template", "x", CHART, "--set", "leaderElect=false", "--set", "replicaCount=2")
        self.assertIn("replicaCount", result.stderr)

    def test_crds_are_the_manifests_with_only_the_charts_labels_and_keep(self):
        for path in CRDS:
            (manifest,) = load(path)
            crd = find(helm_template(), "CustomResourceDefinition", manifest["metadata"]["name"])
            self.assertEqual(crd["metadata"]["annotations"], {"helm.sh/resource-policy": "keep"})
            self.assertEqual(crd["metadata"]["labels"]["app.kubernetes.io/managed-by"], "Helm")
            del crd["metadata"]["annotations"], crd["metadata"]["labels"]
            self.assertEqual(crd, manifest, "the chart's CRD drifted from manifests/crd: run scripts/sync-chart-crd.sh")
        self.assertNotIn("annotations", find(helm_template("--set", "crd.keep=false"), "CustomResourceDefinition", "datasets.ergobench.io")["metadata"])
        self.assertEqual([d for d in helm_template("--set", "crd.enabled=false") if d["kind"] == "CustomResourceDefinition"], [])

    def test_crd_schema_nodes_hold_only_schema_keywords(self):
        """A flow-style description with a comma splits into stray keys: YAML, not the API
        server, decides, and the description is silently cut."""
        keywords = {"type", "enum", "description", "properties", "items", "required", "minimum", "maximum",
                    "exclusiveMinimum", "pattern", "format", "default", "minLength", "maxLength", "minItems",
                    "maxItems", "maxProperties", "additionalProperties", "x-kubernetes-int-or-string",
                    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-list-type", "x-kubernetes-list-map-keys"}
        def walk(node, path):
            self.assertLessEqual(set(node) - keywords, set(), path)
            for name, child in node.get("properties", {}).items():
                walk(child, f"{path}.{name}")
            if isinstance(node.get("items"), dict):
                walk(node["items"], path + "[]")
        column_fields = {"name", "type", "jsonPath", "description", "priority", "format"}
        for (crd,) in map(load, CRDS):
            for version in crd["spec"]["versions"]:
                walk(version["schema"]["openAPIV3Schema"], crd["metadata"]["name"] + " " + version["name"])
                for column in version.get("additionalPrinterColumns", []):  # the same trap in the columns
                    self.assertLessEqual(set(column) - column_fields, set(), column)

    def test_every_string_and_list_a_user_writes_is_bounded(self):
        """An unbounded string let one author crash the operator (600 characters of "é" in
        spec.task); every free-text field has a maxLength, every list a maxItems, every map a
        maxProperties, so the API server refuses what no run needs."""
        unbounded = []

        def walk(node, path):
            kind = node.get("type")
            if kind == "string" and "enum" not in node and "maxLength" not in node:
                unbounded.append(path)
            if kind == "array" and "maxItems" not in node:
                unbounded.append(path)
            if kind == "object" and ("additionalProperties" in node or node.get("x-kubernetes-preserve-unknown-fields")) \
                    and "maxProperties" not in node:
                unbounded.append(path)
            for name, child in node.get("properties", {}).items():
                walk(child, f"{path}.{name}")
            for key in ("items", "additionalProperties"):
                if isinstance(node.get(key), dict):
                    walk(node[key], f"{path}[{key}]")
        for (crd,) in map(load, CRDS):
            for version in crd["spec"]["versions"]:
                schema = version["schema"]["openAPIV3Schema"]["properties"]
                walk(schema["spec"], crd["metadata"]["name"] + " spec")
                walk(schema["status"]["properties"]["conditions"], crd["metadata"]["name"] + " status.conditions")
        self.assertEqual(unbounded, [])

    def test_rbac_is_the_manifests(self):
        manifests = (load("manifests/rbac/role.yaml") + load("manifests/rbac/role_leader_election.yaml") +
                     load("manifests/rbac/role_nodes.yaml"))
        chart = [d for d in helm_template() if not is_hook(d)]
        self.assertEqual(find(chart, "ClusterRole", "ergobench")["rules"],
                         find(manifests, "ClusterRole", "ergobench-operator")["rules"])
        self.assertEqual(find(chart, "ClusterRole", "ergobench-nodes")["rules"],
                         find(manifests, "ClusterRole", "ergobench-operator-nodes")["rules"])
        self.assertEqual(find(chart, "ClusterRole", "ergobench-nodes")["rules"],
                         [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}])
        self.assertEqual(find(chart, "Role")["rules"], find(manifests, "Role")["rules"])
        binding = find(chart, "ClusterRoleBinding", "ergobench")
        self.assertEqual(binding["subjects"], [{"kind": "ServiceAccount", "name": "ergobench", "namespace": "ergobench-system"}])

    def test_one_watched_namespace_gets_a_rolebinding_there_and_the_flag(self):
        chart = helm_template("--set", "watchNamespace=benchmarks")
        # Only the nodes' get, which is cluster-wide by nature.
        self.assertEqual([d["metadata"]["name"] for d in chart if d["kind"] == "ClusterRoleBinding"], ["ergobench-nodes"])
        binding = find(chart, "RoleBinding", "ergobench")
        self.assertEqual(binding["metadata"]["namespace"], "benchmarks")
        self.assertEqual(binding["roleRef"]["kind"], "ClusterRole")
        args = find(chart, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
        self.assertIn("--namespace=benchmarks", args)

    def test_policy_values_become_the_operators_flags(self):
        default = find(helm_template(), "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
        self.assertEqual([a for a in default if a.startswith(("--allowed-image", "--allow-"))], [],
                         "conservative by default: the runner image's repository, no scheduling escapes")
        chart = helm_template("--set", "policy.allowedImages={registry.example/team/*,ghcr.io/org/runner:*}",
                              "--set", "policy.allowTolerations=true", "--set", "policy.allowSchedulerName=true")
        args = find(chart, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
        self.assertEqual([a for a in args if a.startswith(("--allowed-image", "--allow-"))],
                         ["--allowed-image=registry.example/team/*", "--allowed-image=ghcr.io/org/runner:*",
                          "--allow-tolerations", "--allow-scheduler-name"])
        refused = run(HELM, "template", "ergobench", CHART, "--set", "policy.allowEverything=true")
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("allowEverything", refused.stderr)

    def test_network_policies_are_off_by_default_and_take_their_verbs_with_them(self):
        chart = helm_template()
        args = find(chart, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
        self.assertFalse([a for a in args if a.startswith("--network-policy")])
        self.assertNotIn("networkpolicies", json.dumps(find(chart, "ClusterRole", "ergobench")["rules"]))
        peers = [{"namespaceSelector": {"matchLabels": {"team": "monitoring"}}}]
        chart = helm_template("--set", "policy.networkPolicy.enabled=true",
                              "--set-json", f"policy.networkPolicy.metricsFrom={json.dumps(peers)}")
        args = find(chart, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
        self.assertEqual([a for a in args if a.startswith("--network-policy")],
                         ["--network-policy", "--network-policy-metrics-from=" + json.dumps(peers, separators=(",", ":"))])
        self.assertIn({"apiGroups": ["networking.k8s.io"], "resources": ["networkpolicies"], "verbs": ["get", "create"]},
                      find(chart, "ClusterRole", "ergobench")["rules"])
        refused = run(HELM, "template", "ergobench", CHART, "--set", "policy.networkPolicy.enabled=true",
                      "--set-json", 'policy.networkPolicy.metricsFrom=[{"ports": {}}]')
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("ports", refused.stderr)

    def test_chart_and_kustomize_deploy_the_same_hardened_operator(self):
        chart = find(helm_template(), "Deployment")["spec"]["template"]["spec"]
        base = find(kustomize("base"), "Deployment")["spec"]["template"]["spec"]
        for spec in (chart, base):
            pod = spec["securityContext"]
            self.assertTrue(pod["runAsNonRoot"])
            self.assertEqual(pod["runAsUser"], 65532)
            self.assertEqual(pod["seccompProfile"], {"type": "RuntimeDefault"})
            container = spec["containers"][0]
            self.assertEqual(container["securityContext"], {"allowPrivilegeEscalation": False,
                                                            "readOnlyRootFilesystem": True,
                                                            "capabilities": {"drop": ["ALL"]}})
            self.assertEqual(container["livenessProbe"]["httpGet"], {"path": "/healthz", "port": "metrics"})
            self.assertEqual(container["readinessProbe"]["httpGet"], {"path": "/readyz", "port": "metrics"})
            self.assertIn("limits", container["resources"])
            self.assertIn("--leader-elect", container["args"])
            self.assertIn("--metrics-bind-address=0.0.0.0:8080", container["args"])
        self.assertEqual(chart["containers"][0]["resources"], base["containers"][0]["resources"])
        self.assertEqual(chart["containers"][0]["image"], "ergobench-operator:0.1.0")
        self.assertEqual(chart["containers"][0]["env"], [{"name": "ERGOBENCH_RUNNER_IMAGE", "value": "ergobench-runner:0.1.0"}])

    def test_name_overrides_rename_every_object_and_keep_selectors_matching(self):
        """fullnameOverride names every object of the operator's that the release's name would;
        nameOverride goes into the names and the app.kubernetes.io/name label, which the
        Deployment's selector, its pods and the metrics Service agree on."""
        default = {(d["kind"], d["metadata"]["name"]) for d in helm_template()}
        renamed = {(d["kind"], d["metadata"]["name"]) for d in helm_template("--set", "fullnameOverride=bench-op")}
        self.assertEqual(renamed, {(kind, name.replace("ergobench", "bench-op", 1) if name.startswith("ergobench")
                                    and not name.endswith(".ergobench.io") else name) for kind, name in default})
        self.assertIn(("Deployment", "bench-op"), renamed)
        docs = helm_template("--set", "nameOverride=eb")
        deployment = find(docs, "Deployment")
        self.assertEqual(deployment["metadata"]["name"], "ergobench-eb")
        selector = deployment["spec"]["selector"]["matchLabels"]
        self.assertEqual(selector["app.kubernetes.io/name"], "eb")
        pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
        self.assertEqual({k: pod_labels[k] for k in selector}, selector)
        service = next(d for d in docs if d["kind"] == "Service")
        self.assertEqual(service["spec"]["selector"], selector)
        self.assertEqual(find(helm_template(), "Deployment")["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"],
                         "ergobench-operator", "the default an upgrade must not change: a selector is immutable")

    def test_the_readme_documents_every_value_and_ships_in_the_package(self):
        with open(os.path.join(CHART, "values.yaml")) as f:
            values = yaml.safe_load(f)
        with open(os.path.join(CHART, "README.md")) as f:
            readme = f.read()
        for key in values:
            self.assertIn(f"`{key}", readme, f"values.yaml's {key} is not in the chart's README")
        with tempfile.TemporaryDirectory() as scratch:
            packaged = run(HELM, "package", CHART, "--destination", scratch)
            self.assertEqual(packaged.returncode, 0, packaged.stderr)
            (archive,) = glob.glob(os.path.join(scratch, "*.tgz"))
            with tarfile.open(archive) as tar:
                names = tar.getnames()
            shown = run(HELM, "show", "readme", archive).stdout
        self.assertIn("ergobench/README.md", names)
        self.assertNotIn("ergobench/ci/ha-values.yaml", names)
        self.assertEqual(shown.strip(), readme.strip(), "helm show readme")

    def test_the_helm_test_follows_a_benchmark_that_validates_with_only_its_verbs(self):
        """`helm test`'s objects: hooks with labels the operator's selector does not match, a Role
        with only the verbs `ergobench run --cluster --rm` sends, in the namespace the operator
        watches, and a Benchmark that the real CLI validates."""
        hooks = [d for d in helm_template("--set", "watchNamespace=benchmarks") if is_hook(d)]
        self.assertEqual(sorted(d["kind"] for d in hooks), ["ConfigMap", "Pod", "Role", "RoleBinding", "ServiceAccount"])
        for d in hooks:
            self.assertEqual(d["metadata"]["labels"]["app.kubernetes.io/name"], "ergobench-helm-test")
            self.assertEqual(d["metadata"]["annotations"]["helm.sh/hook"], "test")
            # The pod stays for `helm test --logs`; the rest goes once the test passed.
            self.assertEqual(d["metadata"]["annotations"]["helm.sh/hook-delete-policy"],
                             "before-hook-creation" + ("" if d["kind"] == "Pod" else ",hook-succeeded"))
        role = find(hooks, "Role")
        self.assertEqual((role["metadata"]["namespace"], role["rules"]),
                         ("benchmarks", [{"apiGroups": ["ergobench.io"], "resources": ["benchmarks"],
                                          "verbs": ["get", "create", "delete"]}]))
        pod = find(hooks, "Pod")
        self.assertEqual(pod["spec"]["containers"][0]["command"],
                         ["ergobench", "run", "--cluster", "--rm", "--timeout", "300", "--namespace", "benchmarks",
                          "/etc/ergobench-test/benchmark.yaml"])
        self.assertEqual(pod["spec"]["containers"][0]["image"], "ergobench-runner:0.1.0")
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "benchmark.yaml")
            with open(path, "w") as f:
                f.write(find(hooks, "ConfigMap")["data"]["benchmark.yaml"])
            checked = run(ERGOBENCH, "validate", path)
            self.assertEqual(checked.returncode, 0, checked.stderr)
        self.assertEqual([d for d in helm_template("--set", "helmTest.enabled=false") if is_hook(d)], [])

    def test_images_and_the_runner_image_come_from_values(self):
        spec = find(helm_template("-f", os.path.join(CHART, "ci/namespaced-values.yaml")), "Deployment")
        container = spec["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual(container["image"], "localhost/ergobench-operator:0.1.0")
        self.assertEqual(container["imagePullPolicy"], "Never")
        self.assertEqual(container["env"][0]["value"], "localhost/ergobench-runner:0.1.0")

    def test_the_price_catalog_is_a_configmap_a_team_replaces_or_extends(self):
        with open(os.path.join(CHART, "files/price-catalog.yaml")) as f:
            shipped = f.read()
        chart = helm_template()
        prices = find(chart, "ConfigMap", "ergobench-prices")
        self.assertEqual(prices["data"], {"00-price-catalog.yaml": shipped})
        pod = find(chart, "Deployment")["spec"]["template"]["spec"]
        args = pod["containers"][0]["args"]
        self.assertIn("--price-catalog=/etc/ergobench/prices", args)
        self.assertIn("--price-max-age-days=365", args)
        self.assertEqual(pod["containers"][0]["volumeMounts"],
                         [{"name": "prices", "mountPath": "/etc/ergobench/prices", "readOnly": True}])
        self.assertEqual(pod["volumes"][0]["projected"]["sources"], [{"configMap": {"name": "ergobench-prices"}}])

        extra = {"prices": [{"instanceType": "our-node", "currency": "EUR", "onDemandHour": 1.5,
                             "effectiveDate": "2026-11-01", "source": "https://example.org/contract"}]}
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as values:
            yaml.safe_dump({"prices": {"existingConfigMap": "our-prices", "extra": extra, "maxAgeDays": 90}}, values)
            values.flush()
            chart = helm_template("-f", values.name)
        prices = find(chart, "ConfigMap", "ergobench-prices")
        self.assertEqual(list(prices["data"]), ["zz-values-extra.yaml"], "the shipped catalog is replaced")
        self.assertEqual(yaml.safe_load(prices["data"]["zz-values-extra.yaml"]), extra)
        pod = find(chart, "Deployment")["spec"]["template"]["spec"]
        self.assertEqual(pod["volumes"][0]["projected"]["sources"],
                         [{"configMap": {"name": "our-prices"}}, {"configMap": {"name": "ergobench-prices"}}])
        self.assertIn("--price-max-age-days=90", pod["containers"][0]["args"])
        bad = run(HELM, "template", "ergobench", CHART, "--set", "prices.maxAgeDay=30")
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("maxAgeDay", bad.stderr)

    def test_dashboards_are_generated_and_shipped_as_labelled_configmaps(self):
        check = run(sys.executable, os.path.join(ROOT, "scripts/dashboards.py"), "--check")
        self.assertEqual(check.returncode, 0, check.stderr)
        maps = [d for d in helm_template("-f", os.path.join(CHART, "ci/monitoring-values.yaml"))
                if d["kind"] == "ConfigMap" and "dashboard" in d["metadata"]["name"]]
        self.assertEqual(sorted(m["metadata"]["name"] for m in maps),
                         ["ergobench-dashboard-benchmarks", "ergobench-dashboard-operator", "ergobench-dashboard-run"])
        for m in maps:
            self.assertEqual(m["metadata"]["labels"]["grafana_dashboard"], "1")
            self.assertEqual(m["metadata"]["namespace"], "monitoring")
            ((name, text),) = m["data"].items()
            with open(os.path.join(CHART, "dashboards", name)) as f:
                self.assertEqual(json.loads(text), json.load(f))
            dashboard = json.loads(text)
            self.assertTrue(all(p["type"] in ("timeseries", "bargauge") for p in dashboard["panels"]))
        run_dashboard = json.loads(next(m for m in maps if m["metadata"]["name"].endswith("-run"))["data"]["run.json"])
        self.assertEqual([v["name"] for v in run_dashboard["templating"]["list"]],
                         ["datasource", "namespace", "benchmark", "rank"])

    def test_kustomize_overlays_build(self):
        kinds = {path: sorted(d["kind"] for d in kustomize(path))
                 for path in ("base", "overlays/local", "overlays/ha", "overlays/monitoring")}
        self.assertIn("Deployment", kinds["base"])
        self.assertIn("PodDisruptionBudget", kinds["overlays/ha"])
        self.assertEqual(sorted(set(kinds["overlays/monitoring"]) - set(kinds["base"])),
                         ["PodMonitor", "PrometheusRule", "ServiceMonitor"])
        ha = find(kustomize("overlays/ha"), "Deployment")
        self.assertEqual(ha["spec"]["replicas"], 2)
        local = find(kustomize("overlays/local"), "Deployment")["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual(local["image"], "localhost/ergobench-operator:0.1.0")
        self.assertEqual(local["imagePullPolicy"], "Never")

    def test_the_energy_agent_is_off_by_default_and_least_privilege_when_on(self):
        self.assertNotIn("DaemonSet", [d["kind"] for d in helm_template()])
        self.assertNotIn("DaemonSet", [d["kind"] for d in kustomize("base")])
        chart = helm_template("--set", "energyAgent.enabled=true")
        overlay = kustomize("overlays/energy")
        for docs in (chart, overlay):
            operator = find(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
            self.assertIn("--energy-agent-port=9810", operator["args"])
            spec = find(docs, "DaemonSet")["spec"]["template"]["spec"]
            for host_access in ("hostNetwork", "hostPID", "hostIPC"):
                self.assertNotIn(host_access, spec)
            (agent,) = spec["containers"]
            self.assertEqual(agent["command"], ["ergobench-energy-agent"])
            self.assertEqual(agent["securityContext"], {"allowPrivilegeEscalation": False,
                                                        "readOnlyRootFilesystem": True,
                                                        "capabilities": {"drop": ["ALL"]}})
            self.assertEqual(agent["ports"][0]["hostPort"], 9810)
            self.assertTrue(all(m["readOnly"] for m in agent["volumeMounts"]))
            self.assertEqual(sorted(v["hostPath"]["path"] for v in spec["volumes"]), ["/sys/class", "/sys/devices"])
            self.assertEqual(find(docs, "ClusterRole", "ergobench-energy-agent")["rules"],
                             [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch"]}])
            self.assertNotIn("NVIDIA_VISIBLE_DEVICES", [e["name"] for e in agent["env"]], "no GPU unless asked for")
        # No finer than 100 ms: what it serves is for runs, not for telling instructions apart.
        refused = run(HELM, "template", "ergobench", CHART, "--set", "energyAgent.enabled=true",
                      "--set", "energyAgent.interval=50")
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("interval", refused.stderr)
        gpus = find(helm_template("--set", "energyAgent.enabled=true", "--set", "energyAgent.gpus=true"), "DaemonSet")
        self.assertIn({"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
                      gpus["spec"]["template"]["spec"]["containers"][0]["env"])
        # The agent's pods are not the operator's: neither its Deployment nor its Service selects them.
        labels = find(chart, "DaemonSet")["spec"]["template"]["metadata"]["labels"]
        selector = find(chart, "Deployment")["spec"]["selector"]["matchLabels"]
        self.assertFalse(all(labels.get(k) == v for k, v in selector.items()))

    def test_monitors_validate_against_the_prometheus_operator_schemas(self):
        install = run(os.path.join(ROOT, "scripts/install-kube-tools.sh"), "--monitors")
        self.assertEqual(install.returncode, 0, install.stderr)
        models = install.stdout.strip().splitlines()[-1]
        monitors = [d for d in helm_template("-f", os.path.join(CHART, "ci/monitoring-values.yaml"))
                    if d["apiVersion"].startswith("monitoring.coreos.com/")]
        monitors += [d for d in kustomize("overlays/monitoring") if d["apiVersion"].startswith("monitoring.coreos.com/")]
        self.assertEqual(sorted(m["kind"] for m in monitors),
                         ["PodMonitor", "PodMonitor", "PrometheusRule", "PrometheusRule", "ServiceMonitor", "ServiceMonitor"])
        # A broken one must fail, or the check proves nothing.
        broken = json.loads(json.dumps(monitors[0]))
        broken["spec"]["podMetricsEndpoints"][0]["interval"] = "5 seconds"
        script = ("import * as v1 from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';\n"
                  "const docs = JSON.parse(process.argv[1]); const errors = [];\n"
                  "for (const d of docs) { try { new v1[d.kind](d).validate(); errors.push(null); }"
                  " catch (e) { errors.push(e.message); } }\n"
                  "console.log(JSON.stringify(errors));\n")
        result = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps(monitors + [broken])],
                                cwd=models, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        errors = json.loads(result.stdout)
        self.assertEqual(errors[:-1], [None] * len(monitors))
        self.assertIn("interval", errors[-1])

    def test_the_regression_alert_fires_for_a_regressed_benchmark_only(self):
        """Prometheus' own promtool evaluates the shipped rule on series as the operator exports
        them: one regressed Benchmark alerts, with its labels and the kubectl line; one within
        its bands, and one without a baseline, do not."""
        with open(os.path.join(CHART, "files/rules.yaml")) as f:
            groups = yaml.safe_load(f)
        rule = find(helm_template("-f", os.path.join(CHART, "ci/monitoring-values.yaml")), "PrometheusRule")
        self.assertEqual(rule["spec"], groups)
        self.assertEqual(rule["metadata"]["labels"]["release"], "prometheus")
        self.assertEqual(find(kustomize("overlays/monitoring"), "PrometheusRule")["spec"], groups)
        self.assertEqual([d["kind"] for d in helm_template() if d["kind"] == "PrometheusRule"], [], "off by default")

        labels = 'namespace="team",task="fmnist",backend="gloo",workers="2",instance_type="c5.4xlarge"'
        tests = {
            "rule_files": ["rules.yaml"],
            "evaluation_interval": "1m",
            "tests": [{
                "interval": "1m",
                "input_series": [
                    {"series": f'ergobench_benchmark_regressed{{{labels},benchmark="slow"}}', "values": "1x5"},
                    {"series": f'ergobench_benchmark_regressed{{{labels},benchmark="same"}}', "values": "0x5"},
                    {"series": f'ergobench_benchmark_samples_per_second{{{labels},benchmark="plain"}}',
                     "values": "100x5"},
                ],
                "alert_rule_test": [{
                    "eval_time": "3m",
                    "alertname": "ErgobenchBenchmarkRegressed",
                    "exp_alerts": [{
                        "exp_labels": {"severity": "warning", "namespace": "team", "benchmark": "slow",
                                       "task": "fmnist", "backend": "gloo", "workers": "2",
                                       "instance_type": "c5.4xlarge"},
                        "exp_annotations": {
                            "summary": "Benchmark team/slow regressed against its baseline",
                            "description": "Task fmnist on 2 gloo workers got worse than its spec.baseline allows. "
                                           "kubectl -n team get benchmark slow -o jsonpath='{.status.conditions"
                                           "[?(@.type==\"Regressed\")].message}' names the figure.",
                        },
                    }],
                }],
            }],
        }
        checked = promtool_test(groups, tests)
        self.assertEqual(checked.returncode, 0, checked.stdout)
        # The same test must fail against a rule that fires on every series.
        broken = json.loads(json.dumps(groups))
        broken["groups"][0]["rules"][0]["expr"] = "ergobench_benchmark_regressed >= 0"
        failed = promtool_test(broken, tests)
        self.assertNotEqual(failed.returncode, 0, failed.stdout)

    def test_the_recorded_communication_ratio_is_the_wait_over_the_step_time(self):
        """promtool evaluates the shipped recording rule on a rank's phase counters as the runner
        exports them: 15 s of communication a minute over 60 s of step time (data 5, forward 20,
        backward 15, optimizer 5, communication 15) is 0.25; an evaluation's 60 s a minute is no
        step time and changes nothing."""
        with open(os.path.join(CHART, "files/rules.yaml")) as f:
            groups = yaml.safe_load(f)
        labels = 'namespace="team",benchmark="b",task="fmnist",rank="0",world_size="2",backend="gloo"'
        per_minute = {"data": 5, "forward": 20, "backward": 15, "optimizer": 5, "communication": 15, "eval": 60}
        tests = {
            "rule_files": ["rules.yaml"],
            "evaluation_interval": "1m",
            "tests": [{
                "interval": "1m",
                "input_series": [{"series": f'ergobench_phase_seconds_total{{{labels},phase="{phase}"}}',
                                  "values": f"0+{seconds}x10"} for phase, seconds in per_minute.items()],
                "promql_expr_test": [{
                    "expr": "rank:ergobench_communication_ratio:rate1m",
                    "eval_time": "5m",
                    "exp_samples": [{"labels": 'rank:ergobench_communication_ratio:rate1m{namespace="team",'
                                               'benchmark="b",task="fmnist",rank="0"}', "value": 0.25}],
                }],
            }],
        }
        checked = promtool_test(groups, tests)
        self.assertEqual(checked.returncode, 0, checked.stdout)


if __name__ == "__main__":
    unittest.main()
