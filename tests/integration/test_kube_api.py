"""The test Kubernetes API server (tests/kube-api) driven by the real kubectl binary: what the
sandbox-kubernetes adapter relies on behaves as a real cluster's API server does for kubectl."""

import base64
import json
import os
import ssl
import subprocess
import sys
import time
import uuid

import pytest

REPO = os.environ.get("OSF_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KUBE_API_DIR = os.path.join(REPO, "tests", "kube-api")
sys.path.insert(0, KUBE_API_DIR)

from kube_api_fixture import KubeApiServer  # noqa: E402
from test_api_pieces import *  # noqa: E402,F401,F403  (the unit tests of tests/kube-api run here too)
from test_openapi_validate import *  # noqa: E402,F401,F403

pytestmark = pytest.mark.usefixtures("pinned_kubectl")  # the same kubectl on every machine (conftest)

GROUP = "extensions.agents.x-k8s.io"


@pytest.fixture(scope="module")
def kube(tmp_path_factory):
    with KubeApiServer(tmp_path_factory.mktemp("kube-api")) as server:
        yield server


@pytest.fixture
def name():
    return "t-" + uuid.uuid4().hex[:8]


@pytest.fixture
def default_simulation(kube):
    yield kube
    kube.configure(podRules=[], podDelaySeconds=0.2, sandboxController=True, forbid=[], gcDelaySeconds=0,
                   configMapRefreshSeconds=0, templateNetworkPolicies=True)
    kube.set_exec(handlers=[], bin_dirs=[])


def ok(result):
    assert result.returncode == 0, result.stderr
    return result.stdout


def sandbox_objects(name, image="node:24-alpine", extra_claim_spec=None):
    template = {
        "apiVersion": f"{GROUP}/v1beta1", "kind": "SandboxTemplate",
        "metadata": {"name": name, "labels": {"osf.sandbox.id": name}},
        "spec": {
            "podTemplate": {
                "metadata": {"labels": {"osf.sandbox.id": name, "agents.x-k8s.io/dropped": "yes"}},
                "spec": {
                    "containers": [{"name": "sandbox", "image": image, "command": ["sleep", "infinity"],
                                    "workingDir": "/workspace",
                                    "env": [{"name": "CI", "value": "1"}],
                                    "volumeMounts": [{"name": "workspace", "mountPath": "/workspace"}]}],
                    "volumes": [{"name": "workspace", "emptyDir": {}}],
                },
            },
            "networkPolicy": {"ingress": [], "egress": [
                {"to": [{"podSelector": {"matchLabels": {"osf.sandbox.id": name}}}],
                 "ports": [{"port": 8080, "protocol": "TCP"}]}]},
        },
    }
    pool = {"apiVersion": f"{GROUP}/v1beta1", "kind": "SandboxWarmPool",
            "metadata": {"name": name, "labels": {"osf.sandbox.id": name}},
            "spec": {"replicas": 0, "sandboxTemplateRef": {"name": name}}}
    claim = {"apiVersion": f"{GROUP}/v1beta1", "kind": "SandboxClaim",
             "metadata": {"name": name, "labels": {"osf.sandbox.id": name}},
             "spec": {"warmPoolRef": {"name": name}, **(extra_claim_spec or {})}}
    return {"apiVersion": "v1", "kind": "List", "items": [template, pool, claim]}


def create_pod(kube, name, image="busybox:1.36", labels=None, extra_spec=None):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {"app": name}},
           "spec": {"containers": [{"name": "main", "image": image, "command": ["sleep", "infinity"],
                                    "workingDir": "/workspace",
                                    "volumeMounts": [{"name": "workspace", "mountPath": "/workspace"}]}],
                    "volumes": [{"name": "workspace", "emptyDir": {}}], **(extra_spec or {})}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s"))


# -- discovery and auth -------------------------------------------------------------------------

def test_kubectl_version_reports_the_server(kube):
    out = ok(kube.kubectl("version", "-o", "json"))
    assert json.loads(out)["serverVersion"]["gitVersion"].startswith("v1.32")


def test_api_resources_list_the_agent_sandbox_kinds_as_the_crds_declare_them(kube):
    out = ok(kube.kubectl("api-resources", "-o", "wide", "--no-headers"))
    rows = {line.split()[0]: line.split() for line in out.splitlines()}
    assert rows["sandboxes"][1:5] == ["sandbox", "agents.x-k8s.io/v1beta1", "true", "Sandbox"]
    assert rows["sandboxclaims"][1:5] == ["sandboxclaim", f"{GROUP}/v1beta1", "true", "SandboxClaim"]
    assert rows["sandboxtemplates"][1:5] == ["sandboxtemplate", f"{GROUP}/v1beta1", "true", "SandboxTemplate"]
    assert rows["sandboxwarmpools"][1:5] == ["swp", f"{GROUP}/v1beta1", "true", "SandboxWarmPool"]
    assert rows["sandboxclaims"][5] == "create,delete,deletecollection,get,list,patch,update,watch"
    for core in ("pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "namespaces",
                 "networkpolicies"):
        assert core in rows


def test_legacy_discovery_documents(kube):
    status, doc = kube.request("GET", "/apis/extensions.agents.x-k8s.io/v1beta1")
    assert status == 200 and doc["kind"] == "APIResourceList"
    names = {r["name"]: r for r in doc["resources"]}
    assert names["sandboxwarmpools"]["shortNames"] == ["swp"]
    assert "sandboxclaims/status" in names
    status, doc = kube.request("GET", "/api/v1")
    assert status == 200 and "pods/exec" in {r["name"] for r in doc["resources"]}
    status, doc = kube.request("GET", "/apis")
    assert {"agents.x-k8s.io", GROUP, "networking.k8s.io"} <= {g["name"] for g in doc["groups"]}


def test_aggregated_discovery_and_openapi_documents(kube):
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
    status, doc = kube.request("GET", "/apis", headers={"Accept": accept})
    assert status == 200 and doc["kind"] == "APIGroupDiscoveryList"
    groups = {g["metadata"]["name"]: g for g in doc["items"]}
    claims = next(r for r in groups[GROUP]["versions"][0]["resources"] if r["resource"] == "sandboxclaims")
    assert claims["scope"] == "Namespaced" and claims["shortNames"] == ["sandboxclaim"]
    assert {"subresource": "status", "responseKind": {"group": GROUP, "version": "v1beta1", "kind": "SandboxClaim"},
            "verbs": ["get", "patch", "update"]} in claims["subresources"]
    status, root = kube.request("GET", "/openapi/v3")
    url = root["paths"][f"apis/{GROUP}/v1beta1"]["serverRelativeURL"]
    status, gv = kube.request("GET", url)
    patch = gv["paths"][f"/apis/{GROUP}/v1beta1/namespaces/{{namespace}}/sandboxclaims/{{name}}"]["patch"]
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]
    out = ok(kube.kubectl("explain", "sandboxclaim.spec.warmPoolRef"))
    assert "KIND:       SandboxClaim" in out and "name\t<string> -required-" in out


def test_a_wrong_token_is_refused(kube):
    status, doc = kube.request("GET", "/api/v1/namespaces/default/pods", token="wrong")
    assert status == 401 and doc["reason"] == "Unauthorized"
    result = kube.kubectl("--token=wrong", "get", "pods")
    assert result.returncode == 1
    assert "You must be logged in to the server (Unauthorized)" in result.stderr


# -- CRUD ---------------------------------------------------------------------------------------

def test_create_get_list_by_label_and_delete_by_label(kube, name):
    for i, tier in enumerate(("fe", "be", "db")):
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": f"{name}-{i}", "labels": {"set": name, "tier": tier}}, "data": {"i": str(i)}}
        assert f"configmap/{name}-{i} created" in ok(kube.kubectl("create", "-f", "-", input=json.dumps(cm)))
    got = kube.kubectl_json("get", "configmap", f"{name}-0")
    meta = got["metadata"]
    assert got["data"] == {"i": "0"} and meta["namespace"] == "default"
    assert meta["uid"] and meta["creationTimestamp"] and int(meta["resourceVersion"]) > 0

    def names(selector):
        out = ok(kube.kubectl("get", "configmaps", "-l", selector, "-o", "jsonpath={.items[*].metadata.name}"))
        return sorted(out.split())

    assert names(f"set={name}") == [f"{name}-0", f"{name}-1", f"{name}-2"]
    assert names(f"set={name},tier!=fe") == [f"{name}-1", f"{name}-2"]
    assert names(f"set={name},tier in (fe,db)") == [f"{name}-0", f"{name}-2"]
    assert names(f"set={name},tier notin (fe,db)") == [f"{name}-1"]
    assert names(f"set={name},!tier") == []
    out = ok(kube.kubectl("get", "configmaps", f"--field-selector=metadata.name={name}-1", "-o", "name"))
    assert out.strip() == f"configmap/{name}-1"
    # A field the kind cannot be selected on is refused, as the real server refuses it.
    refused = kube.kubectl("get", "configmaps", "--field-selector=status.phase=Running", "-o", "name")
    assert refused.returncode != 0 and "field label not supported: status.phase" in refused.stderr
    ok(kube.kubectl("get", "pods", "--field-selector=status.phase!=Running", "-o", "name"))
    out = ok(kube.kubectl("delete", "configmaps", "-l", f"set={name},tier!=db"))
    assert f'configmap "{name}-0" deleted' in out and f'configmap "{name}-1" deleted' in out
    assert names(f"set={name}") == [f"{name}-2"]


def test_a_list_comes_in_pages_of_limit_with_continue_as_the_real_api_server_pages_it(kube, name):
    for i in range(5):
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-{i}", "labels": {"set": name}}}
        ok(kube.kubectl("create", "-f", "-", input=json.dumps(cm)))
    ok(kube.kubectl("create", "configmap", f"{name}-x"))  # not in the set, between them by name
    path = f"/api/v1/namespaces/default/configmaps?labelSelector=set%3D{name}&limit=2"
    first = json.loads(ok(kube.kubectl("get", "--raw", path)))
    assert [o["metadata"]["name"] for o in first["items"]] == [f"{name}-0", f"{name}-1"]
    token = first["metadata"]["continue"]
    # The real server's token: base64url of {"v","rv","start"}; a selected list has no remainingItemCount.
    decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert decoded == {"v": "meta.k8s.io/v1", "rv": int(first["metadata"]["resourceVersion"]),
                       "start": f"{name}-1\u0000"}
    assert "remainingItemCount" not in first["metadata"]
    second = json.loads(ok(kube.kubectl("get", "--raw", f"{path}&continue={token}")))
    assert [o["metadata"]["name"] for o in second["items"]] == [f"{name}-2", f"{name}-3"]
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    third = json.loads(ok(kube.kubectl("get", "--raw", f"{path}&continue={second['metadata']['continue']}")))
    # The server reads on past {name}-x to fill the page, reaches the end: no token.
    assert [o["metadata"]["name"] for o in third["items"]] == [f"{name}-4"]
    assert "continue" not in third["metadata"]
    # A page filled just before keys that do not match: etcd says more keys remain, so a token,
    # and an empty last page.
    five = json.loads(ok(kube.kubectl("get", "--raw", path.replace("limit=2", "limit=5"))))
    assert len(five["items"]) == 5
    last = json.loads(ok(kube.kubectl("get", "--raw", f"{path}&continue={five['metadata']['continue']}")))
    assert last["items"] == [] and "continue" not in last["metadata"]
    # Without a selector, remainingItemCount (objects after the page, whatever they are).
    unselected = json.loads(ok(kube.kubectl("get", "--raw", "/api/v1/namespaces/default/configmaps?limit=1")))
    assert len(unselected["items"]) == 1 and unselected["metadata"]["remainingItemCount"] >= 5
    result = kube.kubectl("get", "--raw", f"{path}&continue=not-a-token")
    assert result.returncode == 1 and "continue key is not valid" in result.stderr, result.stderr
    # kubectl's own paging (--chunk-size) follows continue, tables and JSON alike.
    assert ok(kube.kubectl("get", "configmaps", "-l", f"set={name}", "--chunk-size=2", "-o", "name")).split() == \
        [f"configmap/{name}-{i}" for i in range(5)]
    table = ok(kube.kubectl("get", "configmaps", "-l", f"set={name}", "--chunk-size=2", "--no-headers"))
    assert [line.split()[0] for line in table.splitlines()] == [f"{name}-{i}" for i in range(5)]


def test_errors_read_as_kubectl_prints_them(kube, name):
    result = kube.kubectl("get", "pod", name)
    assert result.returncode == 1
    assert result.stderr.strip() == f'Error from server (NotFound): pods "{name}" not found'
    ok(kube.kubectl("create", "configmap", name, "--from-literal=a=1"))
    result = kube.kubectl("create", "configmap", name, "--from-literal=a=1")
    assert result.returncode == 1
    assert f'configmaps "{name}" already exists' in result.stderr
    result = kube.kubectl("create", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}))
    assert ('Error from server (AlreadyExists): error when creating "STDIN": '
            f'configmaps "{name}" already exists') in result.stderr
    result = kube.kubectl("get", "sandboxclaim", name)
    assert f'sandboxclaims.{GROUP} "{name}" not found' in result.stderr
    result = kube.kubectl("create", "configmap", "Bad_Name")
    assert result.returncode == 1 and 'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value' in result.stderr


def test_patch_apply_and_server_side_apply(kube, name):
    ok(kube.kubectl("create", "configmap", name, "--from-literal=a=1"))
    ok(kube.kubectl("patch", "configmap", name, "--type=merge", "-p", '{"data":{"b":"2"}}'))
    ok(kube.kubectl("patch", "configmap", name, "--type=json", "-p", '[{"op":"remove","path":"/data/a"}]'))
    ok(kube.kubectl("patch", "configmap", name, "-p", '{"data":{"c":"3"}}'))
    ok(kube.kubectl("label", "configmap", name, "osf.sandbox.id=abc"))
    got = kube.kubectl_json("get", "configmap", name)
    assert got["data"] == {"b": "2", "c": "3"} and got["metadata"]["labels"] == {"osf.sandbox.id": "abc"}

    pool = {"apiVersion": f"{GROUP}/v1beta1", "kind": "SandboxWarmPool", "metadata": {"name": name},
            "spec": {"replicas": 0, "sandboxTemplateRef": {"name": "x"}}}
    assert "created" in ok(kube.kubectl("apply", "-f", "-", input=json.dumps(pool)))
    assert "unchanged" in ok(kube.kubectl("apply", "-f", "-", input=json.dumps(pool)))
    pool["spec"]["replicas"] = 2
    assert "configured" in ok(kube.kubectl("apply", "-f", "-", input=json.dumps(pool)))
    got = kube.kubectl_json("get", "swp", name)
    assert got["spec"]["replicas"] == 2 and got["metadata"]["generation"] == 2
    assert got["spec"].get("updateStrategy") is None  # defaults apply only inside objects that exist
    del pool["spec"]["replicas"]
    pool["spec"]["updateStrategy"] = {}
    pool["metadata"]["name"] = name + "-defaults"
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pool)))
    got = kube.kubectl_json("get", "swp", name + "-defaults")
    assert got["spec"]["replicas"] == 1 and got["spec"]["updateStrategy"] == {"type": "OnReplenish"}
    pool["spec"]["replicas"] = 2

    pool["metadata"]["name"] = name + "-ssa"
    out = ok(kube.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(pool)))
    assert "serverside-applied" in out
    assert kube.kubectl_json("get", "swp", name + "-ssa")["spec"]["replicas"] == 2


def test_dry_run_server_stores_nothing(kube, name):
    objects = sandbox_objects(name)
    out = ok(kube.kubectl("apply", "--dry-run=server", "-f", "-", input=json.dumps(objects)))
    assert out.count("(server dry run)") == 3
    assert ok(kube.kubectl("get", "sandboxtemplates,sandboxwarmpools,sandboxclaims", "-l",
                           f"osf.sandbox.id={name}", "-o", "name")).strip() == ""


def test_status_subresource_is_separate_from_the_object(kube, name):
    pool = {"apiVersion": f"{GROUP}/v1beta1", "kind": "SandboxWarmPool", "metadata": {"name": name},
            "spec": {"replicas": 0, "sandboxTemplateRef": {"name": "x"}, }, "status": {"replicas": 9}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pool)))
    assert "status" not in kube.kubectl_json("get", "swp", name)
    ok(kube.kubectl("patch", "swp", name, "--subresource=status", "--type=merge", "-p", '{"status":{"replicas":3}}'))
    got = kube.kubectl_json("get", "swp", name)
    assert got["status"] == {"replicas": 3} and got["metadata"]["generation"] == 1


# -- validation ---------------------------------------------------------------------------------

def test_a_claim_with_an_unknown_field_is_refused_as_the_real_server_does(kube, name):
    claim = {"apiVersion": f"{GROUP}/v1beta1", "kind": "SandboxClaim", "metadata": {"name": name},
             "spec": {"warmPoolRef": {"name": "p"}, "sandboxTemplateRef": {"name": "t"}}}
    result = kube.kubectl("create", "-f", "-", input=json.dumps(claim))
    assert result.returncode == 1
    assert ('Error from server (BadRequest): error when creating "STDIN": SandboxClaim in version "v1beta1" '
            'cannot be handled as a SandboxClaim: strict decoding error: unknown field "spec.sandboxTemplateRef"'
            in result.stderr)
    # Without field validation the unknown field is dropped, as the real server prunes it.
    ok(kube.kubectl("create", "--validate=false", "-f", "-", input=json.dumps(claim)))
    assert "sandboxTemplateRef" not in kube.kubectl_json("get", "sandboxclaim", name)["spec"]


def test_a_claim_without_warm_pool_ref_is_invalid(kube, name):
    claim = {"apiVersion": f"{GROUP}/v1beta1", "kind": "SandboxClaim", "metadata": {"name": name},
             "spec": {"lifecycle": {"shutdownPolicy": "Sometimes"}}}
    result = kube.kubectl("create", "-f", "-", input=json.dumps(claim))
    assert result.returncode == 1
    assert f'The SandboxClaim "{name}" is invalid' in result.stderr
    assert "spec.warmPoolRef: Required value" in result.stderr
    assert ('spec.lifecycle.shutdownPolicy: Unsupported value: "Sometimes": supported values: "Delete", '
            '"DeleteForeground", "Retain"') in result.stderr
    status, doc = kube.request("POST", f"/apis/{GROUP}/v1beta1/namespaces/default/sandboxclaims", claim)
    assert status == 422 and doc["reason"] == "Invalid"
    assert doc["message"].startswith(f'SandboxClaim.{GROUP} "{name}" is invalid: [spec.warmPoolRef: Required value, ')
    assert {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.warmPoolRef"} \
        in doc["details"]["causes"]


def test_pods_are_validated(kube, name):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "main", "imagePullPolcy": "Always"}]}}
    result = kube.kubectl("create", "-f", "-", input=json.dumps(pod))
    assert 'strict decoding error: unknown field "spec.containers[0].imagePullPolcy"' in result.stderr
    del pod["spec"]["containers"][0]["imagePullPolcy"]
    result = kube.kubectl("create", "-f", "-", input=json.dumps(pod))
    assert f'The Pod "{name}" is invalid: spec.containers[0].image: Required value' in result.stderr


def test_values_that_go_cannot_decode_are_bad_requests(kube, name):
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": {"a": "not base64!"}}
    result = kube.kubectl("create", "-f", "-", input=json.dumps(secret))
    assert ('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'
            in result.stderr)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"memory": "4GB"}}}]}}
    result = kube.kubectl("create", "-f", "-", input=json.dumps(pod))
    assert 'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression' \
        in result.stderr
    template = sandbox_objects(name)["items"][0]
    template["spec"]["podTemplate"]["spec"]["containers"][0]["resources"] = {"limits": {"memory": "4GB"}}
    result = kube.kubectl("create", "-f", "-", input=json.dumps(template))
    assert (f'The SandboxTemplate "{name}" is invalid: spec.podTemplate.spec.containers[0].resources.limits.memory: '
            'Invalid value: "4GB"') in result.stderr


def test_objects_go_only_into_existing_namespaces(kube, name):
    result = kube.kubectl("-n", name, "create", "configmap", "x")
    assert f'namespaces "{name}" not found' in result.stderr
    ok(kube.kubectl("create", "namespace", name))
    ok(kube.kubectl("-n", name, "create", "configmap", "x"))
    ok(kube.kubectl("delete", "namespace", name))
    assert kube.kubectl("-n", name, "get", "configmap", "x").returncode == 1


# -- wait, watch, tables ------------------------------------------------------------------------

def test_wait_for_ready_and_for_delete(kube, name):
    create_pod(kube, name)
    pod = kube.kubectl_json("get", "pod", name)
    assert pod["status"]["phase"] == "Running" and pod["status"]["podIP"]
    out = ok(kube.kubectl("get", "pod", name))
    assert "1/1" in out and "Running" in out
    waiter = subprocess.Popen(["kubectl", "wait", "--for=delete", f"pod/{name}", "--timeout=60s"],
                              env=kube.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1)
        ok(kube.kubectl("delete", "pod", name, "--wait=false"))
        out, err = waiter.communicate(timeout=60)
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
    assert waiter.returncode == 0, err


def test_watch_streams_events_after_a_resource_version(kube, name):
    status, listed = kube.request("GET", f"/api/v1/namespaces/default/configmaps?labelSelector=w%3D{name}")
    rv = listed["metadata"]["resourceVersion"]
    ok(kube.kubectl("create", "configmap", name, "--from-literal=a=1"))
    ok(kube.kubectl("label", "configmap", name, f"w={name}"))
    ok(kube.kubectl("delete", "configmap", name))
    import http.client
    conn = http.client.HTTPSConnection("127.0.0.1", kube.port, timeout=30,
                                       context=ssl.create_default_context(cafile=os.path.join(kube.state_dir, "tls", "ca.crt")))
    conn.request("GET", f"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={rv}"
                        f"&labelSelector=w%3D{name}&timeoutSeconds=2",
                 headers={"Authorization": f"Bearer {kube.token}"})
    resp = conn.getresponse()
    events = [json.loads(line) for line in resp.read().decode().splitlines() if line.strip()]
    conn.close()
    # The object enters the selection when labelled (ADDED), then is deleted.
    assert [e["type"] for e in events] == ["ADDED", "DELETED"]
    assert events[0]["object"]["metadata"]["labels"] == {"w": name}


def test_get_prints_the_crd_printer_columns(kube, name, default_simulation):
    ok(kube.kubectl("apply", "-f", "-", input=json.dumps(sandbox_objects(name))))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"sandboxclaim/{name}", "--timeout=60s"))
    header, row = ok(kube.kubectl("get", "sandboxclaim", name)).splitlines()
    assert header.split() == ["NAME", "READY", "SANDBOX", "REASON", "AGE"]
    assert row.split()[:3] == [name, "True", name]


# -- exec and cp --------------------------------------------------------------------------------

def test_exec_runs_in_the_workspace_with_exit_codes_and_streams(kube, name):
    create_pod(kube, name, extra_spec=None)
    result = kube.kubectl("exec", name, "--", "sh", "-c", "pwd; echo to-out; echo to-err >&2; exit 7")
    assert result.returncode == 7
    assert result.stdout == "/workspace\nto-out\n"
    assert "to-err" in result.stderr
    result = kube.kubectl("exec", "-i", name, "--", "sh", "-c", "cat > /workspace/in.txt; wc -c < in.txt",
                          input="hello stdin\n")
    assert result.returncode == 0 and result.stdout.strip() == "12"
    assert ok(kube.kubectl("exec", name, "--", "cat", "/workspace/in.txt")) == "hello stdin\n"
    result = kube.kubectl("exec", name, "--", "no-such-command")
    assert result.returncode == 126
    assert 'exec: "no-such-command": executable file not found in $PATH' in result.stdout + result.stderr
    assert ok(kube.kubectl("exec", name, "--", "hostname")).strip() == name


def test_exec_sees_the_container_environment_and_volumes(kube, name):
    ok(kube.kubectl("create", "configmap", name + "-ca", "--from-literal=egress-ca.crt=PEM DATA"))
    ok(kube.kubectl("create", "secret", "generic", name + "-s", "--from-literal=TOKEN=s3cret"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{
               "name": "main", "image": "busybox", "workingDir": "/workspace",
               "env": [{"name": "SSL_CERT_FILE", "value": "/etc/osf/egress-ca.crt"},
                       {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": name + "-s", "key": "TOKEN"}}},
                       {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
               "volumeMounts": [{"name": "ws", "mountPath": "/workspace"},
                                {"name": "ca", "mountPath": "/etc/osf", "readOnly": True}]}],
               "volumes": [{"name": "ws", "emptyDir": {}}, {"name": "ca", "configMap": {"name": name + "-ca"}}]}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s"))
    out = ok(kube.kubectl("exec", name, "--", "sh", "-c", 'cat "$SSL_CERT_FILE"; echo; echo "$TOKEN $POD"'))
    assert out == f"PEM DATA\ns3cret {name}\n"
    result = kube.kubectl("exec", name, "--", "sh", "-c", "echo x > /etc/osf/new")
    assert result.returncode != 0


def test_kubectl_cp_both_ways(kube, name, tmp_path):
    create_pod(kube, name)
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("alpha\n")
    (src / "sub" / "b.bin").write_bytes(bytes(range(256)) * 100)
    ok(kube.kubectl("cp", str(src), f"{name}:/workspace/project"))
    assert ok(kube.kubectl("exec", name, "--", "cat", "project/a.txt")) == "alpha\n"
    back = tmp_path / "back"
    ok(kube.kubectl("cp", f"{name}:/workspace/project", str(back)))
    assert (back / "a.txt").read_text() == "alpha\n"
    assert (back / "sub" / "b.bin").read_bytes() == bytes(range(256)) * 100
    ok(kube.kubectl("cp", f"{name}:project/a.txt", str(tmp_path / "single.txt")))
    assert (tmp_path / "single.txt").read_text() == "alpha\n"


def test_persistent_volume_claims_outlive_pods(kube, name):
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pvc)))
    assert kube.kubectl_json("get", "pvc", name)["status"]["phase"] == "Bound"
    spec = {"volumes": [{"name": "workspace", "persistentVolumeClaim": {"claimName": name}}]}
    create_pod(kube, name + "-a", extra_spec=spec)
    ok(kube.kubectl("exec", name + "-a", "--", "sh", "-c", "echo kept > /workspace/file"))
    ok(kube.kubectl("delete", "pod", name + "-a"))
    create_pod(kube, name + "-b", extra_spec=spec)
    assert ok(kube.kubectl("exec", name + "-b", "--", "cat", "/workspace/file")) == "kept\n"


def test_exec_handlers_answer_for_the_egress_proxy_image(kube, name, default_simulation, tmp_path):
    pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    kube.set_exec(handlers=[{"image": "*egress-proxy*", "command": ["egress-proxy", "ca"], "stdout": pem}])
    create_pod(kube, name, image="ghcr.io/example/egress-proxy:1.0")
    assert ok(kube.kubectl("exec", name, "--", "egress-proxy", "ca")) == pem
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "egress-proxy"
    tool.write_text("#!/bin/sh\necho \"log for $1\"\nexit 4\n")
    tool.chmod(0o755)
    kube.set_exec(handlers=[], bin_dirs=[{"image": "*egress-proxy*", "dir": str(bin_dir)}])
    result = kube.kubectl("exec", name, "--", "egress-proxy", "log")
    assert result.returncode == 4 and result.stdout == "log for log\n"
    # `at`: bound where the image has its binary, so its absolute path runs the test's.
    kube.set_exec(handlers=[], bin_dirs=[{"image": "*egress-proxy*", "dir": str(bin_dir), "at": "/usr/local/bin"}])
    result = kube.kubectl("exec", name, "--", "/usr/local/bin/egress-proxy", "ca")
    assert result.returncode == 4 and result.stdout == "log for ca\n"


# -- simulation: kubelet and agent-sandbox controller -------------------------------------------

def test_a_claim_becomes_ready_with_its_sandbox_and_pod(kube, name, default_simulation):
    ok(kube.kubectl("apply", "-f", "-", input=json.dumps(sandbox_objects(name))))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"sandboxclaim/{name}", "--timeout=60s"))
    claim = kube.kubectl_json("get", "sandboxclaim", name)
    assert claim["status"]["sandbox"]["name"] == name
    sandbox = kube.kubectl_json("get", "sandbox", name)
    assert sandbox["metadata"]["ownerReferences"][0]["uid"] == claim["metadata"]["uid"]
    pod = kube.kubectl_json("get", "pod", name)
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "Sandbox"
    assert pod["metadata"]["labels"]["osf.sandbox.id"] == name
    assert "agents.x-k8s.io/dropped" not in pod["metadata"]["labels"]
    assert pod["spec"]["automountServiceAccountToken"] is False
    assert ok(kube.kubectl("exec", name, "--", "sh", "-c", "pwd; echo $CI")) == "/workspace\n1\n"
    # The statuses the simulation wrote are valid against the CRD schemas: updates still pass.
    ok(kube.kubectl("label", "sandboxclaim", name, "checked=yes"))
    ok(kube.kubectl("annotate", "sandbox", name, "checked=yes"))
    # The template's shared NetworkPolicy selects the pod and carries the template's rules.
    policy = kube.kubectl_json("get", "networkpolicy", f"{name}-network-policy")
    assert policy["metadata"]["ownerReferences"][0]["kind"] == "SandboxTemplate"
    selector = policy["spec"]["podSelector"]["matchLabels"]
    assert selector.items() <= pod["metadata"]["labels"].items() and selector
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert policy["spec"]["egress"] == sandbox_objects(name)["items"][0]["spec"]["networkPolicy"]["egress"]
    ok(kube.kubectl("delete", "sandboxclaim,sandboxwarmpool,sandboxtemplate", "-l", f"osf.sandbox.id={name}"))
    assert kube.kubectl("get", "networkpolicy", f"{name}-network-policy").returncode == 1
    assert kube.kubectl("get", "sandbox", name).returncode == 1
    kube.wait_for(lambda: kube.kubectl("get", "pod", name).returncode == 1, what="the sandbox pod to go")


def test_a_claim_without_its_pool_is_not_ready(kube, name, default_simulation):
    claim = sandbox_objects(name)["items"][2]
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(claim)))

    def reason():
        conds = kube.kubectl_json("get", "sandboxclaim", name).get("status", {}).get("conditions", [])
        return conds and conds[0]["reason"]

    assert kube.wait_for(reason, what="a claim condition") == "WarmPoolNotFound"


def test_an_image_that_cannot_be_pulled_keeps_the_claim_not_ready(kube, name, default_simulation):
    kube.configure(podRules=[{"image": "registry.example/missing:*", "behavior": "ErrImagePull"}])
    ok(kube.kubectl("apply", "-f", "-", input=json.dumps(sandbox_objects(name, image="registry.example/missing:1"))))

    def waiting():
        pod = kube.kubectl("get", "pod", name, "-o", "json")
        if pod.returncode != 0:
            return None
        statuses = json.loads(pod.stdout).get("status", {}).get("containerStatuses") or []
        waiting = statuses and statuses[0]["state"].get("waiting")
        return waiting if waiting and waiting["reason"] != "ContainerCreating" else None

    state = kube.wait_for(waiting, what="the pod to wait")
    assert state["reason"] == "ErrImagePull"
    assert 'failed to pull and unpack image "registry.example/missing:1"' in state["message"]
    claim = kube.kubectl_json("get", "sandboxclaim", name)
    ready = claim["status"]["conditions"][0]
    assert (ready["type"], ready["status"], ready["reason"]) == ("Ready", "False", "DependenciesNotReady")
    result = kube.kubectl("wait", "--for=condition=Ready", f"sandboxclaim/{name}", "--timeout=2s")
    assert result.returncode == 1 and "timed out waiting for the condition" in result.stderr


def test_a_container_that_exits(kube, name, default_simulation):
    kube.configure(podRules=[{"name": name + "-*", "behavior": "exit", "exitCode": 3}])
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name + "-crash"},
           "spec": {"containers": [{"name": "main", "image": "busybox"}]}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))

    def waiting():
        statuses = kube.kubectl_json("get", "pod", name + "-crash").get("status", {}).get("containerStatuses") or []
        return statuses and statuses[0]["lastState"] and statuses[0]

    status = kube.wait_for(waiting, what="a container status")
    assert status["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert status["lastState"]["terminated"]["exitCode"] == 3
    pod["metadata"]["name"] = name + "-once"
    pod["spec"]["restartPolicy"] = "Never"
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))
    phase = kube.wait_for(lambda: kube.kubectl_json("get", "pod", name + "-once")["status"]["phase"] == "Failed",
                          what="the pod to fail")
    assert phase


def test_the_state_hook_sets_a_pods_state(kube, name, default_simulation):
    create_pod(kube, name)
    kube.set_pod_state(name, "ImagePullBackOff", message="Back-off pulling image \"busybox:1.36\"")
    pod = kube.kubectl_json("get", "pod", name)
    assert pod["status"]["phase"] == "Pending"
    assert pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "ImagePullBackOff"
    time.sleep(1)  # the simulation must not undo a pinned state
    assert kube.kubectl_json("get", "pod", name)["status"]["phase"] == "Pending"
    kube.set_pod_state(name, "terminated", exitCode=137, reason="OOMKilled")
    state = kube.kubectl_json("get", "pod", name)["status"]
    assert state["phase"] == "Failed"
    assert state["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 137
    assert state["containerStatuses"][0]["state"]["terminated"]["reason"] == "OOMKilled"
    kube.hook("POST", f"namespaces/default/pods/{name}/release")  # back to the rules: ready
    ok(kube.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=30s"))


def test_secrets_from_files_arrive_base64_encoded(kube, name, tmp_path):
    secret_file = tmp_path / "GITHUB_TOKEN"
    secret_file.write_bytes(b"ghp_example\n")
    ok(kube.kubectl("create", "secret", "generic", name, f"--from-file={secret_file}", "--from-literal=A=b"))
    data = kube.kubectl_json("get", "secret", name)["data"]
    assert base64.b64decode(data["GITHUB_TOKEN"]) == b"ghp_example\n" and base64.b64decode(data["A"]) == b"b"


def test_generate_name_conflicts_annotations_and_logs(kube, name):
    out = ok(kube.kubectl("create", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": name + "-"}})))
    assert out.startswith(f"configmap/{name}-") and len(out.split("/")[1].split()[0]) == len(name) + 6
    ok(kube.kubectl("create", "configmap", name))
    stale = kube.kubectl("get", "configmap", name, "-o", "json").stdout
    ok(kube.kubectl("annotate", "configmap", name, "note=changed"))
    result = kube.kubectl("replace", "-f", "-", input=stale)
    assert result.returncode == 1
    assert (f'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on '
            f'configmaps "{name}": the object has been modified') in result.stderr
    create_pod(kube, name)
    kube.hook("PUT", f"namespaces/default/pods/{name}/log?container=main", "line 1\nline 2\n")
    assert ok(kube.kubectl("logs", name)) == "line 1\nline 2\n"
    assert ok(kube.kubectl("logs", name, "--tail=1")) == "line 2\n"


def test_a_read_only_root_file_system_leaves_only_volumes_writable(kube, name):
    create_pod(kube, name, extra_spec=None)
    assert ok(kube.kubectl("exec", name, "--", "sh", "-c", "echo x > /tmp/t && cat /tmp/t")) == "x\n"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name + "-ro"},
           "spec": {"containers": [{"name": "main", "image": "busybox", "workingDir": "/workspace",
                                    "securityContext": {"readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False},
                                    "volumeMounts": [{"name": "ws", "mountPath": "/workspace"}]}],
                    "volumes": [{"name": "ws", "emptyDir": {}}]}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"pod/{name}-ro", "--timeout=60s"))
    assert kube.kubectl("exec", name + "-ro", "--", "sh", "-c", "echo x > /tmp/t").returncode != 0
    assert ok(kube.kubectl("exec", name + "-ro", "--", "sh", "-c", "echo y > w && cat w")) == "y\n"


def test_a_non_root_container_may_write_in_a_volume_but_not_set_its_top_directorys_metadata(kube, name):
    """As on a real node: processes run as the securityContext's user; an emptyDir or a claim's
    volume is root's, 0777, with fsGroup group-owned and setgid. A non-root user writes in it but
    may not chmod or utime its top directory (what `tar xf` of a `.` entry or `cp -a src/. dst/`
    does), only what it owns below it."""
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pvc)))
    volumes = [{"name": "workspace", "emptyDir": {}}, {"name": "data", "persistentVolumeClaim": {"claimName": name}}]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"securityContext": {"runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 2000},
                    "containers": [{"name": "main", "image": "busybox", "workingDir": "/workspace",
                                    "volumeMounts": [{"name": "workspace", "mountPath": "/workspace"},
                                                     {"name": "data", "mountPath": "/data"}]}],
                    "volumes": volumes}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s"))
    assert ok(kube.kubectl("exec", name, "--", "id", "-u")) == "1000\n"
    assert ok(kube.kubectl("exec", name, "--", "id", "-G")).split() == ["1000", "2000"]
    for top in ("/workspace", "/data"):
        listing = ok(kube.kubectl("exec", name, "--", "stat", "-c", "%u %g %a", top))
        assert listing == "0 2000 2777\n", (top, listing)
        ok(kube.kubectl("exec", name, "--", "sh", "-c", f"mkdir {top}/d && echo x > {top}/d/f && touch -d @0 {top}/d/f"))
        for refused in (["touch", "-d", "@0", top], ["chmod", "755", top]):
            res = kube.kubectl("exec", name, "--", *refused)
            assert res.returncode == 1 and "Operation not permitted" in res.stderr, (refused, res.stderr)
    # GNU tar restoring a `.` entry fails on the top directory's metadata (even with
    # --no-overwrite-dir, which still sets its mode); into a directory of its own it works.
    for flags in ("", "--no-overwrite-dir"):
        res = kube.kubectl("exec", name, "--", "sh", "-c", f"tar cf - -C /workspace . | tar xf - {flags} -C /data")
        assert res.returncode == 2 and "Operation not permitted" in res.stderr, res.stderr
    ok(kube.kubectl("exec", name, "--", "sh", "-c", "mkdir /data/in && tar cf - -C /workspace . | tar xf - -C /data/in"))
    # Root (no runAsUser) still may.
    create_pod(kube, name + "-root")
    assert ok(kube.kubectl("exec", name + "-root", "--", "sh", "-c", "id -u && touch -d @0 /workspace")) == "0\n"


def test_a_changed_config_map_reaches_a_running_pod_at_the_kubelets_next_sync(kube, name, default_simulation):
    """configMapRefreshSeconds: a pod sees a ConfigMap change only once that long passed since its
    volume was last written, as a kubelet refreshes mounted ConfigMaps at its periodic sync."""
    ok(kube.kubectl("create", "configmap", name, "--from-literal=v=one"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name + "-cm"},
           "spec": {"containers": [{"name": "main", "image": "busybox",
                                    "volumeMounts": [{"name": "cm", "mountPath": "/cm"}]}],
                    "volumes": [{"name": "cm", "configMap": {"name": name}}]}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"pod/{name}-cm", "--timeout=60s"))
    kube.configure(configMapRefreshSeconds=3)
    assert ok(kube.kubectl("exec", name + "-cm", "--", "cat", "/cm/v")) == "one"
    ok(kube.kubectl("patch", "configmap", name, "-p", '{"data": {"v": "two"}}'))
    assert ok(kube.kubectl("exec", name + "-cm", "--", "cat", "/cm/v")) == "one"  # not synced yet
    kube.wait_for(lambda: ok(kube.kubectl("exec", name + "-cm", "--", "cat", "/cm/v")) == "two",
                  what="the pod to see the change", timeout=30)


def test_exec_over_the_v4_channel_protocol(kube, name):
    """The channel framing and the error channel's Status, seen by a plain WebSocket client."""
    import asyncio
    import urllib.parse
    import websockets

    create_pod(kube, name)
    query = urllib.parse.urlencode([("command", "sh"), ("command", "-c"),
                                    ("command", "head -c 5; echo; echo oops >&2; exit 5"),
                                    ("stdin", "true"), ("stdout", "true"), ("stderr", "true")])
    url = f"wss://127.0.0.1:{kube.port}/api/v1/namespaces/default/pods/{name}/exec?{query}"
    context = ssl.create_default_context(cafile=os.path.join(kube.state_dir, "tls", "ca.crt"))

    async def run():
        received = {1: b"", 2: b"", 3: b""}
        async with websockets.connect(url, ssl=context, subprotocols=["v4.channel.k8s.io"],
                                      extra_headers={"Authorization": f"Bearer {kube.token}"}) as ws:
            assert ws.subprotocol == "v4.channel.k8s.io"
            await ws.send(b"\x00hello")
            async for message in ws:
                received[message[0]] += message[1:]
        return received

    received = asyncio.run(asyncio.wait_for(run(), 60))
    assert received[1] == b"hello\n" and received[2] == b"oops\n"
    status = json.loads(received[3])
    assert status["status"] == "Failure" and status["reason"] == "NonZeroExitCode"
    assert status["details"]["causes"] == [{"reason": "ExitCode", "message": "5"}]


def test_apply_removes_what_the_configuration_no_longer_has(kube, name):
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
               "spec": {"selector": {"app": name}, "ports": [{"name": "a", "port": 80}, {"name": "b", "port": 81}]}}
    ok(kube.kubectl("apply", "-f", "-", input=json.dumps(service)))
    got = kube.kubectl_json("get", "service", name)
    assert got["spec"]["clusterIP"] and [p["targetPort"] for p in got["spec"]["ports"]] == [80, 81]
    service["spec"]["ports"] = [{"name": "b", "port": 81}, {"name": "c", "port": 82}]
    ok(kube.kubectl("apply", "-f", "-", input=json.dumps(service)))
    assert [p["port"] for p in kube.kubectl_json("get", "service", name)["spec"]["ports"]] == [81, 82]


def test_forbid_rules_answer_403_as_rbac_does(kube, name, default_simulation):
    kube.configure(forbid=[{"verb": "create", "resource": "sandboxclaims"}, {"resource": "pods/exec"}])
    result = kube.kubectl("apply", "-f", "-", input=json.dumps(sandbox_objects(name)))
    assert result.returncode == 1
    assert (f'Error from server (Forbidden): error when creating "STDIN": sandboxclaims.{GROUP} is forbidden: '
            f'User "kube-api-test-user" cannot create resource "sandboxclaims" in API group "{GROUP}" in the '
            f'namespace "default"') in result.stderr
    create_pod(kube, name)
    result = kube.kubectl("exec", name, "--", "true")
    assert result.returncode == 1
    assert f'pods "{name}" is forbidden: User "kube-api-test-user" cannot create resource "pods/exec"' in result.stderr
    kube.configure(forbid=[{"verb": "create", "resource": "secrets",
                            "message": 'secrets "x" is forbidden: exceeded quota: q, requested: count/secrets=1'}])
    result = kube.kubectl("create", "secret", "generic", name, "--from-literal=a=b")
    assert result.returncode == 1 and "exceeded quota: q" in result.stderr
    kube.configure(forbid=[])
    ok(kube.kubectl("exec", name, "--", "true"))


def test_init_containers_run_for_real_before_the_pod_is_ready(kube, name):
    volume_mount = [{"name": "ws", "mountPath": "/workspace"}]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"initContainers": [{"name": "restore", "image": "busybox", "volumeMounts": volume_mount,
                                        "command": ["sh", "-c", "echo restored > /workspace/file; echo done"]}],
                    "containers": [{"name": "main", "image": "busybox", "workingDir": "/workspace",
                                    "volumeMounts": volume_mount}],
                    "volumes": [{"name": "ws", "emptyDir": {}}]}}
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))
    ok(kube.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s"))
    assert ok(kube.kubectl("exec", name, "--", "cat", "file")) == "restored\n"
    assert ok(kube.kubectl("logs", name, "-c", "restore")) == "done\n"
    init = kube.kubectl_json("get", "pod", name)["status"]["initContainerStatuses"][0]
    assert init["state"]["terminated"]["reason"] == "Completed"

    pod["metadata"]["name"] = name + "-bad"
    pod["spec"]["initContainers"][0]["command"] = ["sh", "-c", "echo cannot restore >&2; exit 3"]
    ok(kube.kubectl("create", "-f", "-", input=json.dumps(pod)))

    def failed_init():
        status = kube.kubectl_json("get", "pod", name + "-bad")["status"]
        inits = status.get("initContainerStatuses") or []
        return inits and inits[0].get("lastState", {}).get("terminated") and status

    status = kube.wait_for(failed_init, what="the init container to fail")
    assert status["phase"] == "Pending"
    assert status["initContainerStatuses"][0]["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert status["initContainerStatuses"][0]["lastState"]["terminated"]["exitCode"] == 3
    assert status["containerStatuses"][0]["state"]["waiting"]["reason"] == "PodInitializing"
    assert "Init:CrashLoopBackOff" in ok(kube.kubectl("get", "pod", name + "-bad"))
    assert ok(kube.kubectl("logs", name + "-bad", "-c", "restore")) == "cannot restore\n"
