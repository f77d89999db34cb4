"""The simulation of what runs in a cluster besides the API server: a kubelet
(`kubelet_sim.py`), the agent-sandbox controllers (`sandbox_controller.py`) and the garbage
collector's background part (`garbage_collector.py`), driven by store
changes and a short timer; plus `forbid` rules that refuse requests as RBAC would. Settings:
podDelaySeconds, podRules, sandboxController, forbid, gcDelaySeconds, storageClasses,
configMapRefreshSeconds, templateNetworkPolicies (see README.md)."""

from __future__ import annotations

import asyncio
import copy
import fnmatch
import logging

from garbage_collector import GarbageCollector
from kubelet_sim import POD_KEY, Kubelet, check_behavior
from objects import ObjectService
from resources import Registry
from sandbox_controller import WATCHED, SandboxController

log = logging.getLogger("kube-api.controller")

DEFAULT_CONFIG = {
    "podDelaySeconds": 0.2,     # time from pod creation to its final state
    "podRules": [],             # [{image|name|namespace: glob, behavior, exitCode, message, container}]
    "sandboxController": True,  # simulate the agent-sandbox controller
    "forbid": [],               # [{verb, resource (e.g. "pods/exec"), namespace, name}: globs] -> 403
    "gcDelaySeconds": 0,        # > 0: Background deletions' dependents go that much later (asynchronous GC)
    "storageClasses": ["standard"],  # a PersistentVolumeClaim naming another stays Pending, with an event
    "templateNetworkPolicies": True,  # False: the controller makes no NetworkPolicy for templates
    "configMapRefreshSeconds": 0,  # > 0: a pod sees a changed ConfigMap/Secret that much later (kubelet sync)
}


class Simulation:
    def __init__(self, registry: Registry, objects: ObjectService):
        self.registry = registry
        self.objects = objects
        self.config = copy.deepcopy(DEFAULT_CONFIG)
        self.kubelet = Kubelet(registry, objects, self.config, self.kick)
        self.sandboxes = SandboxController(registry, objects)
        self.sandboxes.config = self.config
        self.gc = GarbageCollector(registry, objects)
        self.on_pod_deleted = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        objects.store.add_listener(self._on_change)

    # -- configuration --------------------------------------------------------------------
    def configure(self, config: dict) -> dict:
        for key, value in config.items():
            if key not in DEFAULT_CONFIG:
                raise ValueError(f"unknown simulation setting {key!r}")
            if key == "podRules":
                for rule in value:
                    check_behavior(rule)
            self.config[key] = copy.deepcopy(value)
            if key == "gcDelaySeconds":
                self.objects.background_gc_delay = float(value)
            if key == "storageClasses":
                self.objects.storage_classes = list(value)
        self.kick()
        return self.config

    def forbids(self, verb: str, resource: str, namespace: str, name: str) -> dict | None:
        """The `forbid` rule that denies this request (RBAC or an admission policy, simulated)."""
        for rule in self.config.get("forbid") or []:
            if all(fnmatch.fnmatchcase(value, rule.get(field, "*")) for field, value in
                   (("verb", verb), ("resource", resource), ("namespace", namespace), ("name", name))):
                return rule
        return None

    def pin_pod(self, pod: dict, behavior: dict) -> dict:
        return self.kubelet.pin(pod, behavior)

    def release_pod(self, uid: str) -> None:
        self.kubelet.release(uid)
        self.kick()

    # -- loop -----------------------------------------------------------------------------
    def start(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.ensure_future(self._run())

    def kick(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _on_change(self, key, event_type, obj, old) -> None:
        if key == POD_KEY and event_type == "DELETED":
            self.kubelet.forget(obj["metadata"].get("uid"))
            if self.on_pod_deleted:
                self.on_pod_deleted(obj)
        if key in WATCHED:
            self.kick()

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), 0.25)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            try:
                self.reconcile()
            except Exception:  # keep simulating whatever one object did
                log.exception("reconcile failed")

    def reconcile(self) -> None:
        if self.config.get("sandboxController", True) and self.sandboxes.available:
            self.sandboxes.reconcile()
        self.kubelet.reconcile()
        self.gc.collect()
