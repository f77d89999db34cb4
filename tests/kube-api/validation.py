"""Admission of objects: unknown fields (per `fieldValidation`), schema validation, and the
semantic checks of the real API server that the adapter can trip over (names, labels, pod
containers, service ports).

Custom resources are checked against their CRD `openAPIV3Schema`. Built-in kinds are checked
against schemas assembled here; the PodSpec, NetworkPolicy rule and PVC spec schemas are taken
from the agent-sandbox CRDs (which embed them, generated from k8s.io/api), so unknown fields in
a Pod are caught like the real server catches them."""

from __future__ import annotations

import copy
import re

import openapi_validate
from api_errors import FieldError, bad_request, invalid, strict_decoding
from resources import Registry, ResourceType

STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
LOOSE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")

MSG_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
MSG_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
MSG_DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
               "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
               "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
MSG_LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                   "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
MSG_QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                 "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                 "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def _obj(properties: dict, required: list[str] | None = None) -> dict:
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _root(properties: dict, required: list[str] | None = None) -> dict:
    base = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"}}
    base.update(properties)
    return _obj(base, required)


def _dig(schema: dict | None, *path: str) -> dict | None:
    node = schema
    for part in path:
        if node is None:
            return None
        node = node.get("properties", {}).get(part) if part != "[]" else node.get("items")
    return node


class Admission:
    def __init__(self, registry: Registry):
        self.registry = registry
        self.schemas: dict[tuple[str, str], dict] = {}
        template = registry.by_plural("extensions.agents.x-k8s.io", "sandboxtemplates")
        template_spec = _dig(template.schema, "spec") if template else None
        pod_spec = copy.deepcopy(_dig(template_spec, "podTemplate", "spec")) if template_spec else None
        net = _dig(template_spec, "networkPolicy") if template_spec else None
        selector = _dig(net, "egress", "[]", "to", "[]", "podSelector") if net else None
        pvc_spec = _dig(template_spec, "volumeClaimTemplates", "[]", "spec") if template_spec else None
        if pod_spec is not None:
            pod_spec.setdefault("required", ["containers"])
        self.schemas[("", "pods")] = _root({"spec": pod_spec or LOOSE, "status": LOOSE}, ["spec"])
        self.schemas[("", "configmaps")] = _root({
            "data": STRING_MAP, "binaryData": STRING_MAP, "immutable": {"type": "boolean"}})
        self.schemas[("", "secrets")] = _root({
            "data": STRING_MAP, "stringData": STRING_MAP, "type": {"type": "string"}, "immutable": {"type": "boolean"}})
        port = _obj({"name": {"type": "string"}, "protocol": {"type": "string"}, "appProtocol": {"type": "string"},
                     "port": {"type": "integer", "format": "int32"},
                     "targetPort": {"x-kubernetes-int-or-string": True},
                     "nodePort": {"type": "integer", "format": "int32"}}, ["port"])
        service_spec = _obj({
            "type": {"type": "string"}, "ports": {"type": "array", "items": port}, "selector": STRING_MAP,
            "clusterIP": {"type": "string"}, "clusterIPs": {"type": "array", "items": {"type": "string"}},
            "ipFamilies": {"type": "array", "items": {"type": "string"}}, "ipFamilyPolicy": {"type": "string"},
            "sessionAffinity": {"type": "string"}, "sessionAffinityConfig": LOOSE,
            "externalName": {"type": "string"}, "externalIPs": {"type": "array", "items": {"type": "string"}},
            "externalTrafficPolicy": {"type": "string"}, "internalTrafficPolicy": {"type": "string"},
            "publishNotReadyAddresses": {"type": "boolean"}, "loadBalancerIP": {"type": "string"},
            "loadBalancerSourceRanges": {"type": "array", "items": {"type": "string"}},
            "loadBalancerClass": {"type": "string"}, "allocateLoadBalancerNodePorts": {"type": "boolean"},
            "healthCheckNodePort": {"type": "integer"}, "trafficDistribution": {"type": "string"},
        })
        self.schemas[("", "services")] = _root({"spec": service_spec, "status": LOOSE})
        self.schemas[("", "persistentvolumeclaims")] = _root({"spec": pvc_spec or LOOSE, "status": LOOSE})
        self.schemas[("", "namespaces")] = _root({"spec": LOOSE, "status": LOOSE})
        self.schemas[("", "serviceaccounts")] = _root({
            "secrets": {"type": "array", "items": LOOSE}, "imagePullSecrets": {"type": "array", "items": LOOSE},
            "automountServiceAccountToken": {"type": "boolean"}})
        self.schemas[("", "events")] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        netpol_spec = _obj({
            "podSelector": selector or LOOSE,
            "policyTypes": {"type": "array", "items": {"type": "string", "enum": ["Ingress", "Egress"]}},
            "ingress": _dig(net, "ingress") or {"type": "array", "items": LOOSE},
            "egress": _dig(net, "egress") or {"type": "array", "items": LOOSE},
        })
        self.schemas[("networking.k8s.io", "networkpolicies")] = _root({"spec": netpol_spec})
        for t in registry.types:
            if t.schema is not None:
                self.schemas[t.key] = t.schema

    def schema_for(self, rt: ResourceType) -> dict:
        return self.schemas.get(rt.key, LOOSE)

    def admit(self, rt: ResourceType, obj: dict, field_validation: str | None) -> tuple[dict, list[str]]:
        """Returns (pruned and defaulted object, warnings) or raises the API error."""
        schema = self.schema_for(rt)
        pruned, unknown, errors = openapi_validate.check(schema, obj)
        warnings = []
        mode = (field_validation or "Warn").lower()
        if unknown:
            if mode == "strict":
                raise strict_decoding(rt.kind, rt.version, unknown)
            if mode != "ignore":
                warnings = [f'unknown field "{p}"' for p in unknown]
        name = pruned.get("metadata", {}).get("name", "")
        if errors and not rt.is_custom:
            type_errors = [e for e in errors if "in body must be of type" in e.detail]
            if type_errors:
                e = type_errors[0]
                raise bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                  f'json: cannot unmarshal {e.value} into Go struct field {e.field} of type '
                                  f'{e.detail.rsplit("of type ", 1)[1].split(":")[0]}')
            # Quantities and base64 are decoded into Go types before validation: a bad one is a
            # decoding error (400), not an invalid field (422).
            if any(e.detail.endswith(f"should match '{QUANTITY_PATTERN}'") for e in errors):
                raise bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: quantities '
                                  "must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        if not rt.is_custom:
            for field in ("data", "binaryData") if rt.plural == "secrets" else ("binaryData",):
                for value in (pruned.get(field) or {}).values():
                    problem = base64_problem(value)
                    if problem:
                        raise bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: '
                                          f"{problem}")
        errors += metadata_errors(rt, pruned) + semantic_errors(rt, pruned)
        if errors:
            raise invalid(rt.group, rt.kind, name, errors)
        return pruned, warnings


QUANTITY_PATTERN = ("^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?"
                    "(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$")


def base64_problem(value) -> str | None:
    """Go's encoding/base64 error for a value that is not standard padded base64."""
    if not isinstance(value, str):
        return None
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    text = value.replace("\r", "").replace("\n", "")
    for i, ch in enumerate(text):
        if ch == "=":
            if text[i:] not in ("=", "==") or len(text) % 4:
                return f"illegal base64 data at input byte {i}"
            return None
        if ch not in alphabet:
            return f"illegal base64 data at input byte {i}"
    if len(text) % 4:
        return f"illegal base64 data at input byte {len(text) // 4 * 4}"
    return None


def metadata_errors(rt: ResourceType, obj: dict) -> list[FieldError]:
    meta = obj.get("metadata") or {}
    errors = []
    name = meta.get("name")
    if not name:
        errors.append(FieldError("FieldValueRequired", "metadata.name", None, "name or generateName is required"))
    elif rt.plural == "services":
        if not DNS1035_LABEL.match(name):
            errors.append(FieldError("FieldValueInvalid", "metadata.name", name, MSG_DNS1035))
        elif len(name) > 63:
            errors.append(FieldError("FieldValueInvalid", "metadata.name", name, "must be no more than 63 characters"))
    elif rt.plural == "namespaces":
        if not DNS1123_LABEL.match(name):
            errors.append(FieldError("FieldValueInvalid", "metadata.name", name, MSG_LABEL))
    else:
        if not DNS1123_SUBDOMAIN.match(name):
            errors.append(FieldError("FieldValueInvalid", "metadata.name", name, MSG_SUBDOMAIN))
        elif len(name) > 253:
            errors.append(FieldError("FieldValueInvalid", "metadata.name", name, "must be no more than 253 characters"))
    errors += label_errors(meta.get("labels"), "metadata.labels")
    annotations = meta.get("annotations") or {}
    if not isinstance(annotations, dict):
        errors.append(FieldError("FieldValueInvalid", "metadata.annotations", annotations, "must be a map"))
    else:
        total = sum(len(k) + len(str(v)) for k, v in annotations.items())
        if total > 256 * 1024:
            errors.append(FieldError("FieldValueTooLong", "metadata.annotations", "", "may not be more than 262144 bytes"))
    return errors


def label_errors(labels, path: str) -> list[FieldError]:
    errors = []
    if labels is None:
        return errors
    if not isinstance(labels, dict):
        return [FieldError("FieldValueInvalid", path, labels, "must be a map of strings")]
    for key, value in labels.items():
        errors += qualified_name_errors(key, path)
        if not isinstance(value, str):
            errors.append(FieldError("FieldValueInvalid", path, value, "must be a string"))
        elif len(value) > 63:
            errors.append(FieldError("FieldValueInvalid", path, value, "must be no more than 63 characters"))
        elif not LABEL_VALUE.match(value):
            errors.append(FieldError("FieldValueInvalid", path, value, MSG_LABEL_VALUE))
    return errors


def qualified_name_errors(key: str, path: str) -> list[FieldError]:
    prefix, _, name = key.rpartition("/")
    errors = []
    if prefix and (not DNS1123_SUBDOMAIN.match(prefix) or len(prefix) > 253):
        errors.append(FieldError("FieldValueInvalid", path, key, "prefix part " + MSG_SUBDOMAIN))
    if not name or len(name) > 63 or not QUALIFIED_NAME.match(name):
        errors.append(FieldError("FieldValueInvalid", path, key, MSG_QUALIFIED))
    return errors


def semantic_errors(rt: ResourceType, obj: dict) -> list[FieldError]:
    if rt.key == ("", "pods"):
        return pod_spec_errors(obj.get("spec") or {}, "spec")
    if rt.key == ("", "configmaps"):
        return [FieldError("FieldValueInvalid", "data", k,
                           "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                           "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                           "'[-._a-zA-Z0-9]+')")
                for k in list((obj.get("data") or {})) + list((obj.get("binaryData") or {})) if not CONFIG_KEY.match(k)]
    if rt.key == ("", "secrets"):
        return [FieldError("FieldValueInvalid", "data", k,
                           "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                           "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
                           "'[-._a-zA-Z0-9]+')")
                for k in list((obj.get("data") or {})) + list((obj.get("stringData") or {})) if not CONFIG_KEY.match(k)]
    if rt.key == ("", "services"):
        errors = []
        for i, p in enumerate((obj.get("spec") or {}).get("ports") or []):
            port = p.get("port")
            if isinstance(port, int) and not 1 <= port <= 65535:
                errors.append(FieldError("FieldValueInvalid", f"spec.ports[{i}].port", port,
                                         "must be between 1 and 65535, inclusive"))
        return errors
    if rt.is_custom:
        spec = obj.get("spec") or {}
        pod_template = spec.get("podTemplate")
        if isinstance(pod_template, dict) and isinstance(pod_template.get("metadata"), dict):
            return label_errors(pod_template["metadata"].get("labels"), "spec.podTemplate.metadata.labels")
    return []


def pod_spec_errors(spec: dict, path: str) -> list[FieldError]:
    errors = []
    containers = spec.get("containers")
    if not containers:
        errors.append(FieldError("FieldValueRequired", f"{path}.containers", None))
        return errors
    names = set()
    for i, c in enumerate(containers):
        cpath = f"{path}.containers[{i}]"
        name = c.get("name")
        if not name:
            errors.append(FieldError("FieldValueRequired", f"{cpath}.name", None))
        elif not DNS1123_LABEL.match(name):
            errors.append(FieldError("FieldValueInvalid", f"{cpath}.name", name, MSG_LABEL))
        elif name in names:
            errors.append(FieldError("FieldValueDuplicate", f"{cpath}.name", name))
        names.add(name)
        if not c.get("image"):
            errors.append(FieldError("FieldValueRequired", f"{cpath}.image", None))
    volumes = {v.get("name") for v in spec.get("volumes") or []}
    for i, c in enumerate(containers):
        for j, m in enumerate(c.get("volumeMounts") or []):
            if m.get("name") not in volumes:
                errors.append(FieldError("FieldValueNotFound", f"{path}.containers[{i}].volumeMounts[{j}].name",
                                         m.get("name")))
    return errors
