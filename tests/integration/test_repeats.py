"""Repeats and regressions on this machine, end to end: `ergobench run` repeats a real fmnist
run with a seed per repeat and folds the repeats into medians with their statistics, which the
test recomputes from each repeat's own rank results; a run throttled for real (one torch thread
on a CPU shared with a busy loop, against two threads) is Regressed against its baseline and
exits 3, while an identical re-run is not; and `ergobench report --baseline` gives the same
verdicts."""

import json
import math
import os
import shutil
import statistics
import subprocess
import unittest

from harness import ErgobenchTestCase

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"
T975_2 = 0.95 / math.sqrt(2 * 0.975 * 0.025)  # Student's t(2) at 97.5% in closed form: 4.3026527...


def fmnist_yaml(name, repeats, baseline=None, tolerance=None):
    lines = [
        "apiVersion: ergobench.io/v1alpha1",
        "kind: Benchmark",
        f"metadata: {{name: {name}}}",
        "spec:",
        "  task: fmnist",
        "  workers: 1",
        "  backend: gloo",
        "  maxEpochs: 1",
        f"  repeats: {repeats}",
        "  hyperparameters: {trainSamples: 4096}",
    ]
    if baseline:
        lines.append(f"  baseline: {{path: {baseline}, tolerances: {{samplesPerSecond: {tolerance}}}}}")
    return "\n".join(lines) + "\n"


def mllog_points(path, key):
    with open(path) as f:
        events = [json.loads(line[len(":::MLLOG "):]) for line in f if line.startswith(":::MLLOG ")]
    return [e["value"] for e in events if e["key"] == key]


@unittest.skipUnless(os.path.isdir(FASHION_MNIST), "dataset-fashion-mnist is not installed")
class RepeatsTest(ErgobenchTestCase):

    def run_fmnist(self, name, repeats, threads, baseline=None, tolerance=10, throttled=False):
        """`throttled`: one thread, on one CPU that a busy loop shares, so about half a core
        against the baseline's two threads: slower by far more than this machine's drift (one
        thread alone was 35% slower, which a busy neighbour sometimes erased)."""
        path = self.write(f"{name}.yaml", fmnist_yaml(name, repeats, baseline, tolerance))
        env = dict(os.environ, ERGOBENCH_THREADS=str(threads))
        if not throttled:
            run = self.ergobench("run", "-q", path, timeout=600, env=env)
        else:
            cpu = min(os.sched_getaffinity(0))
            pin = lambda: os.sched_setaffinity(0, {cpu})  # noqa: E731
            hog = subprocess.Popen(["sh", "-c", "while :; do :; done"], preexec_fn=pin)
            try:
                run = self.ergobench("run", "-q", path, timeout=600, env=env, preexec_fn=pin)
            finally:
                hog.kill()
                hog.wait()
        status = self.read_json(os.path.join(self.results(name), "benchmark.json"))["status"]
        return run, status

    def test_repeats_have_their_own_seeds_and_fold_into_medians(self):
        run, status = self.run_fmnist("rep", 3, threads=2)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("repeat 3 of 3", run.stderr)
        results = status["results"]
        self.assertEqual([r["seed"] for r in results["repeats"]], [42, 43, 44])
        throughputs = []
        for r in range(3):
            folder = os.path.join(self.results("rep"), f"repeat-{r}")
            # The seed the rank trained with, in its own MLPerf log, and its own throughput.
            self.assertEqual(mllog_points(os.path.join(folder, "rank-0.mllog"), "seed"), [42 + r])
            with open(os.path.join(folder, "rank-0.json")) as f:
                throughputs.append(json.load(f)["samplesPerSecond"])
            self.assertEqual(results["repeats"][r]["figures"]["samplesPerSecond"], throughputs[-1])
        # Different seeds train different models (a seed that changed nothing would repeat one run).
        curves = [mllog_points(os.path.join(self.results("rep"), f"repeat-{r}", "rank-0.mllog"), "eval_accuracy")
                  for r in range(3)]
        self.assertNotEqual(curves[0], curves[1])

        summary = results["summary"]["samplesPerSecond"]
        mean, sd = statistics.mean(throughputs), statistics.stdev(throughputs)
        half = T975_2 * sd / math.sqrt(3)
        self.assertEqual(summary["n"], 3)
        self.assertAlmostEqual(summary["median"], statistics.median(throughputs), places=6)
        self.assertEqual(summary["min"], min(throughputs))
        self.assertEqual(summary["max"], max(throughputs))
        self.assertAlmostEqual(summary["ci95Low"], mean - half, places=6)
        self.assertAlmostEqual(summary["ci95High"], mean + half, places=6)
        self.assertAlmostEqual(results["samplesPerSecond"], statistics.median(throughputs), places=6)
        self.assertIn("samplesPerSecond", run.stdout)

    def test_a_throttled_run_regresses_and_an_identical_one_does_not(self):
        # Four repeats a side: Welch's interval over three is too wide to tell a 35% drop here.
        # The baseline is an earlier run of the same name, kept aside (as CI keeps last week's).
        _, base = self.run_fmnist("fm", 4, threads=2)
        self.assertEqual(base["phase"], "Succeeded")
        baseline_dir = os.path.join(self.dir, "baseline")
        shutil.copytree(self.results("fm"), os.path.join(baseline_dir, "fm"))

        slow, slow_status = self.run_fmnist("fm", 4, threads=1, baseline=os.path.join(baseline_dir, "fm"), throttled=True)
        self.assertEqual(slow.returncode, 3, slow.stdout + slow.stderr)
        regressed = next(c for c in slow_status["conditions"] if c["type"] == "Regressed")
        self.assertEqual(regressed["status"], "True", regressed)
        self.assertIn("samplesPerSecond", regressed["message"])
        verdict = next(v for v in slow_status["results"]["verdicts"] if v["figure"] == "samplesPerSecond")
        self.assertTrue(verdict["regressed"])
        self.assertEqual(verdict["basis"], "repeats")
        self.assertEqual(verdict["baseline"], base["results"]["summary"]["samplesPerSecond"]["median"])
        self.assertLess(verdict["value"], 0.9 * verdict["baseline"])
        self.assertIn("REGRESSED", slow.stdout)

        # `ergobench report --baseline` judges the results folder the same way, and gates on it.
        report = self.ergobench("report", self.results("fm"), "--baseline", baseline_dir)
        self.assertEqual(report.returncode, 3, report.stdout + report.stderr)
        self.assertRegex(report.stdout, r"fm\s+REGRESSED\s+samplesPerSecond")

        same, same_status = self.run_fmnist("fm", 4, threads=2, baseline=os.path.join(baseline_dir, "fm"))
        self.assertEqual(same.returncode, 0, same.stdout + same.stderr)
        regressed = next(c for c in same_status["conditions"] if c["type"] == "Regressed")
        self.assertEqual(regressed["status"], "False", regressed)
        report = self.ergobench("report", self.results("fm"), "--baseline", baseline_dir)
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        self.assertRegex(report.stdout, r"fm\s+ok\s+")

    def test_a_baseline_that_cannot_be_read_is_refused_before_the_run(self):
        path = self.write("x.yaml", fmnist_yaml("x", 1, baseline=os.path.join(self.dir, "nowhere"), tolerance=5))
        run = self.ergobench("run", "-q", path)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("spec.baseline.path:", run.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.results("x"), "rank-0.json")))


if __name__ == "__main__":
    unittest.main()
