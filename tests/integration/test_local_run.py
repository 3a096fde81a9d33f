"""`ergobench run` end to end: k local ranks over gloo and over mpi produce correct sums
and an 80-row 0a table whose figures agree with the nccl-tests definitions."""

import math
import os
import unittest

from harness import ErgobenchTestCase, benchmark_yaml, usable_cpus


class LocalRunTest(ErgobenchTestCase):

    def check_run(self, name, workers, backend, dtype="float32"):
        path = self.write(f"{name}.yaml", benchmark_yaml(name, workers, backend, dtype=dtype))
        env = {k: v for k, v in os.environ.items() if k != "ERGOBENCH_THREADS"}
        run = self.ergobench("run", path, env=env)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn(f"{name}: Succeeded", run.stdout)
        self.assertIn("peak bus bandwidth", run.stdout)

        # Every rank checked every sum and succeeded.
        for rank in range(workers):
            result, summary = self.rank_result(name, rank)
            self.assertEqual(result["status"], "Succeeded", summary)
            self.assertEqual(result["rank"], rank)
            self.assertEqual(result["worldSize"], workers)
            self.assertEqual(result["backend"], backend)
            self.assertIn("all sums correct", summary)
            self.assertEqual(result["allreduce"]["sizes"], 80)
            self.assertGreater(result["communicationSeconds"], 0)
            # Each rank's torch threads are its share of the CPUs the OS gives: oversubscribing
            # halves throughput.
            self.assertEqual(result["environment"]["threads"], max(1, usable_cpus() // workers), result["environment"])

        table = self.read_json(os.path.join(self.results(name), "allreduce.json"))
        rows = table["rows"]
        self.assertEqual(len(rows), 80)
        self.assertEqual(table["worldSize"], workers)
        self.assertEqual(rows[0]["elements"], 1)
        self.assertEqual(rows[-1]["elements"], 4096)
        element_size = 2 if dtype == "float16" else 4
        for row in rows:
            self.assertEqual(row["bytes"], row["elements"] * element_size)
            self.assertEqual(row["repetitions"], 5)
            self.assertLessEqual(row["minSeconds"], row["medianSeconds"])
            self.assertLessEqual(row["medianSeconds"], row["maxSeconds"])
            self.assertTrue(math.isclose(row["algbwBytesPerSecond"], row["bytes"] / row["medianSeconds"], rel_tol=1e-9))
            self.assertTrue(math.isclose(row["busbwBytesPerSecond"],
                                         row["algbwBytesPerSecond"] * 2 * (workers - 1) / workers, rel_tol=1e-9))
        with open(os.path.join(self.results(name), "allreduce.csv")) as f:
            self.assertEqual(len(f.read().splitlines()), 81)

        # The final status is the same schema the operator writes.
        benchmark = self.read_json(os.path.join(self.results(name), "benchmark.json"))
        status = benchmark["status"]
        self.assertEqual(status["phase"], "Succeeded")
        self.assertEqual(status["workers"]["succeeded"], workers)
        self.assertEqual(status["conditions"][0]["type"], "Succeeded")
        self.assertEqual(status["results"]["allreduce"]["sizes"], 80)
        self.assertIn("cpuModel", status["results"]["environment"])
        return run

    def test_gloo_two_ranks(self):
        self.check_run("gloo-k2", 2, "gloo")

    def test_gloo_three_ranks(self):
        self.check_run("gloo-k3", 3, "gloo")

    def test_gloo_float16(self):
        self.check_run("gloo-fp16", 2, "gloo", dtype="float16")

    def test_mpi_two_ranks(self):
        self.check_run("mpi-k2", 2, "mpi")

    def test_mpi_three_ranks(self):
        self.check_run("mpi-k3", 3, "mpi")

    def test_several_documents_run_in_turn(self):
        path = self.write("two.yaml", benchmark_yaml("first", 1) + "---\n" + benchmark_yaml("second", 2, sizes=10))
        run = self.ergobench("run", "-q", path)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("first: Succeeded", run.stdout)
        self.assertIn("second: Succeeded", run.stdout)
        self.assertEqual(len(self.read_json(os.path.join(self.results("second"), "allreduce.json"))["rows"]), 10)

    def test_readme_example(self):
        example = os.path.join(os.path.dirname(__file__), "../../manifests/examples/task0a.yaml")
        run = self.ergobench("run", "-q", os.path.abspath(example))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("task0a-k2: Succeeded", run.stdout)


if __name__ == "__main__":
    unittest.main()
