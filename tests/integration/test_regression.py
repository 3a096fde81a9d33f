"""Repeats and regressions on the real cluster: a Benchmark repeats its gang with a seed per
repeat and folds the repeats into medians; a run whose CPU limit is throttled for real (300m
against 900m) gets Regressed=True naming the figure against a baseline Benchmark, with
ergobench_benchmark_regressed 1 on the operator's /metrics, while an identical re-run is within
its bands (Regressed=False, 0)."""

import json
import statistics
import unittest

import cpu_lock
from cluster_suite import NamespacedClusterSuite, WORKER_CPU

REPEATS = 3
# Wide enough that two identical runs on this node never differ by as much; the throttled run
# is about three times slower.
TOLERANCES = {"samplesPerSecond": 20, "runSeconds": 30}


class RegressionTest(NamespacedClusterSuite):
    def run_fmnist(self, name, cpu, baseline=None):
        spec = {"task": "fmnist", "workers": 1, "maxEpochs": 1, "repeats": REPEATS,
                "goal": {"light": True}, "hyperparameters": {"trainSamples": 4096},
                "resources": {"cpu": cpu, "memory": "1Gi"}}
        if baseline:
            spec["baseline"] = {"benchmark": baseline, "tolerances": TOLERANCES}
        self.apply({"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name}, "spec": spec})
        status = self.wait_phase(name, ["Succeeded", "Failed"], timeout=600)
        self.assertEqual(status["phase"], "Succeeded", json.dumps(status, indent=1))
        return status

    def regressed_sample(self, name):
        for line in self.operator_metrics().splitlines():
            if line.startswith("ergobench_benchmark_regressed{") and f'benchmark="{name}"' in line \
                    and f'namespace="{self.ns}"' in line:
                return float(line.rsplit(" ", 1)[1])
        return None

    @cpu_lock.alone  # an identical run is within its bands only if nothing else takes the CPUs
    def test_repeats_fold_and_a_throttled_cpu_regresses_while_an_identical_run_does_not(self):
        base = self.run_fmnist("base", WORKER_CPU)
        results = base["results"]
        self.assertEqual([r["repeat"] for r in results["repeats"]], [0, 1, 2])
        self.assertEqual([r["seed"] for r in results["repeats"]], [42, 43, 44])
        throughputs = [r["figures"]["samplesPerSecond"] for r in results["repeats"]]
        self.assertEqual(results["summary"]["samplesPerSecond"]["n"], REPEATS)
        self.assertAlmostEqual(results["samplesPerSecond"], statistics.median(throughputs), places=6)
        self.assertNotIn("repeats", base, "the repeats done move into the results")
        reasons = [e["reason"] for e in self.cp.get_json("-n", self.ns, "events")["items"]
                   if e["involvedObject"]["name"] == "base"]
        self.assertEqual(reasons.count("Repeating"), REPEATS - 1, reasons)
        self.assertIsNone(self.condition(base, "Regressed"), "no baseline, no verdict")

        slow = self.run_fmnist("throttled", "300m", baseline="base")
        regressed = self.condition(slow, "Regressed")
        self.assertEqual((regressed["status"], regressed["reason"]), ("True", "FigureRegressed"), regressed)
        self.assertIn("against Benchmark base: samplesPerSecond", regressed["message"])
        verdict = next(v for v in slow["results"]["verdicts"] if v["figure"] == "samplesPerSecond")
        self.assertEqual((verdict["regressed"], verdict["basis"], verdict["bandPercent"]), (True, "repeats", 20))
        self.assertEqual(verdict["baseline"], results["samplesPerSecond"])
        self.assertLess(verdict["value"], 0.5 * verdict["baseline"])
        self.cp.wait_for(lambda: self.regressed_sample("throttled") == 1, 30, "ergobench_benchmark_regressed 1")

        same = self.run_fmnist("same", WORKER_CPU, baseline="base")
        within = self.condition(same, "Regressed")
        self.assertEqual((within["status"], within["reason"]), ("False", "WithinTolerance"), within)
        self.cp.wait_for(lambda: self.regressed_sample("same") == 0, 30, "ergobench_benchmark_regressed 0")
        self.assertIsNone(self.regressed_sample("base"))


if __name__ == "__main__":
    unittest.main()
