"""Energy end to end: `ergobench run` on a fake RAPL tree (ERGOBENCH_SYSFS_ROOT) whose package
counter a writer advances at a known 100 W and wraps every half second, as a real counter
wraps. The runner must report that power over the timed region and the whole run, split
between the ranks that share the host, in the results and in Prometheus."""

import os
import unittest

from harness import ErgobenchTestCase, FakeRapl, benchmark_yaml

WATTS = 100.0


class EnergyTest(ErgobenchTestCase):
    def test_energy_from_a_wrapping_rapl_counter(self):
        path = self.write("e.yaml", benchmark_yaml("energy", 2, "gloo", maxElements=262144, repetitions=20, warmup=3))
        env = dict(os.environ, ERGOBENCH_SYSFS_ROOT=self.dir)
        with FakeRapl(self.dir, WATTS) as rapl:  # wraps every half second
            run = self.ergobench("run", path, env=env)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"energy\s+\d+\.\d J")
        ranks = [self.rank_result("energy", r)[0] for r in range(2)]
        for result in ranks:
            meters = {m["name"]: m for m in result["environment"]["energyMeters"]}
            self.assertTrue(meters["rapl"]["available"], meters)
            self.assertEqual(meters["rapl"]["channels"], ["cpu0/package"])
            self.assertFalse(meters["nvml"]["available"])
            # Each of the two ranks on this host reports half of the host's energy.
            self.assertAlmostEqual(result["energyJoules"], WATTS * result["runSeconds"] / 2,
                                   delta=0.15 * WATTS * result["runSeconds"] / 2 + 1.0)
            self.assertGreater(result["energyJoulesWholeRun"], result["energyJoules"])
        self.assertGreater(ranks[0]["runSeconds"], 2 * rapl.wrap_seconds, "the run must span several counter wraps")

        status = self.read_json(os.path.join(self.results("energy"), "benchmark.json"))["status"]
        results = status["results"]
        run_seconds = max(r["runSeconds"] for r in ranks)
        self.assertAlmostEqual(results["energyJoules"], WATTS * run_seconds, delta=0.15 * WATTS * run_seconds + 2.0)


if __name__ == "__main__":
    unittest.main()
