"""The container images, built by images/build.sh with buildah on a debootstrap base and run
with podman: the operator image (FROM scratch, non-root, read-only root filesystem) and the
CPU runner image doing MLBench task 0a with k=1."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import yaml

from harness import benchmark_yaml, build_images, ergobench_version

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
VERSION = ergobench_version()
OPERATOR = f"ergobench-operator:{VERSION}"
RUNNER = f"ergobench-runner:{VERSION}"


def podman(*args, check=True):
    """podman with images/env.sh's settings (containers.conf where CAP_SYS_RESOURCE is missing)."""
    result = subprocess.run(["bash", "-c", 'source "$0"; exec podman "$@"', os.path.join(ROOT, "images/env.sh"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result


@unittest.skipUnless(shutil.which("buildah") and shutil.which("podman") and os.geteuid() == 0,
                     "needs buildah and podman (scripts/install-deps.sh --tests) and root")
class ImagesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        print(build_images(), end="")

    def inspect(self, image):
        return json.loads(podman("image", "inspect", image).stdout)[0]

    def test_operator_image_is_small_non_root_and_needs_no_writable_path(self):
        image = self.inspect(OPERATOR)
        self.assertEqual(image["Config"]["User"], "65532:65532")
        print(f"{OPERATOR}: {image['Size'] / 2**20:.1f} MiB")
        self.assertLess(image["Size"], 64 * 2**20)
        # The Deployments run it as the same user.
        with open(os.path.join(ROOT, "charts/ergobench/values.yaml")) as f:
            self.assertEqual(yaml.safe_load(f)["podSecurityContext"]["runAsUser"], 65532)

        result = podman("run", "--rm", "--read-only", "--network", "none", "--cap-drop", "ALL", OPERATOR, "--help")
        self.assertIn("ergobench-operator: runs Benchmark resources", result.stdout)
        self.assertIn("--runner-image", result.stdout)
        # Not a toy --help: it loads its configuration and fails clearly without a cluster.
        result = podman("run", "--rm", "--read-only", "--network", "none", OPERATOR, "--kubeconfig", "/missing", check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("cannot configure the Kubernetes client", result.stdout + result.stderr)
        # FROM scratch: no shell to exec into.
        result = podman("run", "--rm", "--entrypoint", "/bin/sh", OPERATOR, "-c", "true", check=False)
        self.assertNotEqual(result.returncode, 0)

    def test_runner_image_runs_task_0a_with_k1(self):
        image = self.inspect(RUNNER)
        self.assertEqual(image["Config"]["User"], "65532:65532")
        print(f"{RUNNER}: {image['Size'] / 2**20:.1f} MiB")
        work = tempfile.mkdtemp(prefix="ergobench-image-")
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        os.chmod(work, 0o777)
        with open(os.path.join(work, "task0a.yaml"), "w") as f:
            f.write(benchmark_yaml("task0a-k1", workers=1))
        # As the operator runs it: RANK/WORLD_SIZE/MASTER_* in the environment, the result as
        # the termination message; here with no network and a read-only root filesystem.
        podman("run", "--rm", "--read-only", "--network", "none", "--tmpfs", "/var/lib/ergobench:mode=1777",
               "-v", f"{work}:/data", "-e", "RANK=0", "-e", "WORLD_SIZE=1", "-e", "MASTER_ADDR=localhost",
               "-e", "MASTER_PORT=29500", RUNNER, "ergobench-runner", "--config", "/data/task0a.yaml",
               "--result-file", "/data/termination-log", "--metrics-port", "-1")
        with open(os.path.join(work, "termination-log")) as f:
            result = json.loads(f.readline())
        self.assertEqual(result["status"], "Succeeded")
        self.assertEqual(result["task"], "0a")
        self.assertEqual(result["worldSize"], 1)
        self.assertEqual(result["allreduce"]["sizes"], 80)
        self.assertEqual(result["environment"]["cpus"], os.cpu_count())

        # Its other programs load their libraries too (ergobench-universes once lacked protobuf's).
        for program in ("ergobench-stage", "ergobench-universes"):
            self.assertIn(program, podman("run", "--rm", "--network", "none", RUNNER, program, "--help").stdout)
        tasks = podman("run", "--rm", "--network", "none", RUNNER, "ergobench", "tasks").stdout
        for task in ("0a", "1a", "fmnist"):
            self.assertRegex(tasks, rf"(?m)^{task}\s")
        # Fashion-MNIST ships in the image, so the fmnist task needs no download.
        podman("run", "--rm", "--network", "none", RUNNER, "test", "-s",
               "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")

    def test_runner_image_serves_mpi_with_no_key_of_its_own(self):
        """backend mpi's parts are there (sshd, ssh, ergobench-mpi, a login shell for the runner's
        user), and no key: the Debian package's host keys are gone; keys come from a Benchmark's
        Secret."""
        found = podman("run", "--rm", "--network", "none", "--user", "0", RUNNER, "sh", "-c",
                       "for p in sshd ssh orted ergobench-mpi; do command -v $p; done; getent passwd 65532; "
                       "find / -xdev \\( -name 'ssh_host_*' -o -name 'id_*' \\) -print 2>/dev/null").stdout.split()
        self.assertEqual(found, ["/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/orted", "/usr/local/bin/ergobench-mpi",
                                 "nonroot:x:65532:65532::/var/lib/ergobench:/bin/sh"])


if __name__ == "__main__":
    unittest.main()
