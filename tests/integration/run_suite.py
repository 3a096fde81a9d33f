"""Runs one integration suite the way ctest must see it.

Exit 0 when every test ran and passed, 1 on a failure or when no test ran at all, and 77
(ctest's SKIP_RETURN_CODE) when any test was skipped, so that a suite that could not run (no
root, a tool or a data set missing) shows as Skipped instead of Passed. scripts/test.sh then
fails on any skip unless ERGOBENCH_ALLOW_SKIPS=1.

Usage: python3 run_suite.py test_module
"""

import sys
import unittest

SKIPPED = 77


def main(module):
    suite = unittest.defaultTestLoader.loadTestsFromName(module)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stderr).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.skipped:  # first: a class skipped in setUpClass runs no test at all
        for test, reason in result.skipped:
            print(f"SKIPPED {test.id()}: {reason}", file=sys.stderr)
        return SKIPPED
    if result.testsRun == 0:
        print(f"{module}: no test ran", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
