"""Fails a test run that skipped any test: CI must not count a suite that could not run as
passed. Reads the JUnit file `ctest --output-junit` wrote and names each skipped test with the
reason its output gave. Prints nothing when none was skipped.

Usage: python3 check_no_skips.py ctest-results.xml [more.xml ...]
"""

import sys
import xml.etree.ElementTree as ElementTree


def reason_of(case):
    """The test's own words (its SKIPPED lines: run_suite.py's and gtest's), else ctest's."""
    output = case.findtext("system-out") or ""
    lines = [line.strip() for line in output.splitlines() if "SKIPPED" in line and "listed below" not in line]
    if lines:
        return "; ".join(lines[:5])
    element = case.find("skipped")
    return element.get("message", "") if element is not None else case.get("status", "")


def skipped_tests(junit_path):
    return [(case.get("name"), reason_of(case))
            for case in ElementTree.parse(junit_path).getroot().iter("testcase")
            if case.get("status") in ("notrun", "disabled") or case.find("skipped") is not None]


def main(junit_paths):
    skipped = [skip for path in junit_paths for skip in skipped_tests(path)]
    if not skipped:
        return 0
    print(f"{len(skipped)} test(s) skipped; CI counts a skip as a failure (ERGOBENCH_ALLOW_SKIPS=1 allows them):")
    for name, reason in skipped:
        print(f"  {name}: {reason}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
