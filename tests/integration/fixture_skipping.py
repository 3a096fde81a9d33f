"""A suite that runs one test and skips another: run_suite.py must report it as skipped (77)."""

import unittest


class Fixture(unittest.TestCase):
    def test_runs(self):
        self.assertEqual(1 + 1, 2)

    @unittest.skip("the data set is missing")
    def test_skipped(self):
        self.fail("never runs")
