"""Energy end to end: `ergobench run` on a fake RAPL tree (ERGOBENCH_SYSFS_ROOT) whose package
counter a writer advances at a known 100 W and wraps every half second, as a real counter
wraps. The runner must report that power over the timed region and the whole run, split
between the ranks that share the host, in the results and in Prometheus."""

import json
import os
import time
import unittest

from harness import ErgobenchTestCase, FakeRapl, benchmark_yaml, logistic_regression_yaml, write_separable_split

WATTS = 100.0


class EnergyTest(ErgobenchTestCase):
    def test_energy_from_a_wrapping_rapl_counter(self):
        path = self.write("e.yaml", benchmark_yaml("energy", 2, "gloo", maxElements=262144, repetitions=60, warmup=3))
        env = dict(os.environ, ERGOBENCH_SYSFS_ROOT=self.dir)
        with FakeRapl(self.dir, WATTS) as rapl:  # wraps every half second
            started = time.time()
            run = self.ergobench("run", path, env=env)
            stale = rapl.stalest(started, time.time())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # The counter is as old as the fixture's last write, 10 ms apart in real time: never
        # later than 50 ms, or the bounds below would not hold for the product's reasons.
        self.assertLess(stale, 0.05, "the fake RAPL counter's writer ran late")
        self.assertRegex(run.stdout, r"energy\s+\d+\.\d J")
        ranks = [self.rank_result("energy", r)[0] for r in range(2)]
        for result in ranks:
            meters = {m["name"]: m for m in result["environment"]["energyMeters"]}
            self.assertTrue(meters["rapl"]["available"], meters)
            self.assertEqual(meters["rapl"]["channels"], ["cpu0/package"])
            self.assertFalse(meters["nvml"]["available"])
            # Each of the two ranks on this host reports half of the host's energy. The rank reads
            # the counter at either end of its timed region, each reading up to a write behind:
            # half of 100 W x 10 ms at each end, 1 J. Energy 15% low or high is 15 J here.
            print(f"rank {result['rank']}: {result['energyJoules']:.3f} J over {result['runSeconds']:.3f} s, "
                  f"half the host's {WATTS * result['runSeconds'] / 2:.3f} J; the counter {stale * 1000:.1f} ms "
                  "stale at most")
            self.assertAlmostEqual(result["energyJoules"], WATTS * result["runSeconds"] / 2,
                                   delta=WATTS * stale)
            self.assertGreater(result["energyJoulesWholeRun"], result["energyJoules"])
        self.assertGreater(ranks[0]["runSeconds"], 2 * rapl.wrap_seconds, "the run must span several counter wraps")

        status = self.read_json(os.path.join(self.results("energy"), "benchmark.json"))["status"]
        results = status["results"]
        # The run's: the ranks' halves added up; each rank's region its own, so the sum is the
        # host's power over their average length, within both ranks' reading errors.
        self.assertAlmostEqual(results["energyJoules"], sum(WATTS * r["runSeconds"] / 2 for r in ranks),
                               delta=2 * WATTS * stale)


    def test_energy_to_accuracy_is_the_power_over_the_time_to_accuracy(self):
        write_separable_split(self.dir, 40000, 2000, seed=5)
        path = self.write("l.yaml", logistic_regression_yaml("logreg-energy", self.dir, 0.97, max_epochs=20))
        env = dict(os.environ, ERGOBENCH_SYSFS_ROOT=self.dir)
        with FakeRapl(self.dir, WATTS) as rapl:
            started = time.time()
            run = self.ergobench("run", "-q", path, env=env, timeout=300)
            stale = rapl.stalest(started, time.time())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertLess(stale, 0.05, "the fake RAPL counter's writer ran late")
        results = self.read_json(os.path.join(self.results("logreg-energy"), "benchmark.json"))["status"]["results"]
        self.assertTrue(results["goalReached"], results)
        tta = results["timeToAccuracySeconds"]
        # The host's 100 W over the time to accuracy, whoever of the two ranks drew it. The recorder
        # reads the counter at run_start and at the goal's evaluation, each reading up to a write
        # of the fixture behind (10 ms, 1 J at 100 W).
        print(f"energy to accuracy {results['energyToAccuracyWh'] * 3600:.3f} J against {WATTS * tta:.3f} J; the "
              f"counter {stale * 1000:.1f} ms stale at most")
        self.assertAlmostEqual(results["energyToAccuracyWh"] * 3600, WATTS * tta,
                               delta=2 * WATTS * stale)

    def test_energy_is_absent_never_zero_without_a_meter(self):
        # A training run that reaches its goal, so that every energy figure, energy to accuracy
        # included, would be computed if a meter had counted.
        write_separable_split(self.dir, 4000, 1000, seed=7)
        path = self.write("n.yaml", logistic_regression_yaml("no-meter", self.dir, 0.9, max_epochs=20))
        # An empty /sys (no RAPL, no hwmon) and no NVML library, on any host.
        env = dict(os.environ, ERGOBENCH_SYSFS_ROOT=self.dir,
                   ERGOBENCH_NVML_LIBRARY=os.path.join(self.dir, "libnvidia-ml.so.1"))
        run = self.ergobench("run", path, env=env, timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertNotRegex(run.stdout, r"(?m)^\s*energy", "the run display must leave energy out, not print 0")
        results = self.read_json(os.path.join(self.results("no-meter"), "benchmark.json"))["status"]["results"]
        self.assertTrue(results["goalReached"], results)
        for key in ("energyJoules", "energyJoulesWholeRun", "energyToAccuracyWh", "joulesPerSample", "samplesPerWh"):
            self.assertNotIn(key, results)
        for rank in range(2):
            result = self.rank_result("no-meter", rank)[0]
            meters = {m["name"]: m for m in result["environment"]["energyMeters"]}
            self.assertFalse(any(m["available"] for m in meters.values()), meters)
            for key in ("energyJoules", "energyJoulesWholeRun", "energyToAccuracyJoules"):
                self.assertNotIn(key, result)
        report = self.ergobench("report", "--format", "json", self.results("no-meter"))
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        [row] = json.loads(report.stdout)
        self.assertIn("timeToAccuracySeconds", row)
        for key in ("energyToAccuracyJoules", "samplesPerWh", "epochWh"):
            self.assertNotIn(key, row)


if __name__ == "__main__":
    unittest.main()
