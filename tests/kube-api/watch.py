"""Watch streams: `?watch=true` answered with one JSON event per line (chunked), from a
resourceVersion or starting with the current objects as ADDED, until `timeoutSeconds`."""

from __future__ import annotations

import asyncio
import json

import api_errors
import tables
from api_errors import bad_request
from http_server import Request, StreamResponse
from label_selectors import FieldSelector, LabelSelector
from resources import ResourceType
from store import Store, Watcher

MAX_WATCH_SECONDS = 1800
BOOKMARK_INTERVAL = 30


def _parse_rv(rv: str) -> int:
    try:
        return int(rv)
    except ValueError:
        raise bad_request(f'Invalid value: "{rv}": resourceVersion must be an integer') from None


def _event_bytes(rt: ResourceType, event_type: str, obj: dict, table: bool, include) -> bytes:
    if table:
        obj = tables.to_table(rt, [obj], obj["metadata"]["resourceVersion"], include)
    return json.dumps({"type": event_type, "object": obj}, separators=(",", ":")).encode() + b"\n"


def _bookmark(rt: ResourceType, store: Store, annotations: dict | None = None) -> bytes:
    meta = {"resourceVersion": str(store.resource_version)}
    if annotations:
        meta["annotations"] = annotations
    return json.dumps({"type": "BOOKMARK", "object": {"kind": rt.kind, "apiVersion": rt.api_version,
                                                      "metadata": meta}}).encode() + b"\n"


def watch_response(request: Request, rt: ResourceType, namespace: str | None, name: str | None,
                   store: Store) -> StreamResponse:
    fields = request.param("fieldSelector") or ""
    if name is not None:
        fields = f"metadata.name={name}" + (f",{fields}" if fields else "")
    field_sel = FieldSelector.parse(fields)
    field_sel.check_supported(rt.group, rt.plural)
    watcher = Watcher(rt.key, namespace, LabelSelector.parse(request.param("labelSelector")), field_sel)
    rv = request.param("resourceVersion")
    send_initial = request.param("sendInitialEvents", "false") == "true"
    since = None if (not rv or rv == "0" or send_initial) else _parse_rv(rv)
    timeout = request.param("timeoutSeconds")
    timeout_s = min(float(timeout), MAX_WATCH_SECONDS) if timeout else MAX_WATCH_SECONDS
    bookmarks = request.param("allowWatchBookmarks", "false") == "true"
    table = tables.wants_table(request.header("accept"))
    include = request.param("includeObject")

    async def events():
        if not store.watch(watcher, since):
            err = api_errors.gone(f"too old resource version: {rv} ({store.resource_version})")
            yield json.dumps({"type": "ERROR", "object": err.status()}).encode() + b"\n"
            return
        try:
            if send_initial:
                # The current objects (queued as ADDED by store.watch), then the bookmark that
                # ends the initial events.
                for _ in range(watcher.queue.qsize()):
                    yield _event_bytes(rt, *watcher.queue.get_nowait(), table, include)
                yield _bookmark(rt, store, {"k8s.io/initial-events-end": "true"})
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout_s
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return
                try:
                    event_type, obj = await asyncio.wait_for(watcher.queue.get(), min(remaining, BOOKMARK_INTERVAL))
                except asyncio.TimeoutError:
                    if bookmarks:
                        yield _bookmark(rt, store)
                    continue
                yield _event_bytes(rt, event_type, obj, table, include)
        finally:
            store.unwatch(watcher)

    return StreamResponse(events())
