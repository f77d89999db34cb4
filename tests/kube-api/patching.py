"""The PATCH formats kubectl sends: JSON merge patch (RFC 7386), JSON patch (RFC 6902), and an
approximation of strategic merge patch (lists of objects merged by the usual Kubernetes merge
keys; `$patch`, `$retainKeys`, `$setElementOrder/...`, `$deleteFromPrimitiveList/...` honoured)."""

from __future__ import annotations

import copy
import json

from api_errors import ApiError, bad_request

# Merge keys of the built-in list fields (from the `patchMergeKey` tags of k8s.io/api).
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "conditions": "type",
    "ownerReferences": "uid",
    "containerStatuses": "name",
    "initContainerStatuses": "name",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
}
PRIMITIVE_SET_FIELDS = {"finalizers"}


def merge_patch(target, patch):
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target, patch, field_name: str = ""):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return None
    result = copy.deepcopy(target)
    retain = patch.get("$retainKeys")
    if isinstance(retain, list):
        result = {k: v for k, v in result.items() if k in retain}
    for key, value in patch.items():
        if key in ("$patch", "$retainKeys"):
            continue
        if key.startswith("$setElementOrder/"):
            name = key.split("/", 1)[1]
            if name not in patch and isinstance(result.get(name), list) and isinstance(value, list):
                result[name] = _reorder(result[name], value)
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            name = key.split("/", 1)[1]
            if isinstance(result.get(name), list):
                result[name] = [v for v in result[name] if v not in value]
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list):
            order = patch.get(f"$setElementOrder/{key}")
            result[key] = _merge_list(result.get(key), value, key, _merge_key(key, value, order))
            if isinstance(order, list):
                result[key] = _reorder(result[key], order)
        elif isinstance(value, dict):
            merged = strategic_merge_patch(result.get(key), value, key)
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
        else:
            result[key] = copy.deepcopy(value)
    return result


def _merge_key(field_name: str, patch: list, order) -> str | None:
    """The list's merge key: what kubectl's `$setElementOrder` entries or `$patch` items name,
    else the known key of the field."""
    for entry in (order if isinstance(order, list) else []) + patch:
        if isinstance(entry, dict):
            keys = [k for k in entry if not k.startswith("$")]
            if len(keys) == 1 and (entry in (order or []) or "$patch" in entry):
                return keys[0]
    return MERGE_KEYS.get(field_name)


def _reorder(items: list, order: list) -> list:
    """Orders merged items as `$setElementOrder` lists them; items it does not name go last."""
    if not all(isinstance(o, dict) and len(o) == 1 for o in order):
        return [i for i in order if i in items] + [i for i in items if i not in order]
    (key,) = order[0].keys() if order else (None,)
    if key is None:
        return items
    ranked = {o[key]: n for n, o in enumerate(order) if key in o}
    return sorted(items, key=lambda i: ranked.get(i.get(key) if isinstance(i, dict) else None, len(ranked)))


def _merge_list(current, patch: list, field_name: str, key: str | None = None):
    if not isinstance(current, list):
        current = []
    if field_name in PRIMITIVE_SET_FIELDS:
        merged = list(current)
        for v in patch:
            if v not in merged:
                merged.append(v)
        return merged
    if key is None or not all(isinstance(v, dict) for v in patch):
        return [v for v in copy.deepcopy(patch) if not (isinstance(v, dict) and v.get("$patch"))]
    if len(patch) == 1 and patch[0].get("$patch") == "replace":
        return []
    result = copy.deepcopy(current)
    for item in patch:
        match = next((i for i, c in enumerate(result) if isinstance(c, dict) and c.get(key) == item.get(key)), None)
        if item.get("$patch") == "delete":
            if match is not None:
                result.pop(match)
            continue
        if match is None:
            result.append(strategic_merge_patch({}, item, field_name))
        else:
            result[match] = strategic_merge_patch(result[match], item, field_name)
    return result


def _pointer_parts(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise bad_request(f"json patch: invalid path {pointer!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def _resolve_parent(doc, parts: list[str]):
    node = doc
    for part in parts[:-1]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ApiError(422, "Invalid", f"the server rejected our request due to an error in our request: "
                           f"json patch: path /{'/'.join(parts)} not found")
    return node


def _get(doc, parts):
    if not parts:
        return doc
    parent = _resolve_parent(doc, parts)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent[int(last)]
    raise ApiError(422, "Invalid", f"json patch: path /{'/'.join(parts)} not found")


def _remove(doc, parts):
    parent = _resolve_parent(doc, parts)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise ApiError(422, "Invalid", f"json patch: unable to remove nonexistent key: /{'/'.join(parts)}")


def _add(doc, parts, value, replace: bool = False):
    if not parts:
        return value
    parent = _resolve_parent(doc, parts)
    last = parts[-1]
    if isinstance(parent, dict):
        if replace and last not in parent:
            raise ApiError(422, "Invalid", f"json patch: replace operation does not apply: doc is missing key: /{'/'.join(parts)}")
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent):
            if replace:
                parent[int(last)] = value
            else:
                parent.insert(int(last), value)
        else:
            raise ApiError(422, "Invalid", f"json patch: index out of range: /{'/'.join(parts)}")
    return doc


def json_patch(target, ops):
    if not isinstance(ops, list):
        raise bad_request("json patch: the patch must be a list of operations")
    doc = copy.deepcopy(target)
    for op in ops:
        kind = op.get("op")
        parts = _pointer_parts(op.get("path", ""))
        if kind == "add":
            doc = _add(doc, parts, copy.deepcopy(op.get("value")))
        elif kind == "remove":
            _remove(doc, parts)
        elif kind == "replace":
            doc = _add(doc, parts, copy.deepcopy(op.get("value")), replace=True)
        elif kind == "move":
            value = _remove(doc, _pointer_parts(op["from"]))
            doc = _add(doc, parts, value)
        elif kind == "copy":
            value = copy.deepcopy(_get(doc, _pointer_parts(op["from"])))
            doc = _add(doc, parts, value)
        elif kind == "test":
            if _get(doc, parts) != op.get("value"):
                raise ApiError(422, "Invalid", f"json patch: testing value /{'/'.join(parts)} failed")
        else:
            raise bad_request(f"json patch: unexpected operation {kind!r}")
    return doc


def apply_patch(content_type: str, current: dict, body: bytes) -> dict:
    """Applies a PATCH body of the given media type to `current`."""
    media = content_type.split(";")[0].strip().lower()
    try:
        if media == "application/apply-patch+yaml":
            import yaml
            patch = yaml.safe_load(body.decode("utf-8"))
        else:
            patch = json.loads(body.decode("utf-8") or "null")
    except Exception as exc:  # malformed body
        raise bad_request(f"error decoding patch: {exc}")
    if media == "application/json-patch+json":
        return json_patch(current, patch)
    if media == "application/merge-patch+json":
        return merge_patch(current, patch)
    if media == "application/strategic-merge-patch+json":
        return strategic_merge_patch(current, patch)
    if media == "application/apply-patch+yaml":
        # Server-side apply, simplified: the applied configuration is merged into the live object.
        return strategic_merge_patch(current, patch)
    from api_errors import unsupported_media_type
    raise unsupported_media_type(content_type)
