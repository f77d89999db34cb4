"""Unit tests of the server's pure pieces: selectors, patch formats, printer-column paths,
protobuf decoding, base64 checks."""

import base64
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import patching  # noqa: E402
import protobuf_codec  # noqa: E402
import tables  # noqa: E402
import validation  # noqa: E402
from api_errors import ApiError  # noqa: E402
from label_selectors import FieldSelector, LabelSelector  # noqa: E402


@pytest.mark.parametrize("selector,labels,expected", [
    ("a=b", {"a": "b"}, True),
    ("a==b", {"a": "c"}, False),
    ("a!=b", {}, True),
    ("a!=b", {"a": "b"}, False),
    ("a in (x, y)", {"a": "y"}, True),
    ("a in (x,y)", {}, False),
    ("a notin (x,y)", {}, True),
    ("a notin (x,y)", {"a": "x"}, False),
    ("a", {"a": ""}, True),
    ("!a", {"a": ""}, False),
    ("osf.sandbox.id=abc,app.kubernetes.io/managed-by=sandbox-kubernetes",
     {"osf.sandbox.id": "abc", "app.kubernetes.io/managed-by": "sandbox-kubernetes"}, True),
    ("", {"anything": "x"}, True),
])
def test_label_selectors(selector, labels, expected):
    assert LabelSelector.parse(selector).matches(labels) is expected


def test_a_bad_label_selector_is_a_bad_request():
    with pytest.raises(ApiError) as err:
        LabelSelector.parse("a=b,c d")
    assert err.value.code == 400


def test_field_selectors():
    obj = {"metadata": {"name": "x", "namespace": "n"}, "status": {"phase": "Running"}}
    assert FieldSelector.parse("metadata.name=x,status.phase!=Pending").matches(obj)
    assert not FieldSelector.parse("metadata.namespace==m").matches(obj)
    assert FieldSelector.parse("metadata.name=x").name() == "x"


def test_a_field_the_resource_cannot_select_on_is_a_bad_request():
    FieldSelector.parse("status.phase!=Running,metadata.name=x").check_supported("", "pods")
    FieldSelector.parse("involvedObject.kind=Pod,involvedObject.name=x").check_supported("", "events")
    for group, plural, fields in (("", "configmaps", "status.phase=Running"),
                                  ("extensions.agents.x-k8s.io", "sandboxclaims", "status.phase=Ready"),
                                  ("", "pods", "spec.containers=x")):
        with pytest.raises(ApiError) as err:
            FieldSelector.parse(fields).check_supported(group, plural)
        assert err.value.code == 400 and "field label not supported" in str(err.value.message)


def test_merge_patch_follows_rfc_7386():
    current = {"a": {"b": 1, "c": 2}, "l": [1, 2]}
    assert patching.merge_patch(current, {"a": {"b": None, "d": 3}, "l": [3]}) == {"a": {"c": 2, "d": 3}, "l": [3]}


def test_json_patch_operations():
    doc = {"data": {"a": "1"}, "items": [1, 2]}
    ops = [{"op": "add", "path": "/data/b", "value": "2"}, {"op": "remove", "path": "/data/a"},
           {"op": "replace", "path": "/items/0", "value": 9}, {"op": "add", "path": "/items/-", "value": 3},
           {"op": "copy", "from": "/data/b", "path": "/data/c"}, {"op": "move", "from": "/data/c", "path": "/d"},
           {"op": "test", "path": "/d", "value": "2"}]
    assert patching.json_patch(doc, ops) == {"data": {"b": "2"}, "items": [9, 2, 3], "d": "2"}
    with pytest.raises(ApiError):
        patching.json_patch(doc, [{"op": "test", "path": "/data/a", "value": "x"}])
    with pytest.raises(ApiError):
        patching.json_patch(doc, [{"op": "remove", "path": "/nope"}])


def test_strategic_merge_patch_merges_lists_by_key_and_honours_directives():
    pod = {"spec": {"containers": [{"name": "a", "image": "1", "env": [{"name": "X", "value": "1"},
                                                                      {"name": "Y", "value": "2"}]},
                                   {"name": "b", "image": "1"}]},
           "metadata": {"finalizers": ["f1"], "labels": {"k": "v", "drop": "x"}}}
    patch = {"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}],
                      "containers": [{"name": "a", "image": "2", "$setElementOrder/env": [{"name": "X"}],
                                      "env": [{"$patch": "delete", "name": "Y"}]}]},
             "metadata": {"finalizers": ["f2"], "labels": {"drop": None}}}
    out = patching.strategic_merge_patch(pod, patch)
    assert [c["name"] for c in out["spec"]["containers"]] == ["b", "a"]
    assert out["spec"]["containers"][1] == {"name": "a", "image": "2", "env": [{"name": "X", "value": "1"}]}
    assert out["metadata"] == {"finalizers": ["f1", "f2"], "labels": {"k": "v"}}
    assert patching.strategic_merge_patch({"a": {"x": 1, "y": 2}}, {"a": {"$patch": "replace", "z": 3}}) == {"a": {"z": 3}}
    assert patching.strategic_merge_patch({"spec": {"ports": [{"port": 1}]}},
                                          {"spec": {"ports": [{"port": 2}]}}) == {"spec": {"ports": [{"port": 2}]}}


def test_apply_patch_dispatches_on_the_media_type():
    current = {"data": {"a": "1"}}
    assert patching.apply_patch("application/merge-patch+json", current, b'{"data":{"b":"2"}}') == \
        {"data": {"a": "1", "b": "2"}}
    assert patching.apply_patch("application/apply-patch+yaml", current, b"data:\n  c: '3'\n") == \
        {"data": {"a": "1", "c": "3"}}
    with pytest.raises(ApiError) as err:
        patching.apply_patch("text/plain", current, b"{}")
    assert err.value.code == 415


def test_printer_column_paths():
    obj = {"status": {"conditions": [{"type": "Other", "status": "False"}, {"type": "Ready", "status": "True"}],
                      "sandbox": {"name": "s"}}}
    assert tables.json_path(obj, ".status.conditions[?(@.type=='Ready')].status") == "True"
    assert tables.json_path(obj, ".status.sandbox.name") == "s"
    assert tables.json_path(obj, ".status.conditions[0].type") == "Other"
    assert tables.json_path(obj, ".status.missing") is None
    assert tables.human_duration(59) == "59s" and tables.human_duration(600) == "10m"


def _field(number: int, payload: bytes) -> bytes:
    return bytes([(number << 3) | 2, len(payload)]) + payload


def test_protobuf_secret_decodes_to_its_json_form():
    meta = _field(1, b"s1") + _field(3, b"default") + _field(11, _field(1, b"app") + _field(2, b"x"))
    secret = _field(1, meta) + _field(2, _field(1, b"TOKEN") + _field(2, b"s3cret")) + _field(3, b"Opaque")
    unknown = _field(1, _field(1, b"v1") + _field(2, b"Secret")) + _field(2, secret)
    obj = protobuf_codec.decode_object(protobuf_codec.MAGIC + unknown)
    assert obj == {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                   "metadata": {"name": "s1", "namespace": "default", "labels": {"app": "x"}},
                   "data": {"TOKEN": base64.b64encode(b"s3cret").decode()}}
    with pytest.raises(ApiError) as err:
        protobuf_codec.decode_object(protobuf_codec.MAGIC + _field(1, _field(1, b"apps/v1") + _field(2, b"Deployment")))
    assert err.value.code == 415


def test_base64_problems_are_reported_as_go_does():
    assert validation.base64_problem(base64.b64encode(b"hello").decode()) is None
    assert validation.base64_problem("not base64!") == "illegal base64 data at input byte 3"


# -- Pod Security admission (pod_security.py) ------------------------------------------------------

import pod_security  # noqa: E402

_RESTRICTED_POD = {"metadata": {"name": "p"}, "spec": {
    "securityContext": {"runAsNonRoot": True, "runAsUser": 1000, "seccompProfile": {"type": "RuntimeDefault"}},
    "volumes": [{"name": "w", "emptyDir": {}}, {"name": "c", "configMap": {"name": "x"}}],
    "containers": [{"name": "c", "securityContext": {"allowPrivilegeEscalation": False,
                                                     "capabilities": {"drop": ["ALL"]}}}]}}


def _with(path, value):
    import copy
    pod = copy.deepcopy(_RESTRICTED_POD)
    node = pod
    for key in path[:-1]:
        node = node[key] if not isinstance(key, int) else node[key]
    node[path[-1]] = value
    return pod


@pytest.mark.parametrize("path,value,level,reason", [
    (("spec", "hostNetwork"), True, "baseline", "host namespaces"),
    (("spec", "containers", 0, "securityContext", "privileged"), True, "baseline", "privileged"),
    (("spec", "containers", 0, "securityContext", "capabilities"), {"add": ["SYS_ADMIN"], "drop": ["ALL"]},
     "baseline", "non-default capabilities"),
    (("spec", "volumes"), [{"name": "h", "hostPath": {"path": "/"}}], "baseline", "hostPath volumes"),
    (("spec", "containers", 0, "ports"), [{"containerPort": 80, "hostPort": 80}], "baseline", "hostPort"),
    (("spec", "containers", 0, "securityContext", "procMount"), "Unmasked", "baseline", "procMount"),
    (("spec", "securityContext", "seccompProfile"), {"type": "Unconfined"}, "baseline", "seccompProfile"),
    (("spec", "securityContext", "sysctls"), [{"name": "kernel.msgmax", "value": "1"}], "baseline",
     "forbidden sysctls"),
    (("spec", "containers", 0, "securityContext", "appArmorProfile"), {"type": "Unconfined"}, "baseline",
     "forbidden AppArmor profile"),
    (("spec", "containers", 0, "securityContext", "seLinuxOptions"), {"type": "spc_t"}, "baseline",
     "seLinuxOptions"),
    (("spec", "volumes"), [{"name": "n", "nfs": {"server": "x", "path": "/"}}], "restricted",
     "restricted volume types"),
    (("spec", "containers", 0, "securityContext", "allowPrivilegeEscalation"), True, "restricted",
     "allowPrivilegeEscalation != false"),
    (("spec", "containers", 0, "securityContext", "capabilities"), {"drop": ["ALL"], "add": ["CHOWN"]},
     "restricted", "unrestricted capabilities"),
    (("spec", "securityContext", "runAsNonRoot"), False, "restricted", "runAsNonRoot != true"),
    (("spec", "securityContext", "runAsUser"), 0, "restricted", "runAsUser=0"),
    (("spec", "securityContext", "seccompProfile"), None, "restricted", "seccompProfile"),
])
def test_pod_security_controls(path, value, level, reason):
    assert pod_security.violations(_RESTRICTED_POD, "restricted") == []
    pod = _with(path, value)
    found = pod_security.violations(pod, level)
    assert any(r.startswith(reason) for r in found), found
    assert pod_security.violations(pod, "privileged") == []
    if level == "restricted":
        assert not any(r.startswith(reason) for r in pod_security.violations(pod, "baseline"))


def test_pod_security_level_from_namespace_labels():
    ns = lambda labels: {"metadata": {"name": "n", "labels": labels}}  # noqa: E731
    assert pod_security.enforced_level(ns({})) == "privileged"
    assert pod_security.enforced_level(ns({pod_security.ENFORCE_LABEL: "baseline"})) == "baseline"
    assert pod_security.enforced_level(ns({pod_security.ENFORCE_LABEL: "nonsense"})) == "restricted"
