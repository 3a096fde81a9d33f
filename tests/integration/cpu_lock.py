"""The machine's CPUs, shared or had alone. ctest runs two tests at a time (scripts/test.sh): the
cluster suites, which mostly wait on pods, beside the others. A test that compares the speed of
runs (a throttled run regresses, an identical one does not) must have the CPUs to itself.

A reader-writer lock on the file ERGOBENCH_CPU_LOCK names (tests/CMakeLists.txt sets it for every
test): every suite (run_suite.py) and gtest binary (gtest_main.cc) holds it shared while it runs,
a suite passing its turn between tests (pass_turn), and a test that times runs holds it alone
(@alone), waiting for the others' running tests to end and keeping new ones from starting. A
turnstile (the lock's file with ".turnstile" added) makes the one waiting to be alone go first:
a reader passes it on its way in, and the writer holds it while it waits.
Unset, nothing is locked (a suite run by hand)."""

import contextlib
import fcntl
import functools
import os
import time

PATH = os.environ.get("ERGOBENCH_CPU_LOCK", "")
_held = {"fd": None}


def _open(path):
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)


def _take(mode):
    """Takes the lock (fcntl.LOCK_SH or LOCK_EX) through the turnstile; returns its descriptor."""
    turnstile = _open(PATH + ".turnstile")
    try:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        lock = _open(PATH)
        fcntl.flock(lock, mode)
        return lock
    finally:
        os.close(turnstile)  # and with it the turnstile's lock


def share():
    """Holds the lock shared until the process exits or `alone` takes it over."""
    if PATH and _held["fd"] is None:
        _held["fd"] = _take(fcntl.LOCK_SH)


def pass_turn():
    """Between two tests of a suite: lets a test waiting to be alone go first (it holds the
    turnstile, so taking the share again waits for it to end), so that it waits for the sharers'
    running tests, not their whole suites. Returns the seconds this waited."""
    if not PATH or _held["fd"] is None:
        return 0.0
    started = time.monotonic()
    os.close(_held["fd"])
    _held["fd"] = None
    share()
    return time.monotonic() - started


@contextlib.contextmanager
def held_alone():
    if not PATH:
        yield
        return
    shared = _held["fd"] is not None
    if shared:  # our own share would keep us waiting for ourselves
        os.close(_held["fd"])
        _held["fd"] = None
    lock = _take(fcntl.LOCK_EX)
    try:
        yield
    finally:
        os.close(lock)
        if shared:
            share()


def alone(test):
    """A test method that runs with the CPUs to itself."""
    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        with held_alone():
            return test(*args, **kwargs)
    return wrapper
