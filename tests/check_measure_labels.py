"""Fails, naming each test, where a test judges a time outside the quiet phase.

gtest: a test whose body takes its figure from a clock or an injected delay (a sleep,
DelayedCommunicator, steady_clock, the CPU peak's measurements) and bounds a time, a rate or a
ratio with EXPECT/ASSERT_{GE,LE,GT,LT,NEAR}, in a test suite not named *MeasureTest. Such suites
get a ctest entry labelled `measure` (cmake/ErgobenchTargets.cmake), which scripts/test.sh runs
alone on the machine; elsewhere a loaded machine moves the figure (tests/bounds.md).

Python (the integration suites, test_*.py): a test method that bounds (assertLess, assertGreater,
their Equal forms, assertAlmostEqual) a time, a rate, a ratio or an energy, in a module that is
not a timed suite (--timed: the modules the quiet phase runs, tests/CMakeLists.txt's
ERGOBENCH_TIMED_SUITES) and not decorated @cpu_lock.alone. A folder's unquiet_tests.txt lists
the ones known and not yet moved, each with why (the debt is in tests/bounds.md's Open list): a
test listed there that no longer bounds such a figure fails the check too, so the list only
shrinks.

Usage: python3 tests/check_measure_labels.py [--timed energy,repeats] PATH...   (folders searched
for *_test.cc and test_*.py, less testdata/ below them unless given by name)"""

import ast
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


PY_BOUND = {"assertLess", "assertLessEqual", "assertGreater", "assertGreaterEqual", "assertAlmostEqual"}
PY_TIMED = re.compile(r"second|joule|ratio|mfu|busbw|bandwidth|watts|\bWh\b|energy|flops|latency|elapsed|waited",
                      re.I)


def unquiet_python(path, timed_modules):
    """(test id, line, the bound) of each test method of a module at `path` that bounds a timed
    figure outside the quiet phase and is not held alone."""
    module = os.path.basename(path)[:-len(".py")]
    if module.removeprefix("test_") in timed_modules:
        return
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for method in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")):
            if any("alone" in ast.unparse(d) for d in method.decorator_list):
                continue
            bounds = [n for n in ast.walk(method) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and n.func.attr in PY_BOUND and PY_TIMED.search(ast.unparse(n))]
            if bounds:
                first = min(bounds, key=lambda n: n.lineno)
                yield f"{module}.{cls.name}.{method.name}", first.lineno, ast.unparse(first)[:60]


def known_unquiet(folder):
    """The test ids a folder's unquiet_tests.txt lists: `module.Class.method  why`."""
    path = os.path.join(folder, "unquiet_tests.txt")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        rows = [line.split(None, 1) for line in f if line.strip() and not line.startswith("#")]
    return {row[0]: row[1].strip() if len(row) > 1 else "" for row in rows}


def python_folder(folder, names, timed_modules):
    known = known_unquiet(folder)
    found = []
    flagged = set()
    for name in sorted(names):
        if name.startswith("test_") and name.endswith(".py"):
            path = os.path.join(folder, name)
            for test, line, bound in unquiet_python(path, timed_modules):
                flagged.add(test)
                if test not in known:
                    found.append(f"{path}:{line}: {test} bounds a time, rate or energy outside the quiet phase "
                                 f"({bound}); hold the CPUs alone (@cpu_lock.alone) or run it in a timed suite")
                elif not known[test]:
                    found.append(f"{folder}/unquiet_tests.txt: {test} is listed without a reason")
    for test in sorted(set(known) - flagged):
        found.append(f"{folder}/unquiet_tests.txt: {test} no longer bounds such a figure outside the quiet "
                     "phase: take it off the list")
    return found


def main(args):
    timed_modules = set()
    if args[:1] == ["--timed"]:
        timed_modules, args = set(args[1].split(",")), args[2:]
    found = []
    for top in args:
        for root, folders, files in os.walk(top):
            folders[:] = [f for f in folders if f != "testdata"]  # the check's own cases, given by name
            for name in sorted(files):
                if name.endswith("_test.cc"):
                    found.extend(unlabelled(os.path.join(root, name)))
            if any(name.startswith("test_") and name.endswith(".py") for name in files):
                found.extend(python_folder(root, files, timed_modules))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
