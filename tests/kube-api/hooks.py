"""Test hooks under /_test/ (same bearer token as the API):

    GET|PUT  /_test/config                                  simulation settings (podRules, ...)
    POST     /_test/namespaces/NS/pods/NAME/state           pin a pod's state: {"behavior": ...}
    POST     /_test/namespaces/NS/pods/NAME/release         back to the configured rules
    PUT      /_test/namespaces/NS/pods/NAME/log?container=C the text `kubectl logs` returns
    GET      /_test/namespaces/NS/pods/NAME/filesystem      host paths of the pod's directories
    GET|PUT  /_test/exec                                    {"handlers": [...], "binDirs": [...]}
    POST     /_test/reconcile                               run the simulation once, now
    POST     /_test/objects                                 {"items": [...]} stored as they are (benchmarks)
"""

from __future__ import annotations

import json
import time
import uuid

import api_errors
from api_errors import ApiError, bad_request
from http_server import Request, Response


def _json(obj, status: int = 200) -> Response:
    return Response(status, json.dumps(obj).encode(), {"Content-Type": "application/json"})


class TestHooks:
    __test__ = False  # not a pytest class

    def __init__(self, registry, objects, simulation, exec_service):
        self.registry = registry
        self.objects = objects
        self.simulation = simulation
        self.exec = exec_service

    def _body(self, request: Request):
        try:
            return json.loads(request.body.decode() or "{}")
        except ValueError as exc:
            raise bad_request(f"invalid JSON: {exc}")

    async def handle(self, request: Request) -> Response:
        parts = [p for p in request.path.split("/") if p][1:]
        method = request.method
        try:
            if parts == ["config"]:
                if method == "GET":
                    return _json(self.simulation.config)
                return _json(self.simulation.configure(self._body(request)))
            if parts == ["exec"]:
                if method == "GET":
                    return _json(self.exec.configure({}))
                return _json(self.exec.configure(self._body(request)))
            if parts == ["objects"] and method == "POST":
                return _json({"stored": self._store_objects(self._body(request).get("items") or [])})
            if parts == ["reconcile"] and method == "POST":
                self.simulation.reconcile()
                return _json({"ok": True})
            if len(parts) == 5 and parts[0] == "namespaces" and parts[2] == "pods":
                return self._pod_hook(request, parts[1], parts[3], parts[4])
        except ValueError as exc:
            raise bad_request(str(exc))
        raise ApiError(404, "NotFound", f"no test hook {request.method} {request.path}")

    def _store_objects(self, items: list) -> int:
        """Objects put straight into the store, without admission, defaulting or controllers'
        reactions: what a benchmark needs to fill a namespace with thousands of sandboxes in
        seconds. Each needs apiVersion, kind, metadata.name and metadata.namespace."""
        for item in items:
            rt = self.registry.by_kind(item.get("apiVersion", ""), item.get("kind", ""))
            if rt is None:
                raise bad_request(f"unknown kind {item.get('apiVersion')}/{item.get('kind')}")
            meta = item.setdefault("metadata", {})
            meta.setdefault("uid", str(uuid.uuid4()))
            meta.setdefault("creationTimestamp", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            self.objects.store.put(rt.key, item)
        return len(items)

    def _pod_hook(self, request: Request, namespace: str, name: str, action: str) -> Response:
        pods = self.registry.by_plural("", "pods")
        pod = self.objects.get(pods, namespace, name)
        if action == "state" and request.method == "POST":
            return _json(self.simulation.pin_pod(pod, self._body(request)))
        if action == "release" and request.method == "POST":
            self.simulation.release_pod(pod["metadata"]["uid"])
            return _json({"ok": True})
        if action == "log" and request.method == "PUT":
            container = request.param("container") or pod["spec"]["containers"][0]["name"]
            self.exec.logs[(namespace, name, container)] = request.body.decode("utf-8", "replace")
            return _json({"ok": True})
        if action == "filesystem" and request.method == "GET":
            root = self.exec.fs.ensure_pod(pod)
            volumes = self.exec.fs.volume_sources(pod, root, lambda plural, n: self.objects.find(
                self.registry.by_plural("", plural), namespace, n))
            return _json({"root": root, "volumes": volumes})
        raise api_errors.method_not_allowed(f"no pod hook {request.method} {action}")
