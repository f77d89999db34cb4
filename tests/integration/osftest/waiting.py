"""Waiting for a condition with a deadline: the one way the tests wait.

A test never sleeps and then looks: on a loaded machine (CI runs at load 8 to
20 on 2 cores) what it waits for may come much later than on an idle one. It
asks again until the condition holds or the deadline passes. The deadline only
bounds a real hang, so it is generous: several times the wait at load 4.
OSF_TEST_TIME_SCALE multiplies every deadline (a slower machine than CI's).
"""
import os
import time


def scaled(seconds):
    """A deadline in seconds, times OSF_TEST_TIME_SCALE (1 when unset)."""
    return seconds * float(os.environ.get("OSF_TEST_TIME_SCALE", "1"))


def wait_until(condition, timeout=30, what="the condition", interval=0.05):
    """Calls `condition` until it returns a true value, and returns that value;
    raises AssertionError naming `what` once `timeout` (scaled) has passed."""
    deadline = time.monotonic() + scaled(timeout)
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {scaled(timeout):g} s waiting for {what}")
        time.sleep(interval)
