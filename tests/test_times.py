"""Where a test run's time went: scripts/test.sh's phases, ctest's suites, and the ten slowest
tests, printed at the end of every run; then every test that failed, with its assertion, last,
where an excerpt of the run's tail (CI's) shows it.

  --phases FILE   lines "<name> <seconds>" that scripts/test.sh wrote, one per phase
  --junit FILE    ctest's JUnit report (--output-junit): one entry per ctest test (a gtest
                  binary, a Python suite); given again for each ctest run (the quiet phase's)
  --tests FILE    JSON lines {"suite", "test", "seconds"[, "failure"]} that every gtest
                  binary (tests/testing/gtest_main.cc) and Python suite (run_suite.py)
                  appended; "failure" is what a failed test said

Usage: python3 test_times.py [--phases FILE] [--junit FILE] [--tests FILE] [--slowest N]
"""

import argparse
import json
import os
import sys
import xml.etree.ElementTree as ElementTree


FAILURE_LINES = 12  # of each failure's text, its end


def minutes(seconds):
    return f"{seconds:8.1f} s  {seconds / 60:5.1f} min"


def read_phases(path):
    phases = []
    with open(path) as f:
        for line in f:
            name, _, seconds = line.rstrip("\n").rpartition(" ")
            if name:
                phases.append((name, float(seconds)))
    return phases


def read_junit(path):
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:  # ctest stopped before it wrote the report
        print(f"test_times: {path}: {error}, left out", file=sys.stderr)
        return []
    return [(case.get("name"), float(case.get("time") or 0), case.get("status") or "",
             next((f.get("message") for f in case.iter("failure")), None))
            for case in root.iter("testcase")]


def read_tests(path):
    tests = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                entry = json.loads(line)
                tests.append((entry["suite"], entry["test"], float(entry["seconds"]), entry.get("failure")))
            except (ValueError, KeyError, TypeError):
                print(f"test_times: {path}:{number}: not a time record, left out", file=sys.stderr)
    return tests


BUDGET_SECONDS = 40 * 60


def report(phases, suites, tests, slowest, out):
    if phases:
        print("== phases", file=out)
        for name, seconds in phases:
            print(f"  {name:<40} {minutes(seconds)}", file=out)
        total = sum(s for _, s in phases)
        print(f"  {'total':<40} {minutes(total)}", file=out)
        # The budget (docs/development.md): 40 minutes from a fresh machine, of CI's 90.
        spare = (BUDGET_SECONDS - total) / 60
        print(f"  the {BUDGET_SECONDS // 60}-minute budget: " +
              (f"{spare:.1f} min to spare" if spare >= 0 else f"OVER by {-spare:.1f} min"), file=out)
    if suites:
        print("== ctest, the suites of over 10 s", file=out)
        for name, seconds, status, _ in sorted(suites, key=lambda s: -s[1]):
            if seconds >= 10:
                print(f"  {name:<40} {minutes(seconds)}  {status}", file=out)
        print(f"  {len(suites)} ctest tests, {sum(s for _, s, _, _ in suites):.1f} s in all", file=out)
    if tests:
        totals = {}
        for suite, _, seconds, _ in tests:
            totals[suite] = totals.get(suite, 0.0) + seconds
        print("== suites (a gtest binary, a Python module, the shared cluster), of over 10 s", file=out)
        for suite, seconds in sorted(totals.items(), key=lambda t: -t[1]):
            if seconds >= 10:
                print(f"  {suite:<40} {minutes(seconds)}", file=out)
        print(f"== the {min(slowest, len(tests))} slowest of {len(tests)} tests", file=out)
        for suite, name, seconds, _ in sorted(tests, key=lambda t: -t[2])[:slowest]:
            print(f"  {seconds:8.1f} s  {suite}: {name}", file=out)
    # A ctest entry can fail with no test of its own saying so (a timeout, a crash, a check
    # that is no gtest binary or Python suite): it is named, its output is above.
    failed = [("ctest", f"{name} failed ({failure_message or status}; its output is above)", None)
              for name, _, status, failure_message in suites if status == "fail"]
    failed += [(suite, name, failure) for suite, name, _, failure in tests if failure]
    if failed:
        print(f"== {len(failed)} failed", file=out)
        for suite, name, failure in failed:
            print(f"  {suite}: {name}", file=out)
            lines = failure.rstrip("\n").split("\n") if failure else []
            if len(lines) > FAILURE_LINES:  # a traceback's end says what was asserted
                lines = ["[...]"] + lines[-FAILURE_LINES:]
            for line in lines:
                print(f"    {line}", file=out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases")
    parser.add_argument("--junit", action="append", default=[])
    parser.add_argument("--tests")
    parser.add_argument("--slowest", type=int, default=10)
    args = parser.parse_args(argv)
    exists = lambda path: path and os.path.exists(path)
    report(read_phases(args.phases) if exists(args.phases) else [],
           [entry for path in args.junit if exists(path) for entry in read_junit(path)],
           read_tests(args.tests) if exists(args.tests) else [], args.slowest, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
