"""A suite whose one test fails with a known assertion: run_suite.py must say it at once and
record it, and tests/test_times.py must print it at the end (tests/integration/CMakeLists.txt)."""

import unittest


class Fixture(unittest.TestCase):
    def test_fails(self):
        self.assertEqual(2, 1)
