"""The command line's habits, on the real binary: --version, shell completion loaded into real
bash and zsh, -o json|yaml on every command that prints documents, and exit codes that tell
bad input, a failed run, a regression, a cluster that cannot be reached and an interrupt apart
(cli/exit_codes.h)."""

import json
import os
import subprocess
import unittest

import yaml

from harness import ERGOBENCH, ErgobenchTestCase, benchmark_yaml, ergobench_version

BAD_INPUT, FAILED, CLUSTER = 2, 1, 4


class VersionAndCompletionTest(ErgobenchTestCase):
    def test_version_flag(self):
        run = self.ergobench("--version")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, f"ergobench {ergobench_version()}\n")

    def bash_complete(self, *words):
        """What bash offers after `ergobench WORDS...` (the last word being completed)."""
        script = ("source <(\"$ERGOBENCH\" completion bash)\n"
                  f"COMP_WORDS=(ergobench {' '.join(words)}); COMP_CWORD={len(words)}\n"
                  "_ergobench; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
        done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=self.dir,
                              env=dict(os.environ, ERGOBENCH=ERGOBENCH), timeout=30)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        return sorted(filter(None, done.stdout.split("\n")))

    def test_bash_completes_subcommands_flags_and_files(self):
        self.assertEqual(self.bash_complete("re"), ["report", "results"])
        self.assertEqual(self.bash_complete("results", "ex"), ["export"])
        self.assertEqual(self.bash_complete("results", "export", "--t"), ["--to"])
        self.assertIn("--results-dir", self.bash_complete("run", "--re"))
        self.assertEqual(self.bash_complete("report", "--bas"), ["--baseline"])
        self.assertEqual(self.bash_complete("cluster", "u"), ["up"])
        self.assertEqual(self.bash_complete("--vers"), ["--version"])
        # run and validate take files; a flag's value is not taken for a command.
        self.write("task1a.yaml", "")
        self.assertEqual(self.bash_complete("run", "-q", "task"), ["task1a.yaml"])
        self.assertEqual(self.bash_complete("validate", "-o", "yaml", "task"), ["task1a.yaml"])

    def test_zsh_loads_the_completion(self):
        script = ("autoload -U compinit && compinit -u\n"
                  "source <(\"$ERGOBENCH\" completion zsh)\n"
                  "print -r -- $_comps[ergobench]\n")
        done = subprocess.run(["zsh", "-f", "-c", script], capture_output=True, text=True, cwd=self.dir,
                              env=dict(os.environ, ERGOBENCH=ERGOBENCH, HOME=self.dir), timeout=30)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        self.assertIn("_ergobench", done.stdout)

    def test_an_unknown_shell_is_bad_input(self):
        run = self.ergobench("completion", "fish")
        self.assertEqual(run.returncode, BAD_INPUT)
        self.assertIn("shell", run.stderr)


class OutputFormatTest(ErgobenchTestCase):
    def test_validate_prints_json_or_yaml_of_the_same_documents(self):
        path = self.write("two.yaml", benchmark_yaml("a", workers=1) + "---\n" + benchmark_yaml("b", workers=2))
        as_json = self.ergobench("validate", path)
        as_yaml = self.ergobench("validate", "-o", "yaml", path)
        self.assertEqual(as_json.returncode, 0, as_json.stderr)
        self.assertEqual(as_yaml.returncode, 0, as_yaml.stderr)
        documents = [json.loads(part) for part in as_json.stdout.replace("}\n{", "}\n\x00{").split("\x00")]
        self.assertEqual([d["metadata"]["name"] for d in documents], ["a", "b"])
        self.assertEqual(list(yaml.safe_load_all(as_yaml.stdout)), documents)
        # What validate writes as YAML validates again, to the same documents.
        again = self.ergobench("validate", self.write("again.yaml", as_yaml.stdout))
        self.assertEqual(again.stdout, as_json.stdout)

    def test_tasks_as_json_and_yaml(self):
        as_json = json.loads(self.ergobench("tasks", "-o", "json").stdout)
        one_a = next(task for task in as_json if task["id"] == "1a")
        self.assertEqual(one_a["origin"], "MLBench task 1a")
        names = {h["name"]: h for h in one_a["hyperparameters"]}
        self.assertIn("learningRate", names)
        self.assertEqual(yaml.safe_load(self.ergobench("tasks", "-o", "yaml").stdout), as_json)

    def test_an_unknown_format_names_the_flag(self):
        for args in (["tasks", "-o", "xml"], ["validate", "-o", "csv", "x.yaml"], ["report", "-o", "pdf"]):
            run = self.ergobench(*args)
            self.assertEqual(run.returncode, BAD_INPUT, args)
            self.assertIn("--output", run.stderr, args)

    def test_run_prints_the_benchmark_with_its_status(self):
        path = self.write("one.yaml", benchmark_yaml("quick", workers=1))
        run = self.ergobench("run", "-o", "yaml", path)
        self.assertEqual(run.returncode, 0, run.stderr)
        [document] = list(yaml.safe_load_all(run.stdout))  # nothing but the document on stdout
        self.assertEqual(document["metadata"]["name"], "quick")
        self.assertEqual(document["status"]["phase"], "Succeeded")
        self.assertEqual(document["status"]["workers"]["succeeded"], 1)
        # The report reads the run, as yaml too.
        report = self.ergobench("report", "-o", "yaml")
        self.assertEqual(report.returncode, 0, report.stderr)
        self.assertEqual(yaml.safe_load(report.stdout),
                         json.loads(self.ergobench("report", "--format", "json").stdout))


class ProgressTest(ErgobenchTestCase):
    def test_a_sweeps_points_say_which_and_reach_a_hundred_percent(self):
        """Without a terminal the progress line prints now and then and once complete: a sweep's
        point says which of how many, and the line ends at 100% of the sizes."""
        sweep = "\n".join([
            "apiVersion: ergobench.io/v1alpha1", "kind: BenchmarkSweep", "metadata: {name: two}", "spec:",
            "  template:", "    task: 0a", "    backend: gloo",
            "    hyperparameters: {maxElements: 4096, repetitions: 5, warmup: 1}",
            "  matrix:", "    workers: [1, 2]"]) + "\n"
        run = self.ergobench("run", self.write("two.yaml", sweep))
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stderr.splitlines()
        for point in ("point 1/2", "point 2/2"):
            finished = [line for line in lines if point in line and " · 100% · " in line]
            self.assertTrue(finished, (point, run.stderr))
            self.assertRegex(finished[-1], r" · (\d+)/\1 · 100% · .* · \d+:\d\d(, 0:00 left)?$")


class ExitCodeTest(ErgobenchTestCase):
    def test_bad_input(self):
        self.assertEqual(self.ergobench("validate", self.write("bad.yaml", "kind: Benchmark\n")).returncode, BAD_INPUT)
        self.assertEqual(self.ergobench("run", "--no-such-flag").returncode, BAD_INPUT)

    def test_a_failed_run(self):
        # The runner is a program that exits 1 at once: the run fails, not the input.
        fake = self.write("false-runner", "#!/bin/sh\nexit 1\n")
        os.chmod(fake, 0o755)
        run = self.ergobench("run", "-q", "--runner", fake, self.write("one.yaml", benchmark_yaml("fails", workers=1)))
        self.assertEqual(run.returncode, FAILED, run.stdout + run.stderr)

    def test_a_cluster_that_cannot_be_used(self):
        missing = os.path.join(self.dir, "no-such-kubeconfig")
        run = self.ergobench("report", "--kubeconfig", missing)
        self.assertEqual(run.returncode, CLUSTER, run.stderr)
        self.assertIn("no-such-kubeconfig", run.stderr)
        # A kubeconfig whose server refuses connections (a port nothing listens on).
        refused = self.write("kubeconfig", "\n".join([
            "apiVersion: v1", "kind: Config", "current-context: c",
            "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:9'}}]",
            "users: [{name: u, user: {token: t}}]",
            "contexts: [{name: c, context: {cluster: k, user: u, namespace: default}}]"]) + "\n")
        for args in (["report", "--kubeconfig", refused], ["results", "export", "x", "--kubeconfig", refused]):
            run = self.ergobench(*args)
            self.assertEqual(run.returncode, CLUSTER, (args, run.stderr))


if __name__ == "__main__":
    unittest.main()
