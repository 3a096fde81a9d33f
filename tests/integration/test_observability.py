"""The Grafana dashboards on a real Prometheus (Debian's package). Prometheus scrapes:
- local runs (`ergobench run --metrics-port`): fmnist and task 0a with k=2, and a tiny GPT
  on Debian's license texts, with static targets labelled namespace="local";
- on the real cluster (cluster_suite.py), the runner pods of fmnist with k=1 and k=2 and the
  operator installed by the chart, found through the API server by the selection of the
  chart's own PodMonitor and ServiceMonitor (Debian builds Prometheus without kubernetes_sd,
  so the test lists pods and Endpoints and hands them over as file_sd targets, with the
  labels the Prometheus Operator would give).
The node's RAPL counter is a fixture (FakeRapl at a known power, mounted into the containers
by runc_node_sysfs.py): this machine has none. Every PromQL expression and template-variable
query in every dashboard must return data, and some must return known values."""

import glob
import json
import os
import re
import signal
import subprocess
import threading
import time
import unittest
import urllib.parse
import urllib.request

import yaml

from cluster_suite import NODE_WATTS as WATTS, OPERATOR_NAMESPACE, RELEASE, ROOT, ClusterSuite
from control_plane import HELM, free_port
from harness import ERGOBENCH, benchmark_yaml, free_port_block
from test_language_model import gpt_yaml

PROMETHEUS = "/usr/bin/prometheus"
NAMESPACE = "obs"
RATE_INTERVAL = "5s"  # what Grafana's $__rate_interval is at a 1 s scrape interval
# Three workers at once beside the operator's 50m, on 2 CPUs.
WORKER_CPU = "600m"


def fmnist(name, workers):
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name},
            "spec": {"task": "fmnist", "workers": workers, "backend": "gloo", "resources": {"cpu": WORKER_CPU},
                     "scheduling": {"ranksPerNode": workers},  # one node
                     "pricing": {"workerHour": 0.2092}}}


def chart_monitors():
    """The PodMonitor and ServiceMonitor the chart renders when monitoring is on."""
    rendered = subprocess.run([HELM, "template", RELEASE, os.path.join(ROOT, "charts/ergobench"), "--namespace",
                               OPERATOR_NAMESPACE, "--set", "monitoring.podMonitor.enabled=true",
                               "--set", "monitoring.serviceMonitor.enabled=true"],
                              check=True, stdout=subprocess.PIPE, text=True).stdout
    docs = {d["kind"]: d for d in yaml.safe_load_all(rendered) if d}
    return docs["PodMonitor"], docs["ServiceMonitor"]


def selector(match_labels):
    return ",".join(f"{k}={v}" for k, v in sorted(match_labels.items()))


@unittest.skipUnless(os.path.exists(PROMETHEUS), "needs Debian's prometheus (scripts/install-deps.sh --tests)")
class ObservabilityTest(ClusterSuite):

    @classmethod
    def setUpClass(cls):
        cls.start = time.time()
        cls.processes = []
        cls.stop_discovery = threading.Event()
        super().setUpClass()
        try:
            cls.prometheus_port = free_port()
            cls.local_ports = free_port_block(5)  # metrics ports of the local runs, taken minutes later
            cls.start_prometheus()
            cls.run_benchmarks()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.stop_discovery.set()
        for proc in reversed(cls.processes):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
        super().tearDownClass()

    @classmethod
    def spawn(cls, name, argv, **kwargs):
        with open(os.path.join(cls.tmp, name + ".log"), "w") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, **kwargs)
        cls.processes.append(proc)
        return proc

    # --- service discovery, as the Prometheus Operator configures it ---------------------
    @classmethod
    def pod_monitor_targets(cls, monitor):
        """kubernetes_sd role pod: a target per pod of the selection, at its named port."""
        endpoint = monitor["spec"]["podMetricsEndpoints"][0]
        pods = cls.cluster.get_json("pods", "-A", "-l", selector(monitor["spec"]["selector"]["matchLabels"]))
        targets = []
        for pod in pods["items"]:
            ip = pod.get("status", {}).get("podIP")
            ports = [p["containerPort"] for c in pod["spec"]["containers"] for p in c.get("ports", [])
                     if p.get("name") == endpoint["port"]]
            if ip and ports and pod["status"].get("phase") == "Running":
                targets.append({"targets": [f"{ip}:{ports[0]}"],
                                "labels": {"namespace": pod["metadata"]["namespace"], "pod": pod["metadata"]["name"],
                                           "__metrics_path__": endpoint["path"]}})
        return targets

    @classmethod
    def service_monitor_targets(cls, monitor):
        """kubernetes_sd role endpoints: the selected Services' ready addresses, at the port
        of that name, in the monitor's own namespace."""
        endpoint = monitor["spec"]["endpoints"][0]
        ns = monitor["metadata"]["namespace"]
        services = cls.cluster.get_json("-n", ns, "services", "-l", selector(monitor["spec"]["selector"]["matchLabels"]))
        targets = []
        for service in services["items"]:
            endpoints = cls.cluster.get_json("-n", ns, "endpoints", service["metadata"]["name"])
            for subset in endpoints.get("subsets", []):
                ports = [p["port"] for p in subset.get("ports", []) if p.get("name") == endpoint["port"]]
                for address in subset.get("addresses", []) if ports else []:
                    targets.append({"targets": [f"{address['ip']}:{ports[0]}"],
                                    "labels": {"service": service["metadata"]["name"],
                                               "pod": address.get("targetRef", {}).get("name", ""),
                                               "__metrics_path__": endpoint["path"]}})
        return targets

    @classmethod
    def discover(cls, pod_monitor, service_monitor):
        while not cls.stop_discovery.wait(0.5):
            for name, targets in (("runners", lambda: cls.pod_monitor_targets(pod_monitor)),
                                  ("operator", lambda: cls.service_monitor_targets(service_monitor))):
                try:
                    found = targets()
                except AssertionError:
                    continue  # the API server restarting: keep the last list
                path = os.path.join(cls.tmp, f"{name}.json")
                with open(path + ".tmp", "w") as f:
                    json.dump(found, f)
                os.replace(path + ".tmp", path)

    @classmethod
    def start_prometheus(cls):
        pod_monitor, service_monitor = chart_monitors()
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [
                {"job_name": "ergobench-operator",
                 "honor_labels": service_monitor["spec"]["endpoints"][0].get("honorLabels", False),
                 "file_sd_configs": [{"files": [os.path.join(cls.tmp, "operator.json")], "refresh_interval": "1s"}]},
                {"job_name": "ergobench-runners",
                 "file_sd_configs": [{"files": [os.path.join(cls.tmp, "runners.json")], "refresh_interval": "1s"}]},
                {"job_name": "ergobench-local",
                 "static_configs": [{"targets": [f"127.0.0.1:{cls.local_ports + i}" for i in range(5)],
                                     "labels": {"namespace": "local"}}]},
            ],
        }
        threading.Thread(target=cls.discover, args=(pod_monitor, service_monitor), daemon=True).start()
        path = os.path.join(cls.tmp, "prometheus.yml")
        with open(path, "w") as f:
            json.dump(config, f)  # JSON is YAML
        prometheus = cls.spawn("prometheus", [PROMETHEUS, f"--config.file={path}", f"--storage.tsdb.path={cls.tmp}/tsdb",
                                              f"--web.listen-address=127.0.0.1:{cls.prometheus_port}"])

        def scraped():
            if prometheus.poll() is not None:
                raise AssertionError(f"prometheus exited; see {cls.tmp}/prometheus.log")
            # Its API answers 503 until its storage is open (/-/ready): slow on a busy machine.
            return cls.ready() and cls.query("up{job='ergobench-operator'} == 1")
        cls.cluster.wait_for(scraped, 60, "Prometheus's first scrape of the operator pod")

    @classmethod
    def run_benchmarks(cls):
        cls.cluster.kubectl("create", "namespace", NAMESPACE)
        # A region of the price catalog's grid intensities: the runs have a carbon figure to chart.
        node = cls.cluster.get_json("nodes")["items"][0]["metadata"]["name"]
        cls.cluster.kubectl("label", "node", node, "--overwrite", "topology.kubernetes.io/region=us-east-1")
        for workers in (1, 2):
            cls.cluster.kubectl("apply", "-n", NAMESPACE, "-f", "-", input=json.dumps(fmnist(f"fmnist-k{workers}", workers)))
        # Meanwhile, the local runs: fmnist on ports +0/+1, task 0a on +2/+3, gpt on +4.
        env = dict(os.environ, ERGOBENCH_SYSFS_ROOT=cls.node_sysfs)
        local = os.path.join(cls.tmp, "local")
        os.makedirs(local)
        for name, port, text in (
                ("local-fmnist", cls.local_ports, benchmark_yaml("local-fmnist", 2, task="fmnist").split("  hyperparameters:")[0]),
                ("local-0a", cls.local_ports + 2, benchmark_yaml("local-0a", 2, maxElements=4194304, repetitions=20)),
                ("local-gpt", cls.local_ports + 4, gpt_yaml("local-gpt", maxSteps=80, evalInterval=10))):
            with open(os.path.join(local, name + ".yaml"), "w") as f:
                f.write(text)
            run = subprocess.run([ERGOBENCH, "run", "-q", "--metrics-port", str(port), name + ".yaml"], cwd=local,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
            if run.returncode != 0:
                raise AssertionError(f"{name}: {run.stdout}")

        def finished():
            phases = [cls.cluster.get_json("-n", NAMESPACE, "benchmark", f"fmnist-k{k}").get("status", {}).get("phase")
                      for k in (1, 2)]
            if "Failed" in phases:
                raise AssertionError(f"a Benchmark failed: {phases}")
            return phases == ["Succeeded", "Succeeded"]
        cls.cluster.wait_for(finished, 600, "fmnist-k1 and fmnist-k2 to succeed")
        # Two more scrapes of the operator's final gauges.
        time.sleep(3)

    # --- Prometheus's HTTP API ------------------------------------------------------------
    @classmethod
    def ready(cls):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{cls.prometheus_port}/-/ready", timeout=10) as r:
                return r.status == 200
        except OSError:  # refused while it starts; HTTPError 503 while its storage opens
            return False

    @classmethod
    def api(cls, path, **params):
        url = f"http://127.0.0.1:{cls.prometheus_port}/api/v1/{path}?" + urllib.parse.urlencode(params, doseq=True)
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                body = json.load(r)
        except urllib.error.HTTPError as e:
            raise AssertionError(f"{path} {params}: {e.code} {e.read().decode()}") from e
        except OSError:
            return None
        assert body["status"] == "success", body
        return body["data"]

    @classmethod
    def query(cls, expr):
        data = cls.api("query", query=expr)
        return data["result"] if data else []

    def query_range(self, expr):
        """Series of `expr` from the start of the test until now, every second."""
        return self.api("query_range", query=expr, start=self.start, end=time.time(), step=1)["result"]

    @staticmethod
    def substitute(text):
        text = text.replace("$__rate_interval", RATE_INTERVAL)
        return re.sub(r"\$\{?(namespace|benchmark|rank|instance)\}?", ".*", text)

    # --- the tests ------------------------------------------------------------------------
    def test_every_dashboard_query_returns_data(self):
        dashboards = sorted(glob.glob(os.path.join(ROOT, "charts/ergobench/dashboards/*.json")))
        self.assertEqual(len(dashboards), 3)
        checked = 0
        for path in dashboards:
            with open(path) as f:
                dashboard = json.load(f)
            for panel in dashboard["panels"]:
                for target in panel["targets"]:
                    with self.subTest(dashboard=os.path.basename(path), panel=panel["title"], expr=target["expr"]):
                        result = self.query_range(self.substitute(target["expr"]))
                        self.assertTrue(result and result[0]["values"], "no data")
                        checked += 1
            for variable in dashboard["templating"]["list"]:
                if variable["type"] != "query":
                    continue
                match = re.fullmatch(r"label_values\((.+), (\w+)\)", variable["query"]["query"])
                series, label = match.groups()
                with self.subTest(dashboard=os.path.basename(path), variable=variable["name"]):
                    values = self.api(f"label/{label}/values", **{"match[]": self.substitute(series),
                                                                  "start": self.start, "end": time.time()})
                    self.assertTrue(values, "no values")
                    checked += 1
        print(f"{checked} dashboard queries returned data")
        self.assertGreater(checked, 30)

    def test_namespaces_and_ranks_reach_the_run_dashboard(self):
        namespaces = self.api("label/namespace/values", **{"match[]": "ergobench_samples_total"})
        self.assertEqual(sorted(namespaces), ["local", NAMESPACE])
        ranks = self.api("label/rank/values", **{"match[]": 'ergobench_samples_total{benchmark="local-fmnist"}'})
        self.assertEqual(sorted(ranks), ["0", "1"])
        pods = self.api("label/pod/values", **{"match[]": f'ergobench_samples_total{{namespace="{NAMESPACE}"}}'})
        self.assertEqual(sorted(pods), ["fmnist-k1-worker-0", "fmnist-k2-worker-0", "fmnist-k2-worker-1"])

    def test_power_is_the_fixtures_split_between_the_ranks_of_a_host(self):
        # Two local ranks share the host's package: 50 W each, while both ran.
        for series in self.query_range('ergobench_power_watts{namespace="local", benchmark="local-fmnist"}'):
            watts = sorted(float(v) for _, v in series["values"])
            median = watts[len(watts) // 2]
            self.assertAlmostEqual(median, WATTS / 2, delta=0.1 * WATTS, msg=series["metric"])

    def test_a_pod_reads_the_nodes_counter_through_its_container(self):
        # fmnist-k1's one rank: the node's whole package (energy per node is issue 15's agent).
        (series,) = self.query_range(f'ergobench_power_watts{{namespace="{NAMESPACE}", benchmark="fmnist-k1"}}')
        watts = sorted(float(v) for _, v in series["values"])
        self.assertAlmostEqual(watts[len(watts) // 2], WATTS, delta=0.1 * WATTS, msg=series["metric"])

    def test_ranks_placed_on_one_node_split_its_counter(self):
        # fmnist-k2 with ranksPerNode 2: its two pods share the node's package, 50 W each.
        series = self.query_range(f'ergobench_power_watts{{namespace="{NAMESPACE}", benchmark="fmnist-k2"}}')
        self.assertEqual(len(series), 2)
        for one in series:
            watts = sorted(float(v) for _, v in one["values"])
            self.assertAlmostEqual(watts[len(watts) // 2], WATTS / 2, delta=0.1 * WATTS, msg=one["metric"])

    def test_across_benchmarks_values_are_the_benchmarks_results(self):
        for k in (1, 2):
            results = self.cluster.get_json("-n", NAMESPACE, "benchmark", f"fmnist-k{k}")["status"]["results"]
            selector = f'{{namespace="{NAMESPACE}", benchmark="fmnist-k{k}"}}'
            (tta,) = self.query(f"ergobench_benchmark_time_to_accuracy_seconds{selector}")
            self.assertAlmostEqual(float(tta["value"][1]), results["timeToAccuracySeconds"], places=6)
            self.assertEqual(tta["metric"]["workers"], str(k))
            (cost,) = self.query(f"ergobench_benchmark_cost_to_accuracy{selector}")
            self.assertAlmostEqual(float(cost["value"][1]), results["costToAccuracyUSD"], places=9)
            self.assertEqual(cost["metric"]["currency"], results["currency"])
            (energy,) = self.query(f"ergobench_benchmark_energy_to_accuracy_joules{selector}")
            self.assertAlmostEqual(float(energy["value"][1]) / 3600, results["energyToAccuracyWh"], places=9)
        with open(os.path.join(ROOT, "charts/ergobench/dashboards/benchmarks.json")) as f:
            panel = next(p for p in json.load(f)["panels"] if p["title"] == "Scaling efficiency")
        efficiency = {r["metric"]["workers"]: float(r["value"][1])
                      for r in self.query(self.substitute(panel["targets"][0]["expr"]))}
        # Ground truth from the runs themselves: (samples/s at k=2, per worker) over samples/s at k=1.
        rate = {k: self.cluster.get_json("-n", NAMESPACE, "benchmark", f"fmnist-k{k}")["status"]["results"]
                ["samplesPerSecond"] for k in (1, 2)}
        self.assertAlmostEqual(efficiency["1"], 1.0, places=9)
        self.assertAlmostEqual(efficiency["2"], (rate[2] / 2) / rate[1], places=6)


if __name__ == "__main__":
    unittest.main()
