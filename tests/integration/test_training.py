"""Training tasks end to end on real data: fmnist on Debian's Fashion-MNIST reaches its
goal over gloo, and a fixed seed gives the same accuracy curve twice."""

import json
import os
import re
import unittest

import harness
from harness import ErgobenchTestCase, logistic_regression_yaml, write_separable_split

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"


def training_yaml(name, workers=2, backend="gloo", max_epochs=3, **hyperparameters):
    lines = [
        "apiVersion: ergobench.io/v1alpha1",
        "kind: Benchmark",
        f"metadata: {{name: {name}}}",
        "spec:",
        "  task: fmnist",
        f"  workers: {workers}",
        f"  backend: {backend}",
        f"  maxEpochs: {max_epochs}",
    ]
    if hyperparameters:
        lines.append("  hyperparameters:")
        lines += [f"    {k}: {v}" for k, v in hyperparameters.items()]
    return "\n".join(lines) + "\n"


def mllog(path):
    with open(path) as f:
        return [json.loads(line[len(":::MLLOG "):]) for line in f if line.startswith(":::MLLOG ")]


@unittest.skipUnless(os.path.isdir(FASHION_MNIST), "dataset-fashion-mnist is not installed")
class FmnistTest(ErgobenchTestCase):

    def test_reaches_its_goal_over_gloo(self):
        path = self.write("f.yaml", training_yaml("fmnist-k2"))
        run = self.ergobench("run", "-q", path, timeout=600)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        status = self.read_json(os.path.join(self.results("fmnist-k2"), "benchmark.json"))["status"]
        results = status["results"]
        self.assertTrue(results["goalReached"], results)
        self.assertLessEqual(results["epochs"], 3)
        self.assertGreater(results["timeToAccuracySeconds"], 0)
        self.assertLessEqual(results["timeToAccuracySeconds"], results["runSeconds"])
        self.assertGreater(results["samplesPerSecond"], 0)
        self.assertGreater(results["throughputWindowSteps"], 0)
        self.assertGreater(results["throughputWindowSeconds"], 0)
        self.assertGreater(results["initSeconds"], 0)
        self.assertGreater(results["communicationRatio"], 0)
        self.assertLess(results["communicationRatio"], 1)
        for phase in ("data", "forward", "backward", "optimizer", "communication", "eval"):
            self.assertGreater(results["phaseSeconds"][phase], 0, phase)

        events = mllog(os.path.join(self.results("fmnist-k2"), "rank-0.mllog"))
        keys = [e["key"] for e in events]
        for key in ("init_start", "init_stop", "run_start", "epoch_start", "epoch_stop", "eval_accuracy", "run_stop"):
            self.assertIn(key, keys)
        self.assertLess(keys.index("init_stop"), keys.index("run_start"))
        run_stop = next(e for e in events if e["key"] == "run_stop")
        self.assertEqual(run_stop["metadata"]["status"], "success")
        accuracies = [e["value"] for e in events if e["key"] == "eval_accuracy"]
        self.assertGreaterEqual(accuracies[-1], 0.85)
        self.assertEqual(len(accuracies), results["epochs"])
        # MLPerf Training 4.0.0's rules (api/contract/mlperf_log_rules.h): a task MLPerf does not
        # have passes all but its name's.
        check = self.ergobench("mllog", "check", "-o", "json", os.path.join(self.results("fmnist-k2"), "rank-0.mllog"))
        self.assertEqual(check.returncode, 1, check.stderr)
        (found,) = json.loads(check.stdout)
        self.assertEqual((found["division"], found["benchmark"]), ("open", "fmnist"))
        self.assertEqual({(f["rules"], f["key"]) for f in found["findings"] if not f["warning"]},
                         {("open_common", "submission_benchmark")}, found["findings"])

        # The MLPerf clock against rank 0's own log: time to accuracy runs from run_start to the
        # evaluation that reached the goal (the last: training stops there), run seconds to
        # run_stop, and the data is read after run_start (train_samples is logged once loaded).
        rank0, _ = self.rank_result("fmnist-k2", 0)
        first = {}
        for e in events:
            first.setdefault(e["key"], e["time_ms"])
        goal_evaluation = [e for e in events if e["key"] == "eval_accuracy"][-1]["time_ms"]
        self.assertAlmostEqual(rank0["timeToAccuracySeconds"], (goal_evaluation - first["run_start"]) / 1000,
                               delta=0.05)
        self.assertAlmostEqual(rank0["runSeconds"], (first["run_stop"] - first["run_start"]) / 1000, delta=0.05)
        self.assertLess(keys.index("run_start"), keys.index("train_samples"))
        self.check_model_flops(results)
        self.check_data_io(results)

    def check_data_io(self, results):
        """The data path's I/O: each rank reads Fashion-MNIST's four gzip files whole after
        run_start, 30,878,551 bytes on disk (Debian's dataset-fashion-mnist), and prepares its
        batches in the step, so its loading rate is its samples over its data phase. The wait
        share is the data phase over the step time."""
        on_disk = sum(os.path.getsize(os.path.join(FASHION_MNIST, name)) for name in (
            "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
            "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"))
        self.assertEqual(30878551, on_disk)
        for rank in (0, 1):
            figures, _ = self.rank_result("fmnist-k2", rank)
            io = figures["io"]
            self.assertEqual(on_disk, io["dataBytes"], rank)
            self.assertAlmostEqual(io["dataBytesPerSecond"], on_disk / figures["runSeconds"], delta=1e-3)
            self.assertGreater(io["loadSeconds"], 0)
            self.assertLess(io["loadSeconds"], figures["runSeconds"])
            self.assertGreaterEqual(io["storageBytes"], 0)
            self.assertAlmostEqual(io["loadingSamplesPerSecond"],
                                   figures["samples"] / figures["phaseSeconds"]["data"], delta=1e-3)
        phases = results["phaseSeconds"]
        step = sum(seconds for phase, seconds in phases.items() if phase != "eval")
        self.assertAlmostEqual(results["dataWaitShare"], phases["data"] / step, places=9)
        self.assertEqual(2 * on_disk, results["io"]["dataBytes"])

    def check_model_flops(self, results):
        """Model FLOPs counted from the layers: fmnist's CNN forward is 1,031,744 multiply-adds by
        hand (conv1 16 x 784 outputs of 9, conv2 32 x 196 of 144, the head 1568 x 10), a training
        sample 3 forwards. Each rank's rate is that at its samples/s; its peak the theoretical one
        of its one thread's core: the FMA pipes' FLOPs a cycle (read here from /proc/cpuinfo and
        the vendors' guides, not from the runner) at the clock the basis states. No real kernel
        passes it: the best matrix product measured lies under it, the CNN under that, and MFU
        under 1 (it once read 112-124%, a peak measured by a kernel that ran at 45%)."""
        self.assertEqual(results["flopsPerSample"], 3 * 2 * 1031744)
        basis = re.match(r"^2 ranks x 1 core x (\d+) FP32 FLOP/cycle \((avx512f|avx2\+fma|scalar)\) x ([\d.]+) GHz measured$",
                         results["peakBasis"])
        self.assertIsNotNone(basis, results["peakBasis"])
        self.assertEqual(int(basis.group(1)), harness.fma_flops_per_cycle())
        model = 0
        for rank in (0, 1):
            figures, _ = self.rank_result("fmnist-k2", rank)
            self.assertEqual(figures["flopsPerSample"], 6190464)
            self.assertAlmostEqual(figures["modelFlopsPerSecond"], 6190464 * figures["samplesPerSecond"], delta=1e-3)
            model += figures["modelFlopsPerSecond"]
            # Each rank measured its own clock; rank 0's is the basis's (to its two decimals), and
            # a core's clock moves by a few percent with its boost.
            clock = float(basis.group(3)) * 1e9
            self.assertAlmostEqual(figures["peakFlopsPerSecond"] / (harness.fma_flops_per_cycle() * clock), 1,
                                   delta=0.005 if rank == 0 else 0.05)
            self.assertLess(figures["modelFlopsPerSecond"], figures["achievableFlopsPerSecond"])
            self.assertLess(figures["achievableFlopsPerSecond"], figures["peakFlopsPerSecond"])
        self.assertAlmostEqual(results["modelFlopsPerSecond"], model, delta=1e-3)
        self.assertGreater(results["mfu"], 0)
        self.assertLess(results["mfu"], 1)

    def test_trains_over_mpi(self):
        path = self.write("m.yaml", training_yaml("fmnist-mpi", backend="mpi", max_epochs=1, trainSamples=8192))
        run = self.ergobench("run", "-q", path, timeout=600)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        results = self.read_json(os.path.join(self.results("fmnist-mpi"), "benchmark.json"))["status"]["results"]
        self.assertEqual(results["epochs"], 1)
        self.assertGreater(results["communicationSeconds"], 0)
        accuracies = [e["value"] for e in mllog(os.path.join(self.results("fmnist-mpi"), "rank-1.mllog"))
                      if e["key"] == "eval_accuracy"]
        self.assertGreater(accuracies[-1], 0.6)

    def test_overlapped_and_sharded_sync_train_what_flat_trains_and_report_both_times(self):
        # Small buckets, so that the small CNN's gradients go in several collectives.
        accuracies = {}
        for name, backend, sync, stage in (("flat", "gloo", "flat", 1), ("overlap", "gloo", "overlap", 1),
                                           ("overlap-mpi", "mpi", "overlap", 1), ("zero1", "gloo", "sharded", 1),
                                           ("zero2-mpi", "mpi", "sharded", 2)):
            path = self.write(f"{name}.yaml", training_yaml(name, backend=backend, max_epochs=1, trainSamples=4096,
                                                            gradientSync=sync, bucketMiB=0.05, zeroStage=stage))
            run = self.ergobench("run", "-q", path, timeout=600)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            results = self.read_json(os.path.join(self.results(name), "benchmark.json"))["status"]["results"]
            accuracies[name] = [e["value"] for e in mllog(os.path.join(self.results(name), "rank-0.mllog"))
                                if e["key"] == "eval_accuracy"][-1]
            waited, whole = results["communicationSeconds"], results["collectiveSeconds"]
            self.assertGreater(waited, 0, name)
            if sync == "flat":
                self.assertAlmostEqual(whole, waited, places=9)  # flat waits for all of it
            else:
                self.assertGreaterEqual(whole, waited * 0.999, name)
        # The same seed and data: only the order of float additions differs.
        self.assertAlmostEqual(accuracies["overlap"], accuracies["flat"], delta=0.01)
        self.assertAlmostEqual(accuracies["overlap-mpi"], accuracies["flat"], delta=0.01)
        self.assertAlmostEqual(accuracies["zero1"], accuracies["flat"], delta=0.01)
        self.assertAlmostEqual(accuracies["zero2-mpi"], accuracies["flat"], delta=0.01)
        report = self.ergobench("report", "--format", "json", self.results("flat"), self.results("overlap"),
                                self.results("zero2-mpi"))
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        rows = {row["benchmark"]: row for row in json.loads(report.stdout)}
        self.assertEqual(rows["overlap"]["gradientSync"], "overlap")
        self.assertEqual(rows["flat"]["hiddenCommunication"], 0)
        self.assertEqual((rows["zero2-mpi"]["gradientSync"], rows["zero2-mpi"]["zeroStage"]), ("sharded", 2))

    def test_same_seed_same_curve(self):
        curves = []
        for attempt in range(2):
            name = f"det-{attempt}"
            path = self.write(f"{name}.yaml", training_yaml(name, max_epochs=2, trainSamples=4096))
            run = self.ergobench("run", "-q", path, timeout=600)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            events = mllog(os.path.join(self.results(name), "rank-0.mllog"))
            curves.append([e["value"] for e in events if e["key"] == "eval_accuracy"])
        self.assertEqual(len(curves[0]), 2)
        self.assertEqual(curves[0], curves[1])


    def test_dataset_from_a_url_is_fetched_checked_and_cached(self):
        import hashlib
        import subprocess
        archive = os.path.join(self.dir, "fashion-mnist.tar.gz")
        subprocess.run(["tar", "-C", os.path.dirname(FASHION_MNIST), "-czf", archive,
                        os.path.basename(FASHION_MNIST)], check=True)
        with open(archive, "rb") as f:
            sha256 = hashlib.sha256(f.read()).hexdigest()
        doc = training_yaml("fmnist-url", workers=1, max_epochs=1, trainSamples=2048).replace(
            "  maxEpochs: 1\n", f"  maxEpochs: 1\n  dataset: {{source: url, url: 'file://{archive}', sha256: '{sha256}'}}\n")
        # A file:// URL reads the node's own files: refused unless the run allows it.
        env = dict(os.environ, ERGOBENCH_DATA_DIR=os.path.join(self.dir, "cache"))
        env.pop("ERGOBENCH_ALLOW_FILE_URLS", None)
        run = self.ergobench("run", "-q", self.write("u.yaml", doc), timeout=300, env=env)
        self.assertEqual(run.returncode, 1)
        self.assertIn("spec.dataset.url: only http:// and https://", run.stdout + run.stderr)
        env["ERGOBENCH_ALLOW_FILE_URLS"] = "1"
        run = self.ergobench("run", "-q", self.write("u.yaml", doc), timeout=300, env=env)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "cache", sha256, ".complete")))
        accuracies = [e["value"] for e in mllog(os.path.join(self.results("fmnist-url"), "rank-0.mllog"))
                      if e["key"] == "eval_accuracy"]
        self.assertGreater(accuracies[-1], 0.5)  # trained on the real images from the archive

        bad = doc.replace(sha256, "f" * 64).replace("fmnist-url", "fmnist-bad")
        run = self.ergobench("run", "-q", self.write("b.yaml", bad), timeout=300, env=env)
        self.assertEqual(run.returncode, 1)
        self.assertIn("spec.dataset.sha256: file://", run.stdout)


class LogisticRegressionTest(ErgobenchTestCase):

    def test_2a_reaches_95_percent_on_separable_data(self):
        write_separable_split(self.dir, 4000, 1000, seed=5)
        doc = logistic_regression_yaml("logreg-k2", self.dir, 0.95)
        run = self.ergobench("run", "-q", self.write("l.yaml", doc), timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        results = self.read_json(os.path.join(self.results("logreg-k2"), "benchmark.json"))["status"]["results"]
        self.assertTrue(results["goalReached"], results)
        accuracies = [e["value"] for e in mllog(os.path.join(self.results("logreg-k2"), "rank-1.mllog"))
                      if e["key"] == "eval_accuracy"]
        self.assertGreaterEqual(accuracies[-1], 0.95)


if __name__ == "__main__":
    unittest.main()
