"""Discovery documents: /version, /api, /apis (legacy and aggregated v2), group versions,
and the OpenAPI v3 documents kubectl reads to learn that the server does field validation."""

from __future__ import annotations

import hashlib
import json

from resources import Registry, ResourceType

VERSION_INFO = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0-osf-test",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2026-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}

AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"

SUBRESOURCE_VERBS = {
    "status": ["get", "patch", "update"],
    "scale": ["get", "patch", "update"],
    "exec": ["create", "get"],
    "log": ["get"],
}
SUBRESOURCE_KIND = {"exec": ("", "v1", "PodExecOptions"), "scale": ("autoscaling", "v1", "Scale")}


def wants_aggregated(accept: str) -> str | None:
    """The aggregated discovery media type the client asked for, if any."""
    for part in accept.split(","):
        media = part.strip().replace(" ", "")
        if "as=APIGroupDiscoveryList" in media and "g=apidiscovery.k8s.io" in media:
            if "v=v2beta1" in media:
                return AGGREGATED_V2BETA1
            if "v=v2" in media:
                return AGGREGATED_V2
    return None


def api_versions(server_address: str) -> dict:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def _group_doc(group: str, versions: list[str]) -> dict:
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": gvs, "preferredVersion": gvs[0]}


def api_group_list(registry: Registry) -> dict:
    return {"kind": "APIGroupList", "apiVersion": "v1",
            "groups": [_group_doc(g, vs) for g, vs in registry.groups() if g]}


def api_group(registry: Registry, group: str) -> dict | None:
    for g, vs in registry.groups():
        if g == group and g:
            return {"kind": "APIGroup", "apiVersion": "v1", **_group_doc(g, vs)}
    return None


def api_resource_list(registry: Registry, group: str, version: str) -> dict | None:
    types = registry.in_group_version(group, version)
    if not types:
        return None
    resources = []
    for t in types:
        entry = {"name": t.plural, "singularName": t.singular, "namespaced": t.namespaced, "kind": t.kind,
                 "verbs": t.verbs}
        if t.short_names:
            entry["shortNames"] = t.short_names
        if t.categories:
            entry["categories"] = t.categories
        entry["storageVersionHash"] = hashlib.sha256(f"{t.group}/{t.version}/{t.kind}".encode()).hexdigest()[:11]
        resources.append(entry)
        for sub in t.subresources:
            group_, version_, kind = SUBRESOURCE_KIND.get(sub, (t.group, t.version, t.kind))
            sub_entry = {"name": f"{t.plural}/{sub}", "singularName": "", "namespaced": t.namespaced, "kind": kind,
                         "verbs": SUBRESOURCE_VERBS[sub]}
            if sub in SUBRESOURCE_KIND:
                sub_entry["group"] = group_
                sub_entry["version"] = version_
            resources.append(sub_entry)
    gv = version if not group else f"{group}/{version}"
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}


def _discovery_resource(t: ResourceType) -> dict:
    entry = {
        "resource": t.plural,
        "responseKind": {"group": t.group, "version": t.version, "kind": t.kind},
        "scope": "Namespaced" if t.namespaced else "Cluster",
        "singularResource": t.singular,
        "verbs": t.verbs,
    }
    if t.short_names:
        entry["shortNames"] = t.short_names
    if t.categories:
        entry["categories"] = t.categories
    subs = []
    for sub in t.subresources:
        group_, version_, kind = SUBRESOURCE_KIND.get(sub, (t.group, t.version, t.kind))
        subs.append({"subresource": sub, "responseKind": {"group": group_, "version": version_, "kind": kind},
                     "verbs": SUBRESOURCE_VERBS[sub]})
    if subs:
        entry["subresources"] = subs
    return entry


def aggregated(registry: Registry, core: bool, media: str) -> dict:
    """APIGroupDiscoveryList for /api (core=True) or /apis."""
    items = []
    for group, versions in registry.groups():
        if (group == "") != core:
            continue
        items.append({
            "metadata": {"name": group, "creationTimestamp": None},
            "versions": [{"version": v, "freshness": "Current",
                          "resources": [_discovery_resource(t) for t in registry.in_group_version(group, v)]}
                         for v in versions],
        })
    api_version = "apidiscovery.k8s.io/v2beta1" if "v2beta1" in media else "apidiscovery.k8s.io/v2"
    return {"kind": "APIGroupDiscoveryList", "apiVersion": api_version, "metadata": {}, "items": items}


# -- OpenAPI ------------------------------------------------------------------------------------

def _openapi_path(group: str, version: str) -> str:
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def openapi_v3_root(registry: Registry) -> dict:
    paths = {}
    for group, versions in registry.groups():
        for v in versions:
            p = _openapi_path(group, v)
            digest = hashlib.sha256(json.dumps(openapi_v3_group_version(registry, group, v), sort_keys=True)
                                    .encode()).hexdigest()[:32].upper()
            paths[p] = {"serverRelativeURL": f"/openapi/v3/{p}?hash={digest}"}
    return {"paths": paths}


def _schema_name(t: ResourceType) -> str:
    group = ".".join(reversed(t.group.split("."))) if t.group else "io.k8s.api.core"
    return f"{group}.{t.version}.{t.kind}"


def openapi_v3_group_version(registry: Registry, group: str, version: str) -> dict | None:
    """A GV document with a PATCH operation per kind that declares the `fieldValidation` query
    parameter (which tells kubectl to leave validation to the server), and the CRD schemas."""
    types = registry.in_group_version(group, version)
    if not types:
        return None
    prefix = "/api/" + version if not group else f"/apis/{group}/{version}"
    paths = {}
    schemas = {}
    params = [
        {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
        {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
        {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
        {"name": "force", "in": "query", "schema": {"type": "boolean", "uniqueItems": True}},
    ]
    for t in types:
        gvk = {"group": t.group, "version": t.version, "kind": t.kind}
        item = f"{prefix}/namespaces/{{namespace}}/{t.plural}/{{name}}" if t.namespaced else f"{prefix}/{t.plural}/{{name}}"
        # Only CRD schemas are published: for built-in kinds kubectl then computes strategic
        # merge patches from its compiled-in types, which know every patch merge key.
        if t.schema is not None:
            ref = {"$ref": f"#/components/schemas/{_schema_name(t)}"}
            ok = {"200": {"description": "OK", "content": {"application/json": {"schema": ref}}}}
        else:
            ok = {"200": {"description": "OK"}}
        paths[item] = {
            "get": {"operationId": f"read{t.kind}", "x-kubernetes-action": "get",
                    "x-kubernetes-group-version-kind": gvk, "responses": ok},
            "patch": {"operationId": f"patch{t.kind}", "x-kubernetes-action": "patch",
                      "x-kubernetes-group-version-kind": gvk, "parameters": params, "responses": ok},
            "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
        }
        if t.schema is not None:
            schema = dict(t.schema)
            schema["x-kubernetes-group-version-kind"] = [gvk]
            schemas[_schema_name(t)] = schema
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": VERSION_INFO["gitVersion"]},
            "paths": paths, "components": {"schemas": schemas}}


# An empty OpenAPI v2 document in protobuf (gnostic openapi_v2.Document): swagger "2.0" and an
# info with title and version. kubectl only reads it to validate `List` documents client side,
# and finds no schemas in it, so it leaves those to the server too.
def openapi_v2_protobuf() -> bytes:
    def field(number: int, payload: bytes) -> bytes:
        return bytes([(number << 3) | 2, len(payload)]) + payload
    info = field(1, b"Kubernetes") + field(2, VERSION_INFO["gitVersion"].encode())
    return field(1, b"2.0") + field(2, info)


def openapi_v2_json() -> dict:
    return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": VERSION_INFO["gitVersion"]},
            "paths": {}, "definitions": {}}
