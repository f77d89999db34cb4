"""Label and field selectors as the API server parses them from `labelSelector` / `fieldSelector`."""

from __future__ import annotations

import re

from api_errors import bad_request

_KEY = r"[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?"
_VALUE = r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?"

# Fields beyond metadata.name and metadata.namespace a real API server selects on, by (group,
# plural); a key ending in "." admits every field under it.
_SELECTABLE_FIELDS = {
    ("", "pods"): ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
                   "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
                   "status.nominatedNodeName"),
    ("", "events"): ("involvedObject.", "reason", "reportingComponent", "source", "type"),
    ("", "secrets"): ("type",),
    ("", "nodes"): ("spec.unschedulable",),
    ("", "namespaces"): ("status.phase",),
    ("", "replicationcontrollers"): ("status.replicas",),
    ("", "persistentvolumes"): ("name",),
    ("apps", "replicasets"): ("status.replicas",),
    ("batch", "jobs"): ("status.successful",),
    ("certificates.k8s.io", "certificatesigningrequests"): ("spec.signerName",),
}


def _split_top_level(text: str) -> list[str]:
    """Splits on commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


class LabelSelector:
    """Requirements: (key, op, values) with op in =, !=, in, notin, exists, !exists."""

    def __init__(self, requirements: list[tuple[str, str, list[str]]]):
        self.requirements = requirements

    @classmethod
    def parse(cls, text: str | None) -> "LabelSelector":
        reqs = []
        for part in _split_top_level(text or ""):
            m = re.fullmatch(rf"(?P<key>{_KEY})\s+(?P<op>in|notin)\s*\((?P<values>.*)\)", part)
            if m:
                values = [v.strip() for v in m.group("values").split(",") if v.strip()]
                reqs.append((m.group("key"), m.group("op"), values))
                continue
            m = re.fullmatch(rf"(?P<key>{_KEY})\s*(?P<op>==|=|!=)\s*(?P<value>{_VALUE})", part)
            if m:
                reqs.append((m.group("key"), "!=" if m.group("op") == "!=" else "=", [m.group("value")]))
                continue
            m = re.fullmatch(rf"!\s*(?P<key>{_KEY})", part)
            if m:
                reqs.append((m.group("key"), "!exists", []))
                continue
            m = re.fullmatch(rf"(?P<key>{_KEY})", part)
            if m:
                reqs.append((m.group("key"), "exists", []))
                continue
            raise bad_request(f"unable to parse requirement: found '{part}', expected: in, notin, =, ==, !=, gt, lt")
        return cls(reqs)

    def matches(self, labels: dict | None) -> bool:
        labels = labels or {}
        for key, op, values in self.requirements:
            present = key in labels
            value = labels.get(key)
            if op == "=" and (not present or value != values[0]):
                return False
            if op == "!=" and present and value == values[0]:
                return False
            if op == "in" and (not present or value not in values):
                return False
            if op == "notin" and present and value in values:
                return False
            if op == "exists" and not present:
                return False
            if op == "!exists" and present:
                return False
        return True


class FieldSelector:
    """Equality requirements on dotted paths (`metadata.name=x`, `status.phase!=Running`)."""

    def __init__(self, requirements: list[tuple[str, str, str]]):
        self.requirements = requirements

    @classmethod
    def parse(cls, text: str | None) -> "FieldSelector":
        reqs = []
        for part in _split_top_level(text or ""):
            m = re.fullmatch(r"([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)", part)
            if not m:
                raise bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
            reqs.append((m.group(1), "!=" if m.group(2) == "!=" else "=", m.group(3)))
        return cls(reqs)

    def matches(self, obj: dict) -> bool:
        for path, op, expected in self.requirements:
            value = obj
            for part in path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            actual = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
            if (actual == expected) != (op == "="):
                return False
        return True

    def check_supported(self, group: str, plural: str) -> None:
        """Refuses a field the real API server cannot select on for this resource, as it does
        (400 `field label not supported: ...`): every resource selects on metadata.name and
        metadata.namespace, a few built-in ones on more (their field label conversion
        functions), custom resources on nothing else (no selectableFields here)."""
        extra = _SELECTABLE_FIELDS.get((group, plural), ())
        for path, _, _ in self.requirements:
            if path in ("metadata.name", "metadata.namespace") or path in extra:
                continue
            if any(path.startswith(prefix) for prefix in extra if prefix.endswith(".")):
                continue
            raise bad_request(f"field label not supported: {path}")

    def name(self) -> str | None:
        for path, op, value in self.requirements:
            if path == "metadata.name" and op == "=":
                return value
        return None
