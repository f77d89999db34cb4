"""The simulation of what runs in a cluster besides the API server: a kubelet
(`kubelet_sim.py`), the agent-sandbox controllers (`sandbox_controller.py`) and the garbage
collector's background part (`garbage_collector.py`), driven by store
changes and a short timer; plus `forbid` rules that refuse requests as RBAC would. Settings:
simulation, podDelaySeconds, podRules, sandboxController, forbid, gcDelaySeconds, storageClasses, defaultStorageClass,
configMapRefreshSeconds, templateNetworkPolicies (see README.md)."""

from __future__ import annotations

import asyncio
import copy
import fnmatch
import logging
import time

from garbage_collector import GarbageCollector
from kubelet_sim import POD_KEY, Kubelet, check_behavior
from objects import ObjectService
from resources import Registry
from sandbox_controller import WATCHED, SandboxController

log = logging.getLogger("kube-api.controller")

RESYNC_SECONDS = 0.25  # the timer's pass, for what no store change announces (delays, deadlines)

DEFAULT_CONFIG = {
    "simulation": True,         # False: no kubelet, controllers or garbage collector pass at all
    "podDelaySeconds": 0.2,     # time from pod creation to its final state
    "podRules": [],             # [{image|name|namespace: glob, behavior, exitCode, message, container}]
    "sandboxController": True,  # simulate the agent-sandbox controller
    "forbid": [],               # [{verb, resource (e.g. "pods/exec"), namespace, name}: globs] -> 403
    "gcDelaySeconds": 0,        # > 0: Background deletions' dependents go that much later (asynchronous GC)
    "storageClasses": ["standard"],  # a PersistentVolumeClaim naming another stays Pending, with an event
    "defaultStorageClass": "standard",  # null: a claim naming no class stays Pending (Normal FailedBinding)
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
            if key == "defaultStorageClass":
                self.objects.default_storage_class = value
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
        interval = RESYNC_SECONDS
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), interval)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            started = time.monotonic()
            try:
                self.reconcile()
            except Exception:  # keep simulating whatever one object did
                log.exception("reconcile failed")
            # A pass walks every object: with tens of thousands of them, passes back to back
            # would leave the API no time to answer (a real controller's resync is minutes).
            # Spacing them by ten times their cost keeps the simulation under a tenth of the
            # server's time; small stores keep the quarter-second resync.
            interval = max(RESYNC_SECONDS, 10 * (time.monotonic() - started))

    def reconcile(self) -> None:
        if not self.config.get("simulation", True):
            return  # an API server holding objects only: nothing runs, nothing changes them
        if self.config.get("sandboxController", True) and self.sandboxes.available:
            self.sandboxes.reconcile()
        self.kubelet.reconcile()
        self.gc.collect()
