"""Runs integration suites the way ctest must see them, in one process and in the order given
(the cluster suites share one cluster: cluster_suite.SharedCluster).

Exit 0 when every test ran and passed, 1 on a failure or when no test ran at all, and 77
(ctest's SKIP_RETURN_CODE) when any test was skipped, so that a suite that could not run (no
root, a tool or a data set missing) shows as Skipped instead of Passed. scripts/test.sh then
fails on any skip unless ERGOBENCH_ALLOW_SKIPS=1.

With ERGOBENCH_TEST_TIMES set to a file, each test's wall time is appended to it as a JSON
line (tests/test_times.py reads them), and the set-up and tear-down between tests (a suite's
setUpClass, say) as lines of their own, so that no second goes unaccounted. A failure's
traceback goes with its test's line, and to stderr at once, ahead of the logs a cluster
suite prints when a test fails.

The suites hold the CPUs shared while they run (cpu_lock.py): a test that compares the speed of
runs waits for them, and has the CPUs to itself.

Usage: python3 run_suite.py test_module...
"""

import sys
import time
import unittest

import cpu_lock
from harness import RECORDED, record_time

SKIPPED = 77


class TimedResult(unittest.TextTestResult):
    """Records each test's time, and the gaps between tests (setUpClass, tearDownClass): the
    gap before a test goes to its suite, the one after the last to that of the last test, less
    what was recorded in the gap on its own (the shared cluster's start, say), so that no
    second counts twice. A failure's traceback is written at once and recorded with its test
    (or alone, for a failed set-up or tear-down of a class or module)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.last_stop = time.monotonic()
        self.started = None
        self.module = "unittest"
        self.tracebacks = []  # of the running test's failures (one, or one per failed subtest)
        self.recorded = RECORDED["seconds"]  # at the last stop

    def startTest(self, test):
        now = time.monotonic()
        self.module, name = test.id().split(".", 1)
        self.gap(now, f"{name.split('.')[0]} (set-up)")
        self.started = now
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.last_stop = time.monotonic()
        record_time(self.module, test.id().split(".", 1)[1], self.last_stop - self.started,
                    "".join(self.tracebacks) or None)
        self.tracebacks = []
        self.recorded = RECORDED["seconds"]
        waited = cpu_lock.pass_turn()
        if waited >= 1.0:  # left out of the next test's set-up
            record_time(self.module, "(waiting while a test ran alone)", waited)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.report(test, self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self.report(test, self.errors[-1][1])

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.report(test, (self.failures if issubclass(err[0], test.failureException) else self.errors)[-1][1])

    def report(self, test, traceback):
        self.stream.write(traceback)
        self.stream.flush()
        if isinstance(test, unittest.TestCase):
            self.tracebacks.append(traceback)
        else:  # a class's or module's set-up or tear-down: no test runs around it
            record_time(self.module, test.id(), 0.0, traceback)

    def gap(self, now, name):
        own = now - self.last_stop - (RECORDED["seconds"] - self.recorded)
        if own >= 1.0:
            record_time(self.module, name, own)


def main(modules):
    cpu_lock.share()
    suite = unittest.defaultTestLoader.loadTestsFromNames(modules)
    runner = unittest.TextTestRunner(verbosity=2, stream=sys.stderr, resultclass=TimedResult)
    result = runner.run(suite)
    result.gap(time.monotonic(), "(tear-down)")
    if not result.wasSuccessful():
        return 1
    if result.skipped:  # first: a class skipped in setUpClass runs no test at all
        for test, reason in result.skipped:
            print(f"SKIPPED {test.id()}: {reason}", file=sys.stderr)
        return SKIPPED
    if result.testsRun == 0:
        print(f"{' '.join(modules)}: no test ran", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
