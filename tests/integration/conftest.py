# Makes the osftest fixture library importable from every integration test, and
# puts the pinned kubectl and helm (tests/tools/helm) first on PATH for the tests
# and every program they start.
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from osftest.kube_tools import kube_tool, put_kube_tools_first_on_path  # noqa: E402

put_kube_tools_first_on_path()


@pytest.fixture(scope="session")
def pinned_kubectl():
    """The pinned kubectl's path; a test that talks to the test API server uses it."""
    return kube_tool("kubectl")


def pytest_collection_modifyitems(config, items):
    """OSF_TEST_SHUFFLE_SEED=N runs each file's tests in an order shuffled by N
    (scripts/stress-tests.sh sets it): a test that needs another's leftovers, or
    its absence, fails in some order. Unset, the order is the file's."""
    seed = os.environ.get("OSF_TEST_SHUFFLE_SEED")
    if not seed:
        return
    by_file = {}
    for item in items:
        by_file.setdefault(item.fspath, []).append(item)
    shuffled = []
    for group in by_file.values():
        random.Random(f"{seed}:{group[0].fspath.basename}").shuffle(group)
        shuffled.extend(group)
    items[:] = shuffled
