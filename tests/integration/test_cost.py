"""Cost from the nodes actually used, on the real cluster: the test labels the node as one cloud
instance type in one region, runs a Benchmark, relabels it as another type in another region,
runs a second; each is priced from the shipped catalog (the chart's ConfigMap) by those labels,
with the stale price flagged, and `ergobench report` shows the two systems side by side, each its
own baseline, with a Pareto chart that headless Chromium renders."""

import json
import os
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

import yaml

from cluster_suite import ROOT, NamespacedClusterSuite, WORKER_CPU
from harness import BIN_DIR, CHROMIUM, png_pixels, screenshot

ERGOBENCH = os.path.join(BIN_DIR, "ergobench")
SVG = "{http://www.w3.org/2000/svg}"
# Two systems of the shipped catalog: one price dated more than a year ago (stale at the chart's
# default limit of 365 days), one recent.
SYSTEMS = {"on-c5": ("c5.4xlarge", "us-east-1"), "on-n2": ("n2-standard-8", "europe-west4")}
MEMORY = "1Gi"


def quantity(text):
    """A Kubernetes quantity as a number: "1900m", "2", "24584348Ki"."""
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 1e3, "M": 1e6, "G": 1e9}
    for suffix, factor in sorted(units.items(), key=lambda u: -len(u[0])):
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * factor
    return float(text)


def catalog_price(instance_type, region):
    with open(os.path.join(ROOT, "charts/ergobench/files/price-catalog.yaml")) as f:
        prices = yaml.safe_load(f)["prices"]
    return next(p for p in prices if p["instanceType"] == instance_type and p.get("region") == region)


class CostTest(NamespacedClusterSuite):
    def label_node(self, instance_type, region):
        node = self.cp.get_json("nodes")["items"][0]["metadata"]["name"]
        self.cp.kubectl("label", "node", node, "--overwrite", f"node.kubernetes.io/instance-type={instance_type}",
                        f"topology.kubernetes.io/region={region}")
        return self.cp.get_json("node", node)

    def run_on(self, name, instance_type, region):
        node = self.label_node(instance_type, region)
        spec = {"task": "fmnist", "workers": 1, "resources": {"cpu": WORKER_CPU, "memory": MEMORY}}
        self.apply({"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name}, "spec": spec})
        status = self.wait_phase(name, ["Succeeded", "Failed"], timeout=300)
        self.assertEqual(status["phase"], "Succeeded", json.dumps(status, indent=1))
        return node, status["results"]

    def test_two_systems_priced_from_the_catalog_by_their_labels_and_reported_side_by_side(self):
        for name, (instance_type, region) in SYSTEMS.items():
            node, results = self.run_on(name, instance_type, region)
            price = catalog_price(instance_type, region)
            system = results["system"]
            self.assertEqual((system["instanceType"], system["region"]), (instance_type, region), system)
            self.assertEqual(system["nodes"], [node["metadata"]["name"]])
            # No energy agent said the node was the run's alone: its requested share is paid.
            allocatable = node["status"]["allocatable"]
            share = max(quantity(WORKER_CPU) / quantity(allocatable["cpu"]), quantity(MEMORY) / quantity(allocatable["memory"]))
            expected = min(share, 1) * price["onDemandHour"] * results["runSeconds"] / 3600
            self.assertAlmostEqual(results["costUSD"], expected, delta=expected * 1e-9)
            self.assertAlmostEqual(results["costToAccuracyUSD"],
                                   expected * results["timeToAccuracySeconds"] / results["runSeconds"], delta=1e-9)
            self.assertTrue(results["costBasis"].startswith("requested share: "), results["costBasis"])
            used = results["prices"][0]
            self.assertEqual((used["effectiveDate"], used["source"]), (price["effectiveDate"], price["source"]))
            stale = [w for w in results.get("costWarnings", []) if w.startswith("stale price: ")]
            self.assertEqual(bool(stale), used["ageDays"] > 365, results.get("costWarnings"))
        self.assertTrue(self.status("on-c5")["results"]["prices"][0].get("stale"), "the 2025 price is stale")
        self.assertFalse(self.status("on-n2")["results"]["prices"][0].get("stale"), "the 2026 price is not")

        charts = tempfile.mkdtemp(dir=self.tmp)
        argv = [ERGOBENCH, "report", "--kubeconfig", self.cluster.admin_kubeconfig, "--namespace", self.ns]
        table = subprocess_run(argv + ["--format", "json"])
        rows = {r["benchmark"]: r for r in json.loads(table)}
        for name, (instance_type, region) in SYSTEMS.items():
            self.assertEqual(rows[name]["system"], f"{instance_type} {region}")
            self.assertEqual(rows[name]["baseline"], name, "each system is its own baseline")
            self.assertEqual(rows[name]["speedup"], 1.0)
        self.assertTrue(rows["on-c5"]["paretoTimeCost"] or rows["on-n2"]["paretoTimeCost"])
        text = subprocess_run(argv + ["--charts", charts])
        self.assertIn("USD (stale)", text)
        self.assertIn("- on-c5: stale price: c5.4xlarge in us-east-1 is from", text)

        svg = os.path.join(charts, "pareto-time-cost.svg")
        series = {g.get("data-series") for g in ET.parse(svg).getroot().iter(SVG + "g") if g.get("class") == "series"}
        self.assertEqual(series, {"c5.4xlarge us-east-1 / fmnist", "n2-standard-8 europe-west4 / fmnist"})
        if CHROMIUM is None:
            self.skipTest("chromium is not installed (scripts/install-deps.sh --tests installs it)")
        png = os.path.join(charts, "pareto.png")
        screenshot(svg, png, os.path.join(charts, "chromium"))
        self.assertTrue(os.path.exists(png), "Chromium rendered no Pareto chart")
        self.assertGreater(len(set(png_pixels(png))), 20, "the Pareto chart rendered blank")


def subprocess_run(argv):
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)}: {result.stderr}")
    return result.stdout


if __name__ == "__main__":
    unittest.main()
