"""BenchmarkSweeps on this machine, end to end: `ergobench run` runs a sweep's points one after
another as real fmnist runs, and its sweep.json holds each point's figures (its repeats'
statistics) and the speedup and efficiency that the test recomputes from the points' own
results; strong scaling gives each worker its share of the global batch; a point's instances (MLPerf
HPC's weak scaling) train from seeds of their own and score as models per minute from their
logs' run_start and run_stop; a failed point stops the rest only with failurePolicy Stop; an invalid sweep names its field and runs nothing."""

import json
import os
import statistics
import unittest

from harness import ErgobenchTestCase, mllog_events

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"


def sweep_yaml(name, workers, repeats=1, scaling="weak", failure_policy="Continue", extra=""):
    return f"""apiVersion: ergobench.io/v1alpha1
kind: BenchmarkSweep
metadata: {{name: {name}}}
spec:
  template:
    task: fmnist
    backend: gloo
    maxEpochs: 1
    hyperparameters: {{trainSamples: 8192, warmupSteps: 2, batchSize: 64}}
{extra}  matrix:
    workers: {json.dumps(workers)}
  repeats: {repeats}
  scaling: {scaling}
  failurePolicy: {failure_policy}
"""


@unittest.skipUnless(os.path.isdir(FASHION_MNIST), "dataset-fashion-mnist is not installed")
class SweepsTest(ErgobenchTestCase):

    def run_sweep(self, name, text):
        run = self.ergobench("run", "-q", self.write(f"{name}.yaml", text), timeout=600)
        path = os.path.join(self.results(name), "sweep.json")
        return run, (self.read_json(path) if os.path.exists(path) else None)

    def test_points_run_in_turn_and_aggregate_with_speedup_from_their_own_results(self):
        run, sweep = self.run_sweep("scale", sweep_yaml("scale", [1, 2], repeats=2))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        status = sweep["status"]
        self.assertEqual((status["phase"], status["progress"], status["succeeded"]), ("Succeeded", "2/2", 2))
        children = [self.read_json(os.path.join(self.results(f"scale-{i}"), "benchmark.json")) for i in (0, 1)]
        for i, (point, child) in enumerate(zip(status["points"], children)):
            self.assertEqual((point["index"], point["benchmark"]), (i, f"scale-{i}"))
            self.assertEqual(point["parameters"]["workers"], [1, 2][i])
            self.assertEqual(child["spec"]["workers"], [1, 2][i])
            self.assertEqual(child["metadata"]["labels"], {"ergobench.io/sweep": "scale", "ergobench.io/sweep-point": str(i)})
            # The point's statistics are its repeats': recomputed from each repeat's figures.
            repeats = [r["figures"]["samplesPerSecond"] for r in child["status"]["results"]["repeats"]]
            figure = point["figures"]["samplesPerSecond"]
            self.assertEqual(figure["n"], 2)
            self.assertAlmostEqual(figure["median"], statistics.median(repeats), places=6)
            self.assertEqual((figure["min"], figure["max"]), (min(repeats), max(repeats)))
        base, two = (c["status"]["results"] for c in children)
        if base.get("goalReached") and two.get("goalReached"):
            expected = base["timeToAccuracySeconds"] / two["timeToAccuracySeconds"]
        else:
            expected = two["samplesPerSecond"] / base["samplesPerSecond"]
        self.assertAlmostEqual(status["points"][1]["speedup"], expected, places=9)
        self.assertAlmostEqual(status["points"][1]["efficiency"], expected / 2, places=9)
        self.assertEqual(status["points"][1]["baseline"], "scale-0")
        faster = max((0, 1), key=lambda i: status["points"][i]["figures"]["samplesPerSecond"]["median"])
        self.assertTrue(status["best"].startswith(f"scale-{faster} ("), status["best"])
        self.assertIn("scale: Succeeded, 2 of 2 points succeeded", run.stdout)

        report = json.loads(self.ergobench("report", "--format", "json", "--charts", "charts",
                                           self.results("scale-0"), self.results("scale-1")).stdout)
        self.assertAlmostEqual(next(r for r in report if r["benchmark"] == "scale-1")["speedup"], expected, places=9)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "charts", "speedup.svg")))

    def test_strong_scaling_shares_the_global_batch(self):
        run, sweep = self.run_sweep("strong", sweep_yaml("strong", [1, 2], scaling="strong"))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        batches = [self.read_json(os.path.join(self.results(f"strong-{i}"), "benchmark.json"))["spec"]["hyperparameters"]["batchSize"]
                   for i in (0, 1)]
        self.assertEqual(batches, [64, 32])
        self.assertEqual(sweep["status"]["points"][1]["parameters"].get("hyperparameters"), None, "workers is the only axis")

    def test_a_failed_point_stops_the_sweep_only_when_asked(self):
        missing = "    dataset: {source: path, path: /nonexistent/fashion-mnist}\n"
        run, sweep = self.run_sweep("stop", sweep_yaml("stop", [1, 2], failure_policy="Stop", extra=missing))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("stop-1: not run: an earlier point of its sweep failed (failurePolicy Stop)", run.stderr)
        self.assertFalse(os.path.exists(self.results("stop-1")))
        points = sweep["status"]["points"]
        self.assertEqual([p.get("phase", "") for p in points], ["Failed", ""])
        self.assertEqual(sweep["status"]["phase"], "Failed")

        run, sweep = self.run_sweep("go-on", sweep_yaml("go-on", [1, 2], extra=missing))
        self.assertEqual(run.returncode, 1)
        self.assertEqual([p["phase"] for p in sweep["status"]["points"]], ["Failed", "Failed"])
        self.assertIn("/nonexistent/fashion-mnist", sweep["status"]["points"][1]["message"])

    def test_instances_train_from_their_own_seeds_and_score_as_models_per_minute(self):
        """MLPerf HPC's weak scaling: a point's instances each train from a seed of their own, and
        the score is the converged instances over the first run_start to the last run_stop, which
        the test reads from the instances' own logs."""
        goal = "    goal: {metric: accuracy, target: 0.5}\n"
        run, sweep = self.run_sweep("weak", sweep_yaml("weak", [1], extra=goal) + "  instances: 2\n")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        starts, stops = [], []
        for i, point in enumerate(sweep["status"]["points"]):
            self.assertEqual(point["parameters"]["instance"], i)
            with open(os.path.join(self.results(f"weak-{i}"), "rank-0.mllog")) as log:
                events = mllog_events(log.read())
            self.assertEqual([e["value"] for e in events if e["key"] == "seed"], [42 + i])
            starts.append(next(e["time_ms"] for e in events if e["key"] == "run_start"))
            stops.append(next(e["time_ms"] for e in events if e["key"] == "run_stop"))
            self.assertEqual((point["runStartMs"], point["runStopMs"]), (starts[-1], stops[-1]))
        self.assertLessEqual(stops[0], starts[1], "ergobench run trains the instances one after another")
        [score] = sweep["status"]["weakScaling"]
        minutes = (max(stops) - min(starts)) / 60000
        self.assertEqual((score["instances"], score["converged"], score.get("pruned")), (2, 2, None))
        self.assertEqual(score["timeToTrainAllMinutes"], minutes)
        self.assertEqual(score["modelsPerMinute"], 2 / minutes)
        self.assertEqual(score["note"], "MLPerf HPC has no benchmark fmnist; scored by its rules over 2 instances")
        self.assertIn("weak scaling workers=1 backend=gloo: ", run.stdout)

    def test_an_invalid_sweep_names_its_field_and_runs_nothing(self):
        text = sweep_yaml("bad", [1, 2, 2]).replace("failurePolicy: Continue", "failurePolicy: Maybe")
        run, sweep = self.run_sweep("bad", text)
        self.assertEqual(run.returncode, 2)
        self.assertIn('(BenchmarkSweep "bad") is invalid:', run.stderr)
        self.assertIn("spec.failurePolicy: must be one of Continue, Stop, got \"Maybe\"", run.stderr)
        self.assertIn("spec.matrix.workers[2]: repeats an earlier value", run.stderr)
        self.assertIsNone(sweep)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "ergobench-results")))


if __name__ == "__main__":
    unittest.main()
