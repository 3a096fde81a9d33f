"""cpu_lock.py and gtest_main.cc's share of it, with real processes: a test that must be alone
waits for the suites already running, and keeps the ones that start after it waiting until it
ends. Each process writes when it holds the lock and when it lets go; the order of those lines is
the ground truth.

Usage: ERGOBENCH_GTEST_FIXTURE=<gtest_main_fixture> python3 -m unittest test_cpu_lock"""

import fcntl
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

# A process that takes the lock (share or alone), says so, waits for its release file, says so
# again and lets go.
HOLDER = """
import os, sys, time
sys.path.insert(0, {here!r})
import cpu_lock
name, how, log, release = sys.argv[1:]
def say(what):
    with open(log, "a") as f:
        f.write(f"{{name}} {{what}}\\n")
def hold():
    say("in")
    while not os.path.exists(release):
        time.sleep(0.02)
    say("out")
if how == "alone":
    cpu_lock.alone(hold)()
else:
    cpu_lock.share()
    hold()
    if how == "turns":  # a suite between two tests
        cpu_lock.pass_turn()
        say("next")
"""


class CpuLockTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="ergobench-cpulock-")
        self.lock = os.path.join(self.dir.name, "cpu.lock")
        self.log = os.path.join(self.dir.name, "log")
        self.env = dict(os.environ, ERGOBENCH_CPU_LOCK=self.lock)
        self.processes = []

    def tearDown(self):
        for process in self.processes:
            process.kill()
            process.wait()
        self.dir.cleanup()

    def start(self, name, how):
        command = [sys.executable, "-c", HOLDER.format(here=HERE), name, how, self.log, self.release(name)]
        self.processes.append(subprocess.Popen(command, env=self.env))

    def release(self, name):
        return os.path.join(self.dir.name, f"release-{name}")

    def let_go(self, name):
        open(self.release(name), "w").close()

    def lines(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def wait_for(self, predicate, what):
        deadline = time.time() + 30
        while not predicate():
            if time.time() > deadline:
                self.fail(f"timed out waiting for {what}; log: {self.lines()}")
            time.sleep(0.02)

    def turnstile_held(self):
        """Whether a process waits to be alone: it holds the turnstile while it waits."""
        fd = os.open(self.lock + ".turnstile", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    def wait_until_alone_waits(self, shared_starts):
        """Starts 'alone' while 'first' shares, then the later sharers (`shared_starts`: name and a
        function that starts it), and lets everyone go in turn."""
        self.start("first", "share")
        self.wait_for(lambda: self.lines() == ["first in"], "first to share")
        self.start("alone", "alone")
        self.wait_for(self.turnstile_held, "alone to wait at the turnstile")
        for name, start in shared_starts:
            start()
        time.sleep(0.5)  # time enough for a later sharer to slip in, were the turnstile not there
        for name in ("first", "alone", *[n for n, _ in shared_starts]):
            self.let_go(name)
            self.wait_for(lambda: f"{name} out" in self.lines(), f"{name} to let go")
        for process in self.processes:
            self.assertEqual(process.wait(timeout=30), 0)

    def test_alone_waits_for_the_sharers_and_the_later_ones_wait_for_it(self):
        self.wait_until_alone_waits([("later", lambda: self.start("later", "share"))])
        self.assertEqual(self.lines(), ["first in", "first out", "alone in", "alone out", "later in", "later out"])

    def test_a_suite_between_tests_lets_the_one_waiting_to_be_alone_go_first(self):
        # run_suite.py passes its turn after each test: a test waiting to be alone waits for the
        # sharers' running tests, not for their whole suites (a cluster test once waited 440 s).
        self.start("first", "turns")
        self.wait_for(lambda: self.lines() == ["first in"], "first to share")
        self.start("alone", "alone")
        self.wait_for(self.turnstile_held, "alone to wait at the turnstile")
        self.let_go("first")
        self.wait_for(lambda: "alone in" in self.lines(), "alone to go in")
        time.sleep(0.5)  # time enough for first's next test to slip in, were its turn not passed
        self.let_go("alone")
        self.wait_for(lambda: "first next" in self.lines(), "first's next test")
        for process in self.processes:
            self.assertEqual(process.wait(timeout=30), 0)
        self.assertEqual(self.lines(), ["first in", "first out", "alone in", "alone out", "first next"])

    def test_a_gtest_binary_shares_it_too(self):
        fixture = os.environ["ERGOBENCH_GTEST_FIXTURE"]

        def start_fixture():
            self.processes.append(subprocess.Popen(
                ["sh", "-c", f'{fixture} --gtest_filter=Fixture.Passes >/dev/null && echo "gtest in" >>{self.log} '
                             f'&& echo "gtest out" >>{self.log}'], env=self.env))
        self.wait_until_alone_waits([("gtest", start_fixture)])
        self.assertEqual(self.lines(), ["first in", "first out", "alone in", "alone out", "gtest in", "gtest out"])


if __name__ == "__main__":
    unittest.main()
