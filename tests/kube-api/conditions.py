"""Helpers shared by the simulated controllers: metav1.Condition values and short hashes."""

from __future__ import annotations

import hashlib

from objects import now


def short_hash(seed: str, n: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


def condition(type_: str, status: str, reason: str, message: str, previous: list | None,
              generation: int | None = None) -> dict:
    """A metav1.Condition that keeps its lastTransitionTime while its status does not change."""
    old = next((c for c in previous or [] if c.get("type") == type_), None)
    cond = {"type": type_, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": old["lastTransitionTime"] if old and old.get("status") == status else now()}
    if generation is not None:
        cond["observedGeneration"] = generation
    return cond
