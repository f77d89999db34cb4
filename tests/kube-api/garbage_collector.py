"""Simulated garbage collector, the part that runs in the background: an object whose
ownerReferences all name owners that no longer exist (by uid) is deleted, as Kubernetes'
garbage collector does with dangling references (an owner deleted before the reference was
written, or deleted with the Orphan policy by someone else). Cascades at the owner's deletion
itself (Background, Foreground, Orphan) are done by `ObjectService.delete`, except that with
`gcDelaySeconds` a Background deletion's dependents are left here and removed that long after
they were first seen dangling."""

from __future__ import annotations

import logging
import time

from api_errors import ApiError
from objects import ObjectService
from resources import Registry

log = logging.getLogger("kube-api.gc")


class GarbageCollector:
    def __init__(self, registry: Registry, objects: ObjectService):
        self.registry = registry
        self.objects = objects
        self._dangling_since: dict[str, float] = {}  # uid -> when first seen without an owner

    def collect(self) -> list[tuple[str, str, str]]:
        """One pass; returns (plural, namespace, name) of what it deleted."""
        store = self.objects.store
        everything, keys = [], set()
        for rt in self.registry.types:
            if rt.key in keys:
                continue
            keys.add(rt.key)
            for obj in store.scan(rt.key):
                everything.append((rt, obj))
        uids = {obj["metadata"].get("uid") for _, obj in everything}
        deleted = []
        now = time.monotonic()
        dangling = set()
        for rt, obj in everything:
            refs = obj["metadata"].get("ownerReferences") or []
            if not refs or any(ref.get("uid") in uids for ref in refs):
                continue
            meta = obj["metadata"]
            dangling.add(meta.get("uid"))
            since = self._dangling_since.setdefault(meta.get("uid"), now)
            if now - since < self.objects.background_gc_delay:
                continue
            try:
                self.objects.delete(rt, meta.get("namespace", ""), meta["name"], propagation="Background")
                deleted.append((rt.plural, meta.get("namespace", ""), meta["name"]))
            except ApiError as err:  # gone already (a cascade of this pass)
                log.debug("gc of %s/%s: %s", rt.plural, meta["name"], err.message)
        self._dangling_since = {uid: t for uid, t in self._dangling_since.items() if uid in dangling}
        return deleted
