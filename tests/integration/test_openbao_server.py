"""The OpenBao test server (tests/openbao/server.py) answers KV v2 reads the
way OpenBao documents them; checked here with real curl over TLS."""
import json
import os
import subprocess
import sys

import pytest

from osftest import TestCA, repo

sys.path.insert(0, os.path.join(repo(), "tests", "openbao"))
from runner import OpenBaoServer  # noqa: E402

ROOT = "root-token-7d1f"
APP = "app-token-93ab"
VALUE = "kv2-secret-value-5c0ffee"
STORE = {
    "tokens": {ROOT: ["*"], APP: ["secret/data/app/*"]},
    "mounts": {
        "secret": {"app/linear": {"value": VALUE, "note": "n"}, "ops/db": {"value": "ops"},
                   "app/gone": None},
        "team/kv": {"svc": {"value": "team-value"}},
    },
}


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("openbao-ca"))
    ca = TestCA(directory)
    return ca, ca.issue(["localhost", "127.0.0.1"])


@pytest.fixture
def bao(tmp_path, tls):
    ca, leaf = tls
    with OpenBaoServer(str(tmp_path), STORE, cert=leaf) as server:
        server.ca_path = ca.cert_path
        yield server


def curl(bao, path, *args, host="127.0.0.1", ca=None):
    res = subprocess.run(
        ["curl", "-sS", "--max-time", "20", "--cacert", ca or bao.ca_path, "-w", "\n%{http_code}",
         *args, bao.url(path, host)],
        capture_output=True, text=True, timeout=40)
    body, _, status = res.stdout.rpartition("\n")
    return res.returncode, int(status or 0), body, res.stderr


def test_read_returns_the_kv2_envelope(bao):
    code, status, body, _ = curl(bao, "/v1/secret/data/app/linear", "-H", f"X-Vault-Token: {ROOT}")
    assert (code, status) == (0, 200)
    doc = json.loads(body)
    assert set(doc) == {"request_id", "lease_id", "renewable", "lease_duration", "data",
                        "wrap_info", "warnings", "auth"}
    assert doc["lease_id"] == "" and doc["renewable"] is False and doc["lease_duration"] == 0
    assert doc["wrap_info"] is None and doc["warnings"] is None and doc["auth"] is None
    assert doc["data"]["data"] == {"value": VALUE, "note": "n"}
    assert doc["data"]["metadata"] == {
        "created_time": doc["data"]["metadata"]["created_time"], "custom_metadata": None,
        "deletion_time": "", "destroyed": False, "version": 1}
    assert doc["data"]["metadata"]["created_time"].endswith("Z")


def test_bearer_token_and_nested_mount(bao):
    code, status, body, _ = curl(bao, "/v1/team/kv/data/svc", "-H", f"Authorization: Bearer {ROOT}")
    assert status == 200
    assert json.loads(body)["data"]["data"]["value"] == "team-value"


@pytest.mark.parametrize("headers", [[], ["-H", "X-Vault-Token: wrong"],
                                     ["-H", "Authorization: Bearer wrong"]])
def test_missing_or_unknown_token_is_permission_denied(bao, headers):
    _, status, body, _ = curl(bao, "/v1/secret/data/app/linear", *headers)
    assert status == 403
    assert json.loads(body) == {"errors": ["permission denied"]}


def test_policy_limits_a_token_to_its_paths(bao):
    _, ok, _, _ = curl(bao, "/v1/secret/data/app/linear", "-H", f"X-Vault-Token: {APP}")
    _, denied, body, _ = curl(bao, "/v1/secret/data/ops/db", "-H", f"X-Vault-Token: {APP}")
    assert (ok, denied) == (200, 403)
    assert json.loads(body) == {"errors": ["permission denied"]}


def test_missing_secret_unknown_mount_and_deleted_secret_are_404(bao):
    auth = ["-H", f"X-Vault-Token: {ROOT}"]
    _, status, body, _ = curl(bao, "/v1/secret/data/app/nothing", *auth)
    assert (status, json.loads(body)) == (404, {"errors": []})
    _, status, body, _ = curl(bao, "/v1/nomount/data/x", *auth)
    assert status == 404
    assert json.loads(body)["errors"][0].startswith('no handler for route "nomount/data/x"')
    _, status, body, _ = curl(bao, "/v1/secret/data/app/gone", *auth)
    doc = json.loads(body)
    assert status == 404 and doc["data"]["data"] is None
    assert doc["data"]["metadata"]["deletion_time"] != ""
    _, status, _, _ = curl(bao, "/v1/secret/data/app/linear?version=7", *auth)
    assert status == 404


def test_writes_are_not_supported(bao):
    _, status, _, _ = curl(bao, "/v1/secret/data/app/linear", "-X", "POST", "-d", "{}",
                           "-H", f"X-Vault-Token: {ROOT}")
    assert status == 405


def test_tls_is_verified_by_clients(bao, tmp_path):
    other = TestCA(str(tmp_path / "other-ca"), name="someone else")
    code, _, _, err = curl(bao, "/v1/sys/health", ca=other.cert_path)
    assert code == 60, err  # curl: peer certificate cannot be authenticated
    code, status, _, _ = curl(bao, "/v1/sys/health", host="localhost")
    assert (code, status) == (0, 200)


def test_plain_http_mode(tmp_path):
    with OpenBaoServer(str(tmp_path), STORE, plain_http=True) as bao:
        res = subprocess.run(["curl", "-sS", "--max-time", "20", "-H", f"X-Vault-Token: {ROOT}",
                              bao.url("/v1/secret/data/app/linear")],
                             capture_output=True, text=True, timeout=40)
        assert json.loads(res.stdout)["data"]["data"]["value"] == VALUE


def test_log_names_requests_but_never_tokens_or_values(bao):
    curl(bao, "/v1/secret/data/app/linear", "-H", f"X-Vault-Token: {ROOT}")
    curl(bao, "/v1/secret/data/app/linear", "-H", "X-Vault-Token: wrong-token-zz")
    bao.stop()
    log = bao.stderr()
    assert "GET /v1/secret/data/app/linear token=valid -> 200" in log
    assert "GET /v1/secret/data/app/linear token=invalid -> 403" in log
    for secret in (ROOT, "wrong-token-zz", VALUE):
        assert secret not in log
