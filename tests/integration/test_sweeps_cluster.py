"""BenchmarkSweeps on the real cluster: sweeps over k = 1, 2, 4 of task 0a (3 repeats each) and
of fmnist (light goal) end with one owned child Benchmark per point, each point's figures equal
to its child's (the repeats' interval included), speedup and efficiency recomputed from the
children's results, the progress and best point in `kubectl get`, and a speedup chart that
headless Chromium renders; an edit of a running sweep's matrix re-runs only the point it
changed, and deleting the sweep deletes its children; a point's instances (MLPerf HPC's weak
scaling) train at once and score as models per minute from their logs."""

import json
import os
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

from cluster_suite import NamespacedClusterSuite, rate_text
from harness import BIN_DIR, CHROMIUM, mllog_events, png_pixels, screenshot

ERGOBENCH = os.path.join(BIN_DIR, "ergobench")
SVG = "{http://www.w3.org/2000/svg}"
# Four workers of a k=4 point fit on the 2-CPU node beside the operator, each Guaranteed.
RESOURCES = {"cpu": "400m", "memory": "768Mi"}
ONE_NODE = {"ranksPerNode": 4}
FMNIST = {"task": "fmnist", "goal": {"light": True}, "maxEpochs": 1, "resources": RESOURCES, "scheduling": ONE_NODE,
          "hyperparameters": {"trainSamples": 8192, "warmupSteps": 2}}


class SweepsClusterTest(NamespacedClusterSuite):
    def apply_sweep(self, name, template, workers, **spec):
        self.apply({"apiVersion": "ergobench.io/v1alpha1", "kind": "BenchmarkSweep", "metadata": {"name": name},
                    "spec": {"template": template, "matrix": {"workers": workers}, **spec}})

    def sweep(self, name):
        return self.cp.get_json("-n", self.ns, "benchmarksweep", name)

    def wait_sweep(self, name, timeout=900):
        self.cp.wait_for(lambda: self.sweep(name).get("status", {}).get("phase") in ("Succeeded", "Failed"), timeout,
                         f"sweep {name} to end")
        sweep = self.sweep(name)
        self.assertEqual(sweep["status"]["phase"], "Succeeded", json.dumps(sweep["status"], indent=1))
        return sweep

    def children(self, name):
        items = self.cp.get_json("-n", self.ns, "benchmarks", "-l", f"ergobench.io/sweep={name}")["items"]
        return {b["metadata"]["name"]: b for b in items}

    def check_points(self, sweep, figure):
        """Each point is its child's: owned by the sweep, with the child's statistics of `figure`."""
        name, status = sweep["metadata"]["name"], sweep["status"]
        children = self.children(name)
        self.assertEqual(sorted(children), [f"{name}-{i}" for i in range(3)])
        for i, point in enumerate(status["points"]):
            child = children[point["benchmark"]]
            owner = child["metadata"]["ownerReferences"][0]
            self.assertEqual((owner["kind"], owner["uid"], owner["controller"]),
                             ("BenchmarkSweep", sweep["metadata"]["uid"], True))
            self.assertEqual((child["spec"]["workers"], point["parameters"]["workers"]), ([1, 2, 4][i],) * 2)
            results = child["status"]["results"]
            expected = results["summary"][figure] if "summary" in results else \
                {"n": 1, "median": results[figure], "min": results[figure], "max": results[figure], "mean": results[figure]}
            self.assertEqual(point["figures"][figure], expected)
        return children

    def test_scaling_sweeps_of_0a_and_fmnist_aggregate_their_points_with_a_speedup_chart(self):
        self.apply_sweep("ar", {"task": "0a", "resources": RESOURCES, "scheduling": ONE_NODE,
                                "hyperparameters": {"maxElements": 262144, "sizes": 6, "repetitions": 20}},
                         [1, 2, 4], repeats=3)
        sweep = self.wait_sweep("ar")
        self.check_points(sweep, "peakBusBandwidthBytesPerSecond")
        points = sweep["status"]["points"]
        for point in points[1:]:  # one rank moves no data: its bandwidth is nothing to repeat
            busbw = point["figures"]["peakBusBandwidthBytesPerSecond"]
            self.assertEqual(busbw["n"], 3)
            self.assertLessEqual(busbw["ci95Low"], busbw["mean"])
            self.assertLessEqual(busbw["mean"], busbw["ci95High"])
        best = max(points, key=lambda p: p["figures"]["peakBusBandwidthBytesPerSecond"]["median"])
        self.assertTrue(sweep["status"]["best"].startswith(best["benchmark"] + " ("), sweep["status"]["best"])
        # `kubectl get bench,ebsw,ebds`: the sweep's progress and best point, each point's bus
        # bandwidth in units and its progress (issue 41).
        tables = self.printed_tables("bench,ebsw,ebds")
        self.assertEqual({k: v for k, v in tables["benchmarksweep"]["ar"].items() if k != "AGE"},
                         {"PHASE": "Succeeded", "DONE": "3/3", "FAILED": "0", "BEST": sweep["status"]["best"]})
        self.assertTrue(sweep["status"]["best"].startswith(best["benchmark"] + " ("))
        for point in points:
            results = self.status(point["benchmark"])["results"]
            row = tables["benchmark"][point["benchmark"]]
            self.assertEqual((row["TASK"], row["WORKERS"], row["PHASE"], row["PROGRESS"], row["THROUGHPUT"]),
                             ("0a", str(point["parameters"]["workers"]), "Succeeded", "done",
                              rate_text(results["allreduce"]["peakBusBandwidthBytesPerSecond"])))

        self.apply_sweep("fm", FMNIST, [1, 2, 4])
        sweep = self.wait_sweep("fm")
        children = self.check_points(sweep, "samplesPerSecond")
        base = children["fm-0"]["status"]["results"]
        speedups = {}
        for point in sweep["status"]["points"]:
            results = children[point["benchmark"]]["status"]["results"]
            if base.get("goalReached") and results.get("goalReached"):
                expected = base["timeToAccuracySeconds"] / results["timeToAccuracySeconds"]
            else:
                expected = results["samplesPerSecond"] / base["samplesPerSecond"]
            self.assertAlmostEqual(point["speedup"], expected, places=9)
            self.assertAlmostEqual(point["efficiency"], expected / point["parameters"]["workers"], places=9)
            speedups[point["parameters"]["workers"]] = expected
        started = [e for e in self.cp.get_json("-n", self.ns, "events")["items"]
                   if e["involvedObject"]["name"] == "fm" and e["reason"] == "PointStarted"]
        self.assertEqual(len(started), 3)

        charts = tempfile.mkdtemp(dir=self.tmp)
        page = os.path.join(charts, "report.html")
        subprocess.run([ERGOBENCH, "report", "--kubeconfig", self.cluster.admin_kubeconfig, "--namespace", self.ns,
                        "--charts", charts, "--html", page], check=True, capture_output=True, timeout=120)
        # The sweep's page: each point's training curve, from its rank 0's mllog in its results
        # ConfigMap, in the page as in --charts' file.
        with open(page) as f:
            html = f.read()
        for name in ("eval_accuracy-time.svg", "eval_accuracy-samples.svg", "train_loss-time.svg", "speedup.svg"):
            with open(os.path.join(charts, name)) as f:
                self.assertIn(f.read(), html, name)
        curve = ET.parse(os.path.join(charts, "eval_accuracy-time.svg")).getroot()
        lines = {g.get("data-series") for g in curve.iter(SVG + "g") if g.get("class") == "series"}
        self.assertEqual(lines, {"fm-0", "fm-1", "fm-2"})
        svg = os.path.join(charts, "speedup.svg")
        drawn = {}
        for g in ET.parse(svg).getroot().iter(SVG + "g"):
            if g.get("class") == "series" and g.get("data-series", "").startswith("fmnist /"):
                drawn = {float(c.get("data-x")): float(c.get("data-y")) for c in g.iter(SVG + "circle")}
        self.assertEqual(sorted(drawn), [1.0, 2.0, 4.0])
        for k, speedup in speedups.items():
            self.assertAlmostEqual(drawn[k], speedup, delta=speedup * 1e-3)
        if CHROMIUM is None:
            self.skipTest("chromium is not installed (scripts/install-deps.sh --tests installs it)")
        png = os.path.join(charts, "speedup.png")
        screenshot(svg, png, os.path.join(charts, "chromium"))
        self.assertGreater(len(set(png_pixels(png))), 20, "the speedup chart rendered blank")

    def test_instances_train_at_once_and_score_as_models_per_minute(self):
        """MLPerf HPC's weak scaling: a point's two instances, each its own gang with its own seed,
        train at once (a sweep with instances runs as many at once unless told), and the score is
        the converged instances over the first run_start to the last run_stop of their logs."""
        self.apply_sweep("wk", FMNIST, [1], instances=2)
        sweep = self.wait_sweep("wk")
        children = self.children("wk")
        starts, stops = [], []
        for i, point in enumerate(sweep["status"]["points"]):
            self.assertEqual(children[f"wk-{i}"]["spec"]["hyperparameters"]["seed"], 42 + i)
            kept = self.cp.get_json("-n", self.ns, "configmap", f"wk-{i}-results")["data"]
            events = mllog_events(kept["rank-0.mllog"])
            starts.append(next(e["time_ms"] for e in events if e["key"] == "run_start"))
            stops.append(next(e["time_ms"] for e in events if e["key"] == "run_stop"))
            self.assertEqual((point["runStartMs"], point["runStopMs"]), (starts[-1], stops[-1]))
        self.assertLess(max(starts), min(stops), "the instances trained at the same time")
        [score] = sweep["status"]["weakScaling"]
        minutes = (max(stops) - min(starts)) / 60000
        self.assertEqual((score["instances"], score["converged"]), (2, 2))
        self.assertEqual(score["timeToTrainAllMinutes"], minutes)
        self.assertEqual(score["modelsPerMinute"], 2 / minutes)

    def test_an_edit_reruns_only_the_changed_point_and_deleting_the_sweep_deletes_its_children(self):
        self.apply_sweep("ed", FMNIST, [1, 2])
        self.cp.wait_for(lambda: self.children("ed").get("ed-0", {}).get("status", {}).get("phase") == "Succeeded",
                         300, "point ed-0 to succeed")
        before = {name: b["metadata"]["uid"] for name, b in self.children("ed").items()}
        self.apply_sweep("ed", FMNIST, [1, 4])
        sweep = self.wait_sweep("ed")
        self.assertEqual(sweep["status"]["observedGeneration"], 2)
        children = self.children("ed")
        self.assertEqual(children["ed-0"]["metadata"]["uid"], before["ed-0"], "an unchanged point keeps its run")
        self.assertNotEqual(children["ed-1"]["metadata"]["uid"], before.get("ed-1"))
        self.assertEqual(children["ed-1"]["spec"]["workers"], 4)
        self.assertEqual([p["parameters"]["workers"] for p in sweep["status"]["points"]], [1, 4])

        self.cp.kubectl("delete", "-n", self.ns, "benchmarksweep", "ed")
        self.cp.wait_for(lambda: not self.children("ed"), 120, "the sweep's children to be deleted")
        self.wait_pods_stopped("ergobench.io/benchmark", "their pods", timeout=120)


if __name__ == "__main__":
    unittest.main()
