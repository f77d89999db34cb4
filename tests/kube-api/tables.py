"""Server-side printing: `meta.k8s.io/v1` Table answers for `kubectl get`."""

from __future__ import annotations

import datetime
import re

from resources import ResourceType

TABLE_MEDIA = "as=Table"


def wants_table(accept: str) -> bool:
    return any(TABLE_MEDIA in part and "g=meta.k8s.io" in part for part in accept.split(","))


def human_duration(seconds: float) -> str:
    s = int(max(seconds, 0))
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = m // 60
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    d = h // 24
    return f"{d}d"


def age(obj: dict) -> str:
    ts = obj.get("metadata", {}).get("creationTimestamp")
    if not ts:
        return "<unknown>"
    created = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    return human_duration((datetime.datetime.now(datetime.timezone.utc) - created).total_seconds())


def json_path(obj, path: str):
    """The subset of JSONPath used by printer columns: `.a.b`, `.a[0]`, `.a[?(@.k=='v')].b`."""
    node = obj
    for token in re.findall(r"\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[\?\(@\.([A-Za-z0-9_]+)==['\"]([^'\"]*)['\"]\)\]", path):
        key, idx, fkey, fval = token
        if key:
            node = node.get(key) if isinstance(node, dict) else None
        elif idx:
            node = node[int(idx)] if isinstance(node, list) and int(idx) < len(node) else None
        elif fkey:
            node = next((i for i in node if isinstance(i, dict) and str(i.get(fkey)) == fval), None) \
                if isinstance(node, list) else None
        if node is None:
            return None
    return node


def _pod_columns(pod: dict) -> list:
    spec, status = pod.get("spec", {}), pod.get("status", {})
    statuses = status.get("containerStatuses") or []
    ready = sum(1 for c in statuses if c.get("ready"))
    reason = status.get("reason") or status.get("phase", "Pending")
    for c in statuses:
        state = c.get("state") or {}
        if "waiting" in state and state["waiting"].get("reason"):
            reason = state["waiting"]["reason"]
        elif "terminated" in state and state["terminated"].get("reason"):
            reason = state["terminated"]["reason"]
    inits = status.get("initContainerStatuses") or []
    done = sum(1 for c in inits if (c.get("state") or {}).get("terminated", {}).get("exitCode") == 0)
    if inits and done < len(inits):  # kubectl's Init:N/M, Init:<reason>
        reason = f"Init:{done}/{len(inits)}"
        for c in inits:
            state = c.get("state") or {}
            waiting = (state.get("waiting") or {}).get("reason")
            terminated = state.get("terminated") or {}
            if waiting and waiting != "PodInitializing":
                reason = f"Init:{waiting}"
            elif terminated.get("exitCode", 0) != 0:
                reason = f"Init:{terminated.get('reason') or 'Error'}"
    if pod["metadata"].get("deletionTimestamp"):
        reason = "Terminating"
    restarts = sum(int(c.get("restartCount", 0)) for c in statuses)
    return [f"{ready}/{len(spec.get('containers') or [])}", reason, restarts, age(pod),
            status.get("podIP") or "<none>", spec.get("nodeName") or "<none>", "<none>", "<none>"]


def _columns(rt: ResourceType) -> list[dict]:
    def col(name, type_="string", priority=0, fmt=""):
        return {"name": name, "type": type_, "format": fmt, "description": "", "priority": priority}
    name = col("Name", fmt="name")
    if rt.key == ("", "pods"):
        return [name, col("Ready"), col("Status"), col("Restarts", "string"), col("Age"),
                col("IP", priority=1), col("Node", priority=1), col("Nominated Node", priority=1),
                col("Readiness Gates", priority=1)]
    if rt.key == ("", "services"):
        return [name, col("Type"), col("Cluster-IP"), col("External-IP"), col("Port(s)"), col("Age"),
                col("Selector", priority=1)]
    if rt.key in (("", "configmaps"), ("", "secrets")):
        extra = [col("Type")] if rt.plural == "secrets" else []
        return [name] + extra + [col("Data", "integer"), col("Age")]
    if rt.key == ("", "namespaces"):
        return [name, col("Status"), col("Age")]
    if rt.key == ("", "persistentvolumeclaims"):
        return [name, col("Status"), col("Volume"), col("Capacity"), col("Access Modes"), col("StorageClass"),
                col("Age")]
    if rt.is_custom and rt.printer_columns:
        return [name] + [col(c["name"], c.get("type", "string"), c.get("priority", 0)) for c in rt.printer_columns]
    return [name, col("Age")]


def _cells(rt: ResourceType, obj: dict) -> list:
    name = obj["metadata"]["name"]
    if rt.key == ("", "pods"):
        return [name] + _pod_columns(obj)
    if rt.key == ("", "services"):
        spec = obj.get("spec", {})
        ports = ",".join(f"{p.get('port')}/{p.get('protocol', 'TCP')}" for p in spec.get("ports") or []) or "<none>"
        selector = ",".join(f"{k}={v}" for k, v in (spec.get("selector") or {}).items()) or "<none>"
        return [name, spec.get("type", "ClusterIP"), spec.get("clusterIP", "<none>"), "<none>", ports, age(obj),
                selector]
    if rt.key == ("", "configmaps"):
        return [name, len(obj.get("data") or {}) + len(obj.get("binaryData") or {}), age(obj)]
    if rt.key == ("", "secrets"):
        return [name, obj.get("type", "Opaque"), len(obj.get("data") or {}), age(obj)]
    if rt.key == ("", "namespaces"):
        return [name, obj.get("status", {}).get("phase", "Active"), age(obj)]
    if rt.key == ("", "persistentvolumeclaims"):
        spec, status = obj.get("spec", {}), obj.get("status", {})
        return [name, status.get("phase", "Pending"), spec.get("volumeName", ""),
                (status.get("capacity") or {}).get("storage", ""), ",".join(status.get("accessModes") or []),
                spec.get("storageClassName", "<unset>"), age(obj)]
    if rt.is_custom and rt.printer_columns:
        cells = [name]
        for c in rt.printer_columns:
            value = json_path(obj, c["jsonPath"])
            if c.get("type") == "date" and isinstance(value, str):
                try:
                    created = datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(
                        tzinfo=datetime.timezone.utc)
                    value = human_duration((datetime.datetime.now(datetime.timezone.utc) - created).total_seconds())
                except ValueError:
                    pass
            cells.append(value)
        return cells
    return [name, age(obj)]


def to_table(rt: ResourceType, objects: list[dict], resource_version: str, include: str | None) -> dict:
    rows = []
    for obj in objects:
        if include == "Object":
            embedded = obj
        elif include == "None":
            embedded = None
        else:
            embedded = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}
        row = {"cells": _cells(rt, obj)}
        if embedded is not None:
            row["object"] = embedded
        rows.append(row)
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": resource_version},
            "columnDefinitions": _columns(rt), "rows": rows}
