# Makes the osftest fixture library importable from every integration test, and
# puts the pinned kubectl and helm (tests/tools/helm) first on PATH for the tests
# and every program they start.
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from osftest.kube_tools import kube_tool, put_kube_tools_first_on_path  # noqa: E402

put_kube_tools_first_on_path()


@pytest.fixture(scope="session")
def pinned_kubectl():
    """The pinned kubectl's path; a test that talks to the test API server uses it."""
    return kube_tool("kubectl")
