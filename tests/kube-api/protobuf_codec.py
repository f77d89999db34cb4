"""Decoding of the Kubernetes protobuf request bodies kubectl's typed clients send
(`kubectl create configmap|secret|namespace|serviceaccount` and `kubectl auth can-i` use
`application/vnd.kubernetes.protobuf` and do not fall back to JSON on 415).

A body is the magic `k8s\\0` then a runtime.Unknown {typeMeta=1 {apiVersion=1, kind=2}, raw=2}
whose `raw` is the object's message from k8s.io/api generated.proto. Only the kinds above are
described here; their JSON form is returned. Answers are always JSON (kubectl accepts it)."""

from __future__ import annotations

import base64
import datetime

from api_errors import ApiError

MAGIC = b"k8s\x00"

# field number -> (json name, type). Types: string, bytes, int, bool, time, msg:<Name>,
# map:string, map:bytes, rep:string, rep:msg:<Name>.
MESSAGES = {
    "Unknown": {1: ("typeMeta", "msg:TypeMeta"), 2: ("raw", "bytes"), 3: ("contentEncoding", "string"),
                4: ("contentType", "string")},
    "TypeMeta": {1: ("apiVersion", "string"), 2: ("kind", "string")},
    "ObjectMeta": {1: ("name", "string"), 2: ("generateName", "string"), 3: ("namespace", "string"),
                   4: ("selfLink", "string"), 5: ("uid", "string"), 6: ("resourceVersion", "string"),
                   7: ("generation", "int"), 8: ("creationTimestamp", "time"), 9: ("deletionTimestamp", "time"),
                   10: ("deletionGracePeriodSeconds", "int"), 11: ("labels", "map:string"),
                   12: ("annotations", "map:string"), 13: ("ownerReferences", "rep:msg:OwnerReference"),
                   14: ("finalizers", "rep:string")},
    "OwnerReference": {1: ("kind", "string"), 3: ("name", "string"), 4: ("uid", "string"),
                       5: ("apiVersion", "string"), 6: ("controller", "bool"), 7: ("blockOwnerDeletion", "bool")},
    "Time": {1: ("seconds", "int"), 2: ("nanos", "int")},
    "ConfigMap": {1: ("metadata", "msg:ObjectMeta"), 2: ("data", "map:string"), 3: ("binaryData", "map:bytes"),
                  4: ("immutable", "bool")},
    "Secret": {1: ("metadata", "msg:ObjectMeta"), 2: ("data", "map:bytes"), 3: ("type", "string"),
               4: ("stringData", "map:string"), 5: ("immutable", "bool")},
    "Namespace": {1: ("metadata", "msg:ObjectMeta"), 2: ("spec", "msg:NamespaceSpec")},
    "NamespaceSpec": {1: ("finalizers", "rep:string")},
    "ServiceAccount": {1: ("metadata", "msg:ObjectMeta"), 2: ("secrets", "rep:msg:ObjectReference"),
                       3: ("imagePullSecrets", "rep:msg:LocalObjectReference"),
                       4: ("automountServiceAccountToken", "bool")},
    "ObjectReference": {1: ("kind", "string"), 2: ("namespace", "string"), 3: ("name", "string"),
                        4: ("uid", "string"), 5: ("apiVersion", "string"), 6: ("resourceVersion", "string"),
                        7: ("fieldPath", "string")},
    "LocalObjectReference": {1: ("name", "string")},
    # k8s.io/api/authorization/v1: what `kubectl auth can-i` sends.
    "SelfSubjectAccessReview": {1: ("metadata", "msg:ObjectMeta"), 2: ("spec", "msg:SelfSubjectAccessReviewSpec")},
    "SelfSubjectAccessReviewSpec": {1: ("resourceAttributes", "msg:ResourceAttributes")},
    "ResourceAttributes": {1: ("namespace", "string"), 2: ("verb", "string"), 3: ("group", "string"),
                           4: ("version", "string"), 5: ("resource", "string"), 6: ("subresource", "string"),
                           7: ("name", "string")},
}
KINDS = {("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "Namespace"), ("v1", "ServiceAccount"),
         ("authorization.k8s.io/v1", "SelfSubjectAccessReview")}


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result, shift = 0, 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes):
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            length, pos = _varint(data, pos)
            value = data[pos:pos + length]
            pos += length
        elif wire == 1:
            value = data[pos:pos + 8]
            pos += 8
        elif wire == 5:
            value = data[pos:pos + 4]
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def decode_message(name: str, data: bytes) -> dict:
    schema = MESSAGES[name]
    out: dict = {}
    for number, wire, value in _fields(data):
        if number not in schema:
            continue
        field, type_ = schema[number]
        if type_ == "string":
            out[field] = value.decode("utf-8")
        elif type_ == "bytes":
            out[field] = bytes(value)
        elif type_ == "int":
            out[field] = _signed(value)
        elif type_ == "bool":
            out[field] = bool(value)
        elif type_ == "time":
            t = decode_message("Time", value)
            seconds = t.get("seconds", 0)
            if seconds > 0:
                out[field] = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime(
                    "%Y-%m-%dT%H:%M:%SZ")
        elif type_.startswith("msg:"):
            out[field] = decode_message(type_[4:], value)
        elif type_.startswith("map:"):
            entry = {n: v for n, _, v in _fields(value)}
            key = entry.get(1, b"").decode("utf-8")
            raw = entry.get(2, b"")
            out.setdefault(field, {})[key] = (base64.b64encode(raw).decode() if type_ == "map:bytes"
                                              else raw.decode("utf-8"))
        elif type_ == "rep:string":
            out.setdefault(field, []).append(value.decode("utf-8"))
        elif type_.startswith("rep:msg:"):
            out.setdefault(field, []).append(decode_message(type_[8:], value))
    return out


def decode_object(body: bytes) -> dict:
    """The JSON form of a protobuf-encoded object, or a 415 for kinds not described here."""
    if not body.startswith(MAGIC):
        raise ApiError(400, "BadRequest", "protobuf body without the k8s magic prefix")
    try:
        unknown = decode_message("Unknown", body[len(MAGIC):])
        type_meta = unknown.get("typeMeta", {})
        api_version, kind = type_meta.get("apiVersion", ""), type_meta.get("kind", "")
        if (api_version, kind) not in KINDS:
            raise ApiError(415, "UnsupportedMediaType",
                           f"the test API server cannot decode {kind} ({api_version}) from protobuf; send JSON")
        obj = decode_message(kind, unknown.get("raw", b""))
    except (IndexError, ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, "BadRequest", f"invalid protobuf body: {exc}") from None
    # Go's protobuf marshalling writes zero values; JSON clients omit them.
    meta = {k: v for k, v in obj.get("metadata", {}).items() if v not in ("", 0)}
    obj = {k: v for k, v in obj.items() if v != ""}
    obj["metadata"] = meta
    obj["apiVersion"] = api_version
    obj["kind"] = kind
    return obj
