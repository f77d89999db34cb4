"""In-memory object store with a global, increasing resourceVersion and a watch event log."""

from __future__ import annotations

import asyncio
import collections
import json

from label_selectors import FieldSelector, LabelSelector

HISTORY_LIMIT = 5000  # events kept for watches that resume from a resourceVersion


def clone(obj):
    """A deep copy of a JSON value. Stored objects hold only JSON types, and a JSON round trip
    copies them several times faster than copy.deepcopy: at thousands of objects that is what
    lets one list answer within kubectl's timeouts."""
    return json.loads(json.dumps(obj))


class Watcher:
    """One watch stream: receives the events of one resource type that match its selectors."""

    def __init__(self, key: tuple[str, str], namespace: str | None, labels: LabelSelector, fields: FieldSelector):
        self.key = key
        self.namespace = namespace
        self.labels = labels
        self.fields = fields
        self.queue: asyncio.Queue = asyncio.Queue()

    def matches(self, obj: dict | None) -> bool:
        if obj is None:
            return False
        meta = obj.get("metadata", {})
        if self.namespace is not None and meta.get("namespace") != self.namespace:
            return False
        return self.labels.matches(meta.get("labels")) and self.fields.matches(obj)

    def translate(self, event_type: str, obj: dict, old: dict | None) -> tuple[str, dict] | None:
        """The event this watcher sees: objects moving in or out of its selection are ADDED/DELETED."""
        new_match = self.matches(obj)
        if event_type == "DELETED":
            return ("DELETED", obj) if new_match else None
        old_match = self.matches(old)
        if new_match and old_match:
            return (event_type, obj)
        if new_match:
            return ("ADDED", obj)
        if old_match:
            return ("DELETED", obj)
        return None

    def offer(self, key, event_type: str, obj: dict, old: dict | None) -> None:
        if key != self.key:
            return
        event = self.translate(event_type, obj, old)
        if event is not None:
            self.queue.put_nowait(event)


class Store:
    def __init__(self):
        self._objects: dict[tuple[str, str], dict[tuple[str, str], dict]] = collections.defaultdict(dict)
        self._rv = 1000
        self._history: collections.deque = collections.deque(maxlen=HISTORY_LIMIT)
        self._watchers: set[Watcher] = set()
        self._listeners = []
        # owner uid -> {(key, namespace, name)} of the objects whose ownerReferences name it, so
        # a cascade finds an owner's dependents without reading every object of the namespace
        # (the real garbage collector keeps such a graph too).
        self._dependents: dict[str, set] = collections.defaultdict(set)

    # -- versions -------------------------------------------------------------------------
    @property
    def resource_version(self) -> int:
        return self._rv

    def _next_rv(self) -> int:
        self._rv += 1
        return self._rv

    # -- reads ----------------------------------------------------------------------------
    def get(self, key: tuple[str, str], namespace: str, name: str) -> dict | None:
        obj = self._objects[key].get((namespace, name))
        return clone(obj) if obj is not None else None

    def list(self, key: tuple[str, str], namespace: str | None = None) -> list[dict]:
        return [clone(obj) for obj in self.scan(key, namespace)]

    def scan(self, key: tuple[str, str], namespace: str | None = None) -> list[dict]:
        """The stored objects themselves, in name order, for readers that change nothing (a
        list answer being encoded, a selector being matched): copying every object of a kind
        at each list or controller pass is what made thousands of objects slow."""
        return [obj for (ns, _), obj in sorted(self._objects[key].items())
                if namespace is None or ns == namespace]

    def dependents(self, namespace: str, owner_uid: str) -> list[tuple[tuple[str, str], dict]]:
        """(key, copy) of every object in `namespace` whose ownerReferences name `owner_uid`."""
        out = []
        for key, ns, name in sorted(self._dependents.get(owner_uid, ())):
            obj = self._objects[key].get((ns, name))
            if ns == namespace and obj is not None:
                out.append((key, clone(obj)))
        return out

    def all_in_namespace(self, namespace: str) -> list[tuple[tuple[str, str], dict]]:
        out = []
        for key, objs in self._objects.items():
            for (ns, _), obj in objs.items():
                if ns == namespace:
                    out.append((key, clone(obj)))
        return out

    # -- writes ---------------------------------------------------------------------------
    def put(self, key: tuple[str, str], obj: dict) -> dict:
        """Creates or replaces; stamps a new resourceVersion; returns the stored copy."""
        meta = obj["metadata"]
        ident = (meta.get("namespace", ""), meta["name"])
        old = self._objects[key].get(ident)
        meta["resourceVersion"] = str(self._next_rv())
        stored = clone(obj)
        self._objects[key][ident] = stored
        self._index_owners(key, ident, old, stored)
        self._record(key, "MODIFIED" if old is not None else "ADDED", stored, old)
        return clone(stored)

    def remove(self, key: tuple[str, str], namespace: str, name: str) -> dict | None:
        old = self._objects[key].pop((namespace, name), None)
        if old is None:
            return None
        self._index_owners(key, (namespace, name), old, None)
        gone = clone(old)
        gone["metadata"]["resourceVersion"] = str(self._next_rv())
        self._record(key, "DELETED", gone, old)
        return clone(gone)

    def _index_owners(self, key, ident: tuple[str, str], old: dict | None, new: dict | None) -> None:
        entry = (key, ident[0], ident[1])
        for obj, add in ((old, False), (new, True)):
            for ref in (obj or {}).get("metadata", {}).get("ownerReferences") or []:
                uid = ref.get("uid") if isinstance(ref, dict) else None
                if not uid:
                    continue
                if add:
                    self._dependents[uid].add(entry)
                else:
                    self._dependents[uid].discard(entry)
                    if not self._dependents[uid]:
                        del self._dependents[uid]

    def _record(self, key, event_type: str, obj: dict, old: dict | None) -> None:
        rv = int(obj["metadata"]["resourceVersion"])
        self._history.append((rv, key, event_type, obj, old))
        for watcher in list(self._watchers):
            watcher.offer(key, event_type, clone(obj), old)
        for listener in self._listeners:
            listener(key, event_type, obj, old)

    # -- watch ----------------------------------------------------------------------------
    def add_listener(self, listener) -> None:
        self._listeners.append(listener)

    def watch(self, watcher: Watcher, since_rv: int | None) -> bool:
        """Registers the watcher and queues the events after `since_rv` (None: current objects as
        ADDED). Returns False when `since_rv` is older than the kept history (410 Gone)."""
        if since_rv is None:
            for obj in self.scan(watcher.key, watcher.namespace):
                if watcher.matches(obj):
                    watcher.queue.put_nowait(("ADDED", clone(obj)))
        else:
            if self._history and len(self._history) == self._history.maxlen and since_rv < self._history[0][0] - 1:
                return False
            for rv, key, event_type, obj, old in self._history:
                if rv > since_rv:
                    watcher.offer(key, event_type, clone(obj), old)
        self._watchers.add(watcher)
        return True

    def unwatch(self, watcher: Watcher) -> None:
        self._watchers.discard(watcher)
