"""Fixtures for integration tests: test CAs, HTTPS upstreams on loopback and
the built egress-proxy, all started and stopped by the test that uses them."""

from .certs import TestCA
from .upstream import Upstream, EchoHandler
from .proxy import Proxy, ProxyExited
from .paths import repo, build_dir, proxy_bin, spec_check_bin, adapter_bin, python
from .clients import curl
from .followed import Followed
from .kube_tools import kube_tool, kube_tools_dir

__all__ = [
    "TestCA", "Upstream", "EchoHandler", "Proxy", "ProxyExited", "repo", "build_dir",
    "proxy_bin", "spec_check_bin", "adapter_bin", "python", "curl", "kube_tool", "kube_tools_dir",
    "Followed",
]
