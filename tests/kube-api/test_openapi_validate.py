"""Unit tests of the structural-schema validator (prune, default, validate)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import openapi_validate as ov  # noqa: E402
from resources import load_crds  # noqa: E402

SCHEMA = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["ref"],
            "properties": {
                "ref": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
                "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1},
                "mode": {"type": "string", "enum": ["A", "B"], "default": "A"},
                "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "name": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$"},
                "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                                     "v": {"type": "string"}}}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                             "x-kubernetes-preserve-unknown-fields": True},
                "when": {"type": "string", "format": "date-time"},
                "maybe": {"type": "string", "nullable": True},
            },
        },
    },
}


def check(spec, **top):
    obj = {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "n"}, "spec": spec, **top}
    return ov.check(SCHEMA, obj)


def messages(errors):
    return [str(e) for e in errors]


def test_valid_object_gets_defaults_and_keeps_explicit_zero():
    obj, unknown, errors = check({"ref": {"name": "a"}, "replicas": 0})
    assert errors == [] and unknown == []
    assert obj["spec"]["replicas"] == 0
    assert obj["spec"]["mode"] == "A"
    obj, _, _ = check({"ref": {"name": "a"}})
    assert obj["spec"]["replicas"] == 1


def test_required_fields_are_reported_with_their_path():
    _, _, errors = check({"ref": {}})
    assert messages(errors) == ["spec.ref.name: Required value"]
    _, _, errors = check({})
    assert messages(errors) == ["spec.ref: Required value"]


def test_wrong_types_read_like_the_api_server():
    _, _, errors = check({"ref": {"name": "a"}, "replicas": "two"})
    assert messages(errors) == [
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']
    _, _, errors = check({"ref": {"name": 5}})
    assert messages(errors) == ['spec.ref.name: Invalid value: "integer": spec.ref.name in body must be of type string: "integer"']


def test_unknown_fields_are_pruned_and_reported_including_list_items_and_metadata():
    obj, unknown, errors = check({"ref": {"name": "a", "extra": 1}, "items": [{"name": "x", "bad": 2}], "nope": True},
                                 status={"x": 1})
    assert sorted(unknown) == ["spec.items[0].bad", "spec.nope", "spec.ref.extra", "status"]
    assert "extra" not in obj["spec"]["ref"] and "nope" not in obj["spec"] and "status" not in obj
    assert errors == []
    _, unknown, _ = ov.check(SCHEMA, {"metadata": {"name": "n", "colour": "red"}, "spec": {"ref": {"name": "a"}}})
    assert unknown == ["metadata.colour"]


def test_preserve_unknown_fields_and_additional_properties_keep_fields():
    obj, unknown, errors = check({"ref": {"name": "a"}, "free": {"anything": {"goes": 1}}, "labels": {"k": "v"}})
    assert unknown == [] and errors == []
    assert obj["spec"]["free"] == {"anything": {"goes": 1}}
    _, _, errors = check({"ref": {"name": "a"}, "labels": {"k": 1}})
    assert messages(errors) == ['spec.labels.k: Invalid value: "integer": spec.labels.k in body must be of type string: "integer"']


def test_enum_pattern_length_and_minimum():
    _, _, errors = check({"ref": {"name": "a"}, "mode": "C", "name": "ABCDEFG", "replicas": -1})
    text = messages(errors)
    assert 'spec.mode: Unsupported value: "C": supported values: "A", "B"' in text
    assert "spec.name: Too long: may not be more than 5 bytes" in text
    assert "spec.name: Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$'" in text
    assert "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0" in text


def test_int_or_string():
    for port in (8080, "http"):
        assert check({"ref": {"name": "a"}, "port": port})[2] == []
    _, _, errors = check({"ref": {"name": "a"}, "port": True})
    assert len(errors) == 1 and errors[0].field == "spec.port"


def test_list_map_keys_must_be_unique():
    _, _, errors = check({"ref": {"name": "a"}, "items": [{"name": "x"}, {"name": "x", "v": "2"}]})
    assert messages(errors) == ['spec.items[1]: Duplicate value: {"name":"x"}']


def test_embedded_resource_needs_apiversion_and_kind():
    _, _, errors = check({"ref": {"name": "a"}, "embedded": {"metadata": {"name": "x"}}})
    assert sorted(e.field for e in errors) == ["spec.embedded.apiVersion", "spec.embedded.kind"]
    obj, unknown, errors = check({"ref": {"name": "a"},
                                  "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "bad": 1},
                                               "spec": {"free": 1}}})
    assert errors == [] and unknown == ["spec.embedded.metadata.bad"]
    assert obj["spec"]["embedded"]["spec"] == {"free": 1}


def test_nulls_are_dropped_unless_nullable_and_dates_are_checked():
    obj, _, errors = check({"ref": {"name": "a"}, "mode": None, "maybe": None})
    assert errors == [] and obj["spec"]["mode"] == "A" and obj["spec"]["maybe"] is None
    assert check({"ref": {"name": "a"}, "when": "2026-01-02T03:04:05Z"})[2] == []
    assert check({"ref": {"name": "a"}, "when": "yesterday"})[2][0].field == "spec.when"


def test_agent_sandbox_claim_schema():
    types = {t.kind: t for t in load_crds(os.path.join(HERE, "crds"))}
    claim = types["SandboxClaim"].schema
    good = {"apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxClaim",
            "metadata": {"name": "c"}, "spec": {"warmPoolRef": {"name": "p"}}}
    obj, unknown, errors = ov.check(claim, good)
    assert (unknown, errors) == ([], [])
    _, _, errors = ov.check(claim, {**good, "spec": {}})
    assert messages(errors) == ["spec.warmPoolRef: Required value"]
    _, unknown, _ = ov.check(claim, {**good, "spec": {"warmPoolRef": {"name": "p"}, "sandboxTemplateRef": {"name": "t"}}})
    assert unknown == ["spec.sandboxTemplateRef"]
    pool = types["SandboxWarmPool"].schema
    obj, _, errors = ov.check(pool, {"apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxWarmPool",
                                     "metadata": {"name": "p"}, "spec": {"sandboxTemplateRef": {"name": "t"}}})
    assert errors == [] and obj["spec"]["replicas"] == 1
    template = types["SandboxTemplate"].schema
    _, unknown, errors = ov.check(template, {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxTemplate", "metadata": {"name": "t"},
        "spec": {"podTemplate": {"metadata": {"labels": {"a": "b"}},
                                 "spec": {"containers": [{"name": "c", "image": "i", "imagePullPolcy": "Always",
                                                          "resources": {"limits": {"cpu": 2, "memory": "4Gi"}}}]}}}})
    assert errors == [] and unknown == ["spec.podTemplate.spec.containers[0].imagePullPolcy"]
