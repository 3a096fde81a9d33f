"""Helpers for integration tests: they drive the real ergobench and ergobench-runner
binaries (ERGOBENCH_BIN_DIR) in a scratch directory and read what they leave behind."""

import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
import zlib

BIN_DIR = os.environ.get("ERGOBENCH_BIN_DIR", os.path.join(os.path.dirname(__file__), "../../build/bin"))
ERGOBENCH = os.path.join(BIN_DIR, "ergobench")
RUNNER = os.path.join(BIN_DIR, "ergobench-runner")


def ergobench_version():
    return subprocess.run([ERGOBENCH, "version"], stdout=subprocess.PIPE, text=True, check=True).stdout.split()[1]


def build_images():
    """images/build.sh on this build's binaries (cached layers make a rebuild take seconds);
    returns what it printed: each image's name and size."""
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
    build = subprocess.run([os.path.join(root, "images/build.sh"), "--build-dir", os.path.dirname(BIN_DIR)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if build.returncode != 0:
        raise AssertionError("images/build.sh failed:\n" + build.stdout)
    return build.stdout


def mllog_events(text):
    """The :::MLLOG events of a log's text, in order, each its JSON object."""
    return [json.loads(line[len(":::MLLOG "):]) for line in text.splitlines() if line.startswith(":::MLLOG ")]


RECORDED = {"seconds": 0.0}  # all that record_time was given in this process
ON_RECORD = []  # callables given each recorded (suite, name, seconds): cluster_trace marks tests' ends


def record_time(suite, name, seconds, failure=None):
    """Appends one time to the file ERGOBENCH_TEST_TIMES names, if any, as a JSON line: what
    tests/test_times.py reads to print where a test run's time went, and, with `failure` (the
    traceback of a test that failed), what failed, at the end of the run where CI's excerpt
    shows it."""
    RECORDED["seconds"] += seconds
    for hook in ON_RECORD:
        hook(suite, name, seconds)
    path = os.environ.get("ERGOBENCH_TEST_TIMES")
    if path:
        entry = {"suite": suite, "test": name, "seconds": round(seconds, 3)}
        if failure:
            entry["failure"] = failure
        with open(path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def benchmark_yaml(name, workers=2, backend="gloo", task="0a", **hyperparameters):
    """A Benchmark document; hyperparameters default to a quick 80-size sweep."""
    hp = {"maxElements": 4096, "repetitions": 5, "warmup": 1}
    hp.update(hyperparameters)
    lines = [
        "apiVersion: ergobench.io/v1alpha1",
        "kind: Benchmark",
        f"metadata: {{name: {name}}}",
        "spec:",
        f"  task: {task}",
        f"  workers: {workers}",
        f"  backend: {backend}",
        "  hyperparameters:",
    ] + [f"    {k}: {v}" for k, v in hp.items()]
    return "\n".join(lines) + "\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_block(count):
    """The first of `count` consecutive ports, free now and below the kernel's ephemeral range.
    free_port() checks only the port it returns, and that port is in the range, where any
    outgoing connection may be given it (or the next one) before the test binds it."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral_start = int(f.read().split()[0])
    for first in range(ephemeral_start - 4000, ephemeral_start - count, count):
        try:
            for port in range(first, first + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
    raise AssertionError(f"no {count} free consecutive ports below {ephemeral_start}")


def write_separable(path, count, weights, rng):
    """libsvm lines whose labels are the sign of a fixed linear function, with a margin: data
    that task 2a can learn to a high accuracy."""
    lines = []
    while len(lines) < count:
        x = [rng.uniform(-1, 1) for _ in weights]
        score = sum(w * v for w, v in zip(weights, x))
        if abs(score) < 0.1:
            continue
        features = " ".join(f"{i + 1}:{v:.5f}" for i, v in enumerate(x) if abs(v) > 0.05)
        lines.append(f"{'+1' if score > 0 else '-1'} {features}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def logistic_regression_yaml(name, directory, goal, max_epochs=10):
    return "\n".join([
        "apiVersion: ergobench.io/v1alpha1",
        "kind: Benchmark",
        f"metadata: {{name: {name}}}",
        "spec:",
        "  task: 2a",
        "  workers: 2",
        "  backend: gloo",
        f"  maxEpochs: {max_epochs}",
        f"  goal: {{target: {goal}}}",
        f"  dataset: {{source: path, path: {directory}}}",
        "  hyperparameters: {trainFile: train.svm, testFile: test.svm, features: 20}",
    ]) + "\n"


def write_separable_split(directory, train_count, test_count, seed):
    """train.svm and test.svm in `directory`, separable by one fixed linear function of 20
    features: what logistic_regression_yaml reads."""
    rng = random.Random(seed)
    weights = [rng.uniform(-1, 1) for _ in range(20)]
    write_separable(os.path.join(directory, "train.svm"), train_count, weights, rng)
    write_separable(os.path.join(directory, "test.svm"), test_count, weights, rng)


def fma_flops_per_cycle():
    """FP32 FLOPs one core's FMA pipes retire a cycle, from the vendors' optimization guides, read
    apart from the runner's table (runner/cpu_peak.cc) from /proc/cpuinfo: what MFU's theoretical
    peak must rest on. AMD Zen 4 (family 25 with AVX-512): one 512-bit FMA a cycle on two 256-bit
    pipes, 32; Zen 2 and 3: two 256-bit pipes, 32; elsewhere two pipes of the widest vector."""
    info = {}
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
            if not line.strip():
                break
    flags = info.get("flags", "").split()
    lanes = 16 if "avx512f" in flags else 8 if "avx2" in flags and "fma" in flags else 1
    if info.get("vendor_id") == "AuthenticAMD" and lanes > 1:
        family, model = int(info["cpu family"]), int(info["model"])
        if family == 23 and model < 0x30:
            return 16
        if family in (23, 25):
            return 32
    return lanes * 2 * 2


def usable_cpus():
    """This machine's CPUs for ranks, read from the OS rather than from ergobench: the affinity
    mask, capped by a cgroup CPU quota (v2 cpu.max or v1 cfs_quota_us), rounded down."""
    cpus = len(os.sched_getaffinity(0))
    quota = None
    try:
        limit, period = open("/sys/fs/cgroup/cpu.max").read().split()
        quota = None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        try:
            limit = int(open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").read())
            period = int(open("/sys/fs/cgroup/cpu/cpu.cfs_period_us").read())
            quota = limit / period if limit > 0 else None
        except (OSError, ValueError):
            pass
    return cpus if quota is None else min(cpus, max(1, int(quota + 1e-9)))


def runner_pids(directory):
    """PIDs of the processes (ranks, mpirun, ergobench) working in `directory`."""
    directory = os.path.realpath(directory)
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if os.readlink(f"/proc/{entry}/cwd") == directory:
                pids.append(int(entry))
        except OSError:
            continue
    return pids


def http_get(url, timeout=2):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read().decode()


class FakeRapl:
    """A powercap tree under `root`/sys/class/powercap whose package counter a process of its own
    advances at `watts` and wraps at `range_uj`, as a real counter wraps. Point
    ERGOBENCH_SYSFS_ROOT at `root`/sys's parent. Use as a context manager.

    The counter is as old as its last write: the process runs in real time (SCHED_FIFO, as root;
    nice -10 where that is refused), apart from the suites' threads, so that a busy machine does
    not leave it stale (a thread of the suite's process once wrote 0.6 s late, and at nice -10 a
    process of its own still 58 ms); `stalest` says how late it still was, which the tests
    assert small. It ends with the process that started it, and holds none of its pipes: ctest
    waits for its test's output to close."""

    STEP_SECONDS = 0.01
    # Counted from the clock, not from the ticks, so that a late tick does not lose energy.
    WRITER = """
import os, sys, time
counter, watts, range_uj, step, late_path, parent = (sys.argv[1], float(sys.argv[2]), int(sys.argv[3]),
                                                    float(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
start = last = time.monotonic()
with open(late_path, "a", buffering=1) as late:
    while os.getppid() == parent:  # it ends with the suite's process, however that ends
        time.sleep(step)
        now = time.monotonic()
        with open(counter, "r+") as f:
            f.write(f"{int((now - start) * watts * 1e6) % range_uj:<20d}\\n")
        if now - last > 2 * step:
            late.write(f"{time.time()} {now - last}\\n")
        last = now
"""

    def __init__(self, root, watts=100.0, range_uj=50_000_000):
        self.zone = os.path.join(root, "sys/class/powercap/intel-rapl:0")
        self.watts, self.range_uj = watts, range_uj
        self.late_path = os.path.join(root, "rapl-late.txt")  # "time.time() seconds-since-the-last-write"
        self.process = None
        os.makedirs(self.zone)
        for name, value in (("name", "package-0"), ("max_energy_range_uj", str(range_uj)), ("energy_uj", "0")):
            with open(os.path.join(self.zone, name), "w") as f:
                f.write(value + "\n")

    @property
    def wrap_seconds(self):
        """How often the counter wraps: its range at the fixture's power."""
        return self.range_uj / (self.watts * 1e6)

    def stalest(self, start, stop):
        """How stale the counter could have been between two time.time()s: the longest wait for a
        write then, one step at least."""
        gaps = [self.STEP_SECONDS]
        if os.path.exists(self.late_path):
            with open(self.late_path) as f:
                for line in f:
                    at, gap = map(float, line.split())
                    if start <= at and at - gap <= stop:
                        gaps.append(gap)
        return max(gaps)

    def __enter__(self):
        def raise_priority():
            try:  # it sleeps 10 ms between writes of a few microseconds: it takes no CPU from others
                os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
            except PermissionError:
                try:
                    os.nice(-10)
                except PermissionError:
                    pass
        self.process = subprocess.Popen(
            [sys.executable, "-c", self.WRITER, os.path.join(self.zone, "energy_uj"), str(self.watts),
             str(self.range_uj), str(self.STEP_SECONDS), self.late_path, str(os.getpid())], preexec_fn=raise_priority,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # holds no pipe of ctest's
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait()


CHROMIUM = shutil.which("chromium")


def png_pixels(path):
    """The decompressed scanlines of a PNG (enough to tell a blank image from a drawn one)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return zlib.decompress(idat)


def screenshot(svg, png, profile):
    """Headless Chromium's rendering of the file `svg` as `png`, offline."""
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--hide-scrollbars", f"--user-data-dir={profile}", "--window-size=720,440",
                    f"--screenshot={png}", "file://" + svg], capture_output=True, timeout=120)


class ErgobenchTestCase(unittest.TestCase):
    """Each test gets a scratch directory that `ergobench run` uses as its cwd."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="ergobench-it-")
        self.dir = self._tmp.name

    def tearDown(self):
        for pid in runner_pids(self.dir):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def ergobench(self, *args, timeout=180, **kwargs):
        return subprocess.run([ERGOBENCH, *args], cwd=self.dir, capture_output=True, text=True,
                              timeout=timeout, **kwargs)

    def results(self, name):
        return os.path.join(self.dir, "ergobench-results", name)

    def read_json(self, path):
        with open(path) as f:
            return json.load(f)

    def rank_result(self, name, rank):
        """A rank's result: rank-<i>.json is one JSON document that any JSON reader takes whole
        (json.load fails on trailing text), and the one-line summary is in rank-<i>.summary."""
        result = self.read_json(os.path.join(self.results(name), f"rank-{rank}.json"))
        with open(os.path.join(self.results(name), f"rank-{rank}.summary")) as f:
            summary = f.read()
        self.assert_one_line(summary)
        return result, summary.rstrip("\n")

    @staticmethod
    def assert_one_line(text):
        if text.count("\n") != 1 or not text.endswith("\n"):
            raise AssertionError(f"expected one line, got {text!r}")

    def wait_for(self, predicate, timeout=30, what="condition"):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.1)
        self.fail(f"timed out after {timeout} s waiting for {what}")
