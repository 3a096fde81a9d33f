"""Bad input and failing ranks: a clear message and a non-zero exit, never a crash, a hang
or a leftover process."""

import glob
import os
import signal
import socket
import subprocess
import time
import unittest

from harness import ERGOBENCH, RUNNER, ErgobenchTestCase, benchmark_yaml, free_port, free_port_block, runner_pids


def rank_pid(directory, rank):
    """The PID of the runner of `rank` among the processes working in `directory`."""
    for pid in runner_pids(directory):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm.startswith("ergobench-run") and f"RANK={rank}".encode() in env:
            return pid
    return None


class BadInputTest(ErgobenchTestCase):

    def assert_rejected(self, document, *expected):
        path = self.write("bad.yaml", document)
        run = self.ergobench("run", path, timeout=30)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        for text in expected:
            self.assertIn(text, run.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "ergobench-results")))

    def test_malformed_yaml(self):
        self.assert_rejected("apiVersion: ergobench.io/v1alpha1\nspec: {task: 0a\n", "bad.yaml:", "malformed YAML")

    def test_wrong_api_version_and_kind(self):
        doc = benchmark_yaml("x").replace("ergobench.io/v1alpha1", "batch/v1").replace("kind: Benchmark", "kind: Job")
        self.assert_rejected(doc, 'apiVersion: must be ergobench.io/v1alpha1, got "batch/v1"',
                             'kind: must be Benchmark, got "Job"')

    def test_unknown_task(self):
        self.assert_rejected(benchmark_yaml("x", task="9z"), 'spec.task: unknown task "9z"; known tasks: 0a, 1a, fmnist, resnet50, 2a, gpt')

    def test_workers_below_one(self):
        self.assert_rejected(benchmark_yaml("x", workers=0), "spec.workers: must be between 1 and 1024, got 0")

    def test_unknown_field(self):
        self.assert_rejected(benchmark_yaml("x").replace("  workers:", "  wrokers: 1\n  workers:"),
                             "spec.wrokers: unknown field")

    def test_missing_file(self):
        run = self.ergobench("run", "nope.yaml", timeout=30)
        self.assertEqual(run.returncode, 2)
        self.assertIn("nope.yaml: cannot open: No such file or directory", run.stderr)

    def test_every_example_manifest_is_valid(self):
        examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../manifests/examples")
        for name in sorted(os.listdir(examples)):
            run = self.ergobench("validate", os.path.join(examples, name), timeout=30)
            self.assertEqual(run.returncode, 0, name + ": " + run.stderr)
            # What it needs beyond `ergobench cluster up`'s one node, before anything else.
            with open(os.path.join(examples, name)) as f:
                self.assertTrue(f.readline().startswith("# Needs: "), name)

    def assert_validate_refuses(self, name, document, expected):
        path = self.write(name, document)
        run = self.ergobench("validate", path, timeout=30)
        self.assertEqual(run.returncode, 2, f"{name}: exit {run.returncode}, {run.stderr[-2000:]}")
        self.assertIn(expected, run.stderr, name)

    def test_hostile_files_are_refused_by_field_not_crashed(self):
        """The audit's files, each of which ended `ergobench validate` (and the operator) in a
        signal: 100,000 characters where a regex recursed once per character (SIGSEGV), strong
        scaling over 0 workers (SIGFPE), a template's hyperparameters as a list (abort), and a
        six-axis matrix of 64 million points (unbounded memory)."""
        long = "1" * 100000
        self.assert_validate_refuses("name.yaml", benchmark_yaml("a" * 100000),
                                     "metadata.name: must be at most 63 characters, got 100000")
        self.assert_validate_refuses("workers.yaml", benchmark_yaml("x", workers=long),
                                     "spec.workers: must be an integer, got number inf")
        self.assert_validate_refuses("cpu.yaml", benchmark_yaml("x") + f'  resources: {{cpu: "{long}"}}\n',
                                     "spec.resources.cpu: must be at most 64 bytes, got 100000")
        sweep = ("apiVersion: ergobench.io/v1alpha1\nkind: BenchmarkSweep\nmetadata: {name: s}\nspec:\n"
                 "  template: {task: fmnist, workers: 0, hyperparameters: %s}\n  scaling: strong\n%s")
        self.assert_validate_refuses("strong.yaml", sweep % ("{batchSize: 64}", ""),
                                     "point s-0 (workers=0 backend=gloo) spec.workers: must be between 1 and 1024, got 0")
        self.assert_validate_refuses("shape.yaml", sweep % ("[1, 2]", "  matrix: {hyperparameters: {momentum: [0.1]}}\n"),
                                     "spec.template.hyperparameters: must be an object (name: value), got list")
        axes = ", ".join(f"{axis}: [{', '.join(str(i) for i in range(20))}]" for axis in "abcdef")
        self.assert_validate_refuses("matrix.yaml", sweep % ("{}", f"  matrix: {{hyperparameters: {{{axes}}}}}\n"),
                                     "spec.matrix: has 64000000 points; at most 256 run in one sweep")

    def test_validate_prints_the_resolved_spec(self):
        path = self.write("ok.yaml", benchmark_yaml("ok"))
        run = self.ergobench("validate", path, timeout=30)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn('"sizes": 80', run.stdout)
        self.assertIn('"cleanPodPolicy": "All"', run.stdout)


class RunnerInputTest(ErgobenchTestCase):

    def runner(self, *args, env=None, timeout=60):
        full_env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
        full_env.update(env or {})
        return subprocess.run([RUNNER, *args], cwd=self.dir, capture_output=True, text=True, timeout=timeout,
                              env=full_env)

    def test_unreachable_master(self):
        config = self.write("c.yaml", benchmark_yaml("x", 2))
        port = free_port()  # nothing listens there
        start = time.time()
        run = self.runner("--config", config, "--metrics-port", "-1", "--rendezvous-timeout", "2",
                          "--result-file", "r.json",
                          env={"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertLess(time.time() - start, 20)
        self.assertIn(f"rendezvous with MASTER_ADDR:MASTER_PORT=127.0.0.1:{port} failed within 2.0 s", run.stdout)
        # The result file, the Kubernetes termination message, says the same.
        with open(os.path.join(self.dir, "r.json")) as f:
            self.assertIn('"status":"Failed"', f.read())

    def test_metrics_port_in_use(self):
        config = self.write("c.yaml", benchmark_yaml("x", 1))
        with socket.socket() as busy:
            busy.bind(("0.0.0.0", 0))
            busy.listen()
            port = busy.getsockname()[1]
            run = self.runner("--config", config, "--metrics-port", str(port))
        self.assertEqual(run.returncode, 2)
        self.assertIn(f"metrics port {port} is already in use", run.stdout)

    def test_missing_config(self):
        run = self.runner("--config", "absent.yaml")
        self.assertEqual(run.returncode, 2)
        self.assertIn("absent.yaml: cannot open", run.stdout)

    def test_world_size_must_match_workers(self):
        config = self.write("c.yaml", benchmark_yaml("x", 2))
        run = self.runner("--config", config, "--metrics-port", "-1",
                          env={"RANK": "0", "WORLD_SIZE": "3", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"})
        self.assertEqual(run.returncode, 1)
        self.assertIn("WORLD_SIZE is 3 but spec.workers is 2", run.stdout)


class FailingRankTest(ErgobenchTestCase):

    def test_failed_rank_is_quoted(self):
        base = free_port_block(2)  # ranks 0 and 1
        with socket.socket() as busy:  # rank 1 will find its metrics port taken
            busy.bind(("127.0.0.1", base + 1))
            busy.listen()
            path = self.write("f.yaml", benchmark_yaml("fail-k2", 2))
            start = time.time()
            run = self.ergobench("run", "-q", "--metrics-port", str(base), path, timeout=60)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("fail-k2: Failed (RankFailed)", run.stdout)
        self.assertIn(f"rank 1: metrics port {base + 1} is already in use", run.stdout)
        self.assertLess(time.time() - start, 30)
        self.assertEqual(runner_pids(self.dir), [])

    def test_killed_rank_is_quoted_before_its_peers(self):
        path = self.write("k.yaml", benchmark_yaml("kill-k2", 2, maxElements=4000000, repetitions=50))
        run = subprocess.Popen([ERGOBENCH, "run", "-q", path], cwd=self.dir, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        victim = self.wait_for(lambda: rank_pid(self.dir, 1), what="rank 1 to start")
        progress = os.path.join(self.results("kill-k2"), "rank-0.progress")
        self.wait_for(lambda: os.path.exists(progress) and '"stage":"run"' in open(progress).read(),
                      what="the sweep to start")
        os.kill(victim, signal.SIGKILL)
        out, err = run.communicate(timeout=60)
        self.assertEqual(run.returncode, 1, out + err)
        self.assertIn("rank 1: exited (code 137) without a result", out)
        self.assertEqual(runner_pids(self.dir), [])


class InterruptTest(ErgobenchTestCase):

    def start_sweep(self, name, path, **popen):
        """Starts `ergobench run` and returns once rank 0 has timed its first size. A run that
        ends or stalls before that fails the test with what each rank logged."""
        run = subprocess.Popen([ERGOBENCH, "run", "-q", path], cwd=self.dir, **popen)
        progress = os.path.join(self.results(name), "rank-0.progress")
        deadline = time.time() + 60
        while time.time() < deadline and run.poll() is None:
            if os.path.exists(progress) and '"stage":"run"' in open(progress).read():
                return run
            time.sleep(0.1)
        state = "60 s passed" if run.poll() is None else f"ergobench exited {run.returncode}"
        logs = "".join(f"\n--- {log}:\n" + open(log).read()[-2000:]
                       for log in sorted(glob.glob(os.path.join(self.results(name), "*.log"))))
        self.fail(f"the sweep had not started when {state}{logs}")

    def interrupt(self, backend):
        name = f"ctrlc-{backend}"
        path = self.write("c.yaml", benchmark_yaml(name, 2, backend, maxElements=100000000, repetitions=100))
        run = self.start_sweep(name, path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertGreaterEqual(len(runner_pids(self.dir)), 3)  # ergobench and its ranks
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=60)
        self.assertEqual(run.returncode, 130, out + err)
        self.assertIn(f"{name}: Failed (Cancelled)", out)
        self.wait_for(lambda: runner_pids(self.dir) == [], timeout=10, what="no process left behind")
        for rank in range(2):
            result, _ = self.rank_result(name, rank)
            self.assertEqual(result["status"], "Cancelled")

    def test_no_rank_outlives_a_killed_ergobench(self):
        """The README's promise: ranks carry a parent-death signal, so SIGKILLing `ergobench` itself
        leaves none behind. Asserted here, before tearDown's own clean-up could hide a survivor."""
        name = "killed-cli"
        path = self.write("k.yaml", benchmark_yaml(name, 2, maxElements=100000000, repetitions=100))
        run = self.start_sweep(name, path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ranks = [pid for pid in runner_pids(self.dir) if pid != run.pid]
        self.assertEqual(len(ranks), 2, "two ranks, besides ergobench")
        run.kill()
        run.wait()
        self.wait_for(lambda: not set(ranks) & set(runner_pids(self.dir)), timeout=15,
                      what="every rank to end with the ergobench that started it")

    def test_ctrl_c_gloo(self):
        self.interrupt("gloo")

    def test_ctrl_c_mpi(self):
        self.interrupt("mpi")


if __name__ == "__main__":
    unittest.main()
