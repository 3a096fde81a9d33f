"""The measure-label check's Python cases: a test that bounds its sleep's elapsed seconds on a
loaded machine (found), the same held alone (not found), and a stale listing (found)."""

import time
import unittest

import cpu_lock


class SleepTest(unittest.TestCase):
    def test_the_sleep_takes_its_time(self):
        started = time.monotonic()
        time.sleep(0.1)
        elapsed_seconds = time.monotonic() - started
        self.assertLess(elapsed_seconds, 0.2)

    @cpu_lock.alone
    def test_alone_the_sleep_takes_its_time(self):
        started = time.monotonic()
        time.sleep(0.1)
        elapsed_seconds = time.monotonic() - started
        self.assertLess(elapsed_seconds, 0.2)
