"""Fails, naming each test, where a gtest test judges a time outside the quiet phase: a test
whose body takes its figure from a clock or an injected delay (a sleep, DelayedCommunicator,
steady_clock, the CPU peak's measurements) and bounds a time, a rate or a ratio with
EXPECT/ASSERT_{GE,LE,GT,LT,NEAR}, in a test suite not named *MeasureTest. Such suites get a ctest
entry labelled `measure` (cmake/ErgobenchTargets.cmake), which scripts/test.sh runs alone on the
machine; elsewhere a loaded machine moves the figure (tests/bounds.md).

Usage: python3 tests/check_measure_labels.py PATH...   (folders searched for *_test.cc, less
testdata/ below them)"""

import os
import re
import sys

TEST = re.compile(r"^TEST(?:_F|_P)?\((\w+),\s*(\w+)\)\s*\{", re.M)
CLOCK = re.compile(r"sleep_for\(|DelayedCommunicator|steady_clock::now\(\)|MeasureFmaKernelRate|"
                   r"MeasureCoreClockHz|PeakOfRank|BestCpuGemm")
BOUND = re.compile(r"(?:EXPECT|ASSERT)_(?:GE|LE|GT|LT|NEAR)\(([^;]*)\);")
TIMED = re.compile(r"second|_ms\b|Ms\b|busy|ratio|rate|flops|elapsed|waited|latency|bandwidth|joule", re.I)


def tests_of(text):
    """(suite, name, body, line) of each TEST, TEST_F and TEST_P: the body up to its closing brace."""
    for match in TEST.finditer(text):
        depth, end = 1, match.end()
        while depth and end < len(text):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        yield match.group(1), match.group(2), text[match.end():end], text.count("\n", 0, match.start()) + 1


def unlabelled(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for suite, name, body, line in tests_of(text):
        if suite.endswith("MeasureTest") or not CLOCK.search(body):
            continue
        bounds = [b for b in BOUND.findall(body) if TIMED.search(b)]
        if bounds:
            yield f"{path}:{line}: {suite}.{name} bounds a time outside the quiet phase ({bounds[0].strip()[:60]}); " \
                  "name its suite *MeasureTest"


def main(paths):
    found = []
    for top in paths:
        for root, folders, files in os.walk(top):
            folders[:] = [f for f in folders if f != "testdata"]  # the check's own cases, given by name
            for name in sorted(files):
                if name.endswith("_test.cc"):
                    found.extend(unlabelled(os.path.join(root, name)))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
