"""/metrics and /healthz of the runners, scraped while `ergobench run` works."""

import re
import subprocess
import unittest

from harness import ERGOBENCH, ErgobenchTestCase, benchmark_yaml, free_port_block, http_get


class MetricsTest(ErgobenchTestCase):

    def test_scrape_during_a_run(self):
        base = free_port_block(2)  # the metrics ports of ranks 0 and 1
        # Long enough to be scraped mid-run: large sizes, many repetitions.
        path = self.write("m.yaml", benchmark_yaml("metrics-k2", 2, maxElements=4000000, repetitions=30))
        run = subprocess.Popen([ERGOBENCH, "run", "-q", "--metrics-port", str(base), path], cwd=self.dir,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            def scrape():
                try:
                    status, body = http_get(f"http://127.0.0.1:{base + 1}/metrics")
                except OSError:
                    return None
                return body if "ergobench_allreduce_bus_bandwidth_bytes_per_second{" in body else None

            body = self.wait_for(scrape, timeout=60, what="rank 1 to export bus bandwidth")
            labels = r'backend="gloo",benchmark="metrics-k2",rank="1",task="0a",world_size="2"'
            self.assertRegex(body, r'ergobench_phase_seconds_total\{' + labels + r',phase="communication"\} [0-9.e+-]+')
            self.assertRegex(body, r'ergobench_allreduce_bus_bandwidth_bytes_per_second\{' + labels + r',bytes="4"\}')
            for name in ("ergobench_samples_total", "ergobench_step_duration_seconds", "ergobench_eval_accuracy_ratio",
                         "ergobench_train_loss", "ergobench_epoch", "ergobench_goal_reached", "ergobench_tokens_total"):
                self.assertIn(f"# TYPE {name} ", body)
            communication = float(re.search(r'phase="communication"\} ([0-9.e+-]+)', body).group(1))
            self.assertGreater(communication, 0)

            status, health = http_get(f"http://127.0.0.1:{base}/healthz")
            self.assertEqual((status, health), (200, "ok\n"))
        finally:
            out, err = run.communicate(timeout=300)
        self.assertEqual(run.returncode, 0, out + err)

    def test_memory_is_exported_while_training_goes_on(self):
        # Five short epochs of fmnist on synthetic data: the memory gauges must appear after an
        # evaluation before the last epoch, not only once the run is over.
        port = free_port_block(1)
        path = self.write("mem.yaml", "\n".join([
            "apiVersion: ergobench.io/v1alpha1", "kind: Benchmark", "metadata: {name: memory-k1}", "spec:",
            "  task: fmnist", "  workers: 1", "  maxEpochs: 5", "  dataset: {source: synthetic}",
            "  hyperparameters: {trainSamples: 3200, warmupSteps: 1}", ""]))
        run = subprocess.Popen([ERGOBENCH, "run", "-q", "--metrics-port", str(port), path], cwd=self.dir,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            def scrape():
                try:
                    _, body = http_get(f"http://127.0.0.1:{port}/metrics")
                except OSError:
                    return None
                return body if 'ergobench_memory_bytes{' in body else None

            body = self.wait_for(scrape, timeout=120, what="rank 0 to export its memory")
            epoch = float(re.search(r'ergobench_epoch\{[^}]*\} ([0-9.e+-]+)', body).group(1))
            self.assertLess(epoch, 5, "the memory gauges came only with the last epoch")
            peak = float(re.search(r'ergobench_memory_bytes\{[^}]*kind="peak_tensor"\} ([0-9.e+-]+)', body).group(1))
            self.assertGreater(peak, 0)
        finally:
            out, err = run.communicate(timeout=300)
        self.assertEqual(run.returncode, 0, out + err)


if __name__ == "__main__":
    unittest.main()
