"""Energy end to end: `ergobench run` on a fake RAPL tree (ERGOBENCH_SYSFS_ROOT) whose package
counter a writer advances at a known 100 W and wraps every half second, as a real counter
wraps. The runner must report that power over the timed region and the whole run, split
between the ranks that share the host, in the results and in Prometheus."""

import os
import threading
import time
import unittest

from harness import ErgobenchTestCase, benchmark_yaml

WATTS = 100.0
STEP_UJ = 1_000_000          # 1 J ...
STEP_SECONDS = 0.01          # ... every 10 ms: 100 W
RANGE_UJ = 50_000_000        # wraps at 50 J


class EnergyTest(ErgobenchTestCase):
    def fake_rapl(self):
        zone = os.path.join(self.dir, "sys/class/powercap/intel-rapl:0")
        os.makedirs(zone)
        for name, value in (("name", "package-0"), ("max_energy_range_uj", str(RANGE_UJ)), ("energy_uj", "0")):
            with open(os.path.join(zone, name), "w") as f:
                f.write(value + "\n")
        stop = threading.Event()

        def advance():
            # Counted from the clock, not from the ticks, so that a late tick does not lose energy.
            start = time.monotonic()
            while not stop.wait(STEP_SECONDS):
                uj = int((time.monotonic() - start) * WATTS * 1e6) % RANGE_UJ
                with open(os.path.join(zone, "energy_uj"), "r+") as f:
                    f.write(f"{uj:<20d}\n")
        thread = threading.Thread(target=advance, daemon=True)
        thread.start()
        return lambda: (stop.set(), thread.join())

    def test_energy_from_a_wrapping_rapl_counter(self):
        stop_writer = self.fake_rapl()
        path = self.write("e.yaml", benchmark_yaml("energy", 2, "gloo", maxElements=262144, repetitions=20, warmup=3))
        env = dict(os.environ, ERGOBENCH_SYSFS_ROOT=self.dir)
        try:
            run = self.ergobench("run", path, env=env)
        finally:
            stop_writer()
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
        self.assertGreater(ranks[0]["runSeconds"], 1.0, "the run must span several counter wraps")

        status = self.read_json(os.path.join(self.results("energy"), "benchmark.json"))["status"]
        results = status["results"]
        run_seconds = max(r["runSeconds"] for r in ranks)
        self.assertAlmostEqual(results["energyJoules"], WATTS * run_seconds, delta=0.15 * WATTS * run_seconds + 2.0)


if __name__ == "__main__":
    unittest.main()
