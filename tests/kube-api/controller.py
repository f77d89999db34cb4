"""Simulated kubelet and agent-sandbox controller.

Kubelet: every new Pod gets, after a short delay, the status a real node would give it: by
default Running and Ready with a pod IP; pods matching a configured rule instead wait with
ErrImagePull / ImagePullBackOff / ContainerCreating, or have a container that exits
(CrashLoopBackOff, or Failed/Succeeded with restartPolicy Never).

agent-sandbox (v1beta1, cold start): a SandboxClaim whose SandboxWarmPool names a
SandboxTemplate gets a Sandbox named after the claim (owned by it) whose Pod has the same name
(owned by the Sandbox), built from the template's podTemplate. The Sandbox is Ready when its pod
is Running, Ready and has an IP; the claim's Ready condition mirrors the Sandbox's and
`.status.sandbox.name` names it. Not-ready reasons: WarmPoolNotFound, TemplateNotFound,
SandboxNotReady (before the Sandbox reports a condition), then the Sandbox's own
(DependenciesNotReady / DependenciesReady)."""

from __future__ import annotations

import asyncio
import copy
import fnmatch
import hashlib
import logging

from api_errors import ApiError
from objects import ObjectService, now
from resources import Registry

log = logging.getLogger("kube-api.controller")

POD_KEY = ("", "pods")
SANDBOX_KEY = ("agents.x-k8s.io", "sandboxes")
CLAIM_KEY = ("extensions.agents.x-k8s.io", "sandboxclaims")
POOL_KEY = ("extensions.agents.x-k8s.io", "sandboxwarmpools")
TEMPLATE_KEY = ("extensions.agents.x-k8s.io", "sandboxtemplates")
WATCHED = {POD_KEY, SANDBOX_KEY, CLAIM_KEY, POOL_KEY, TEMPLATE_KEY}
NETPOL_KEY = ("networking.k8s.io", "networkpolicies")
AGENTS_PREFIX = "agents.x-k8s.io/"
TEMPLATE_REF_HASH = "agents.x-k8s.io/sandbox-template-ref-hash"
PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"]

BEHAVIORS = {"ready", "ErrImagePull", "ImagePullBackOff", "ContainerCreating", "pending", "exit", "CrashLoopBackOff",
             "terminated"}

DEFAULT_CONFIG = {
    "podDelaySeconds": 0.2,     # time from pod creation to its first status
    "podRules": [],             # [{image|name|namespace: glob, behavior, exitCode, message, container}]
    "sandboxController": True,  # simulate the agent-sandbox controller
    "forbid": [],               # [{verb, resource (e.g. "pods/exec"), namespace, name}: globs] -> 403
}


def _hex(seed: str, n: int) -> str:
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


class Simulation:
    def __init__(self, registry: Registry, objects: ObjectService):
        self.registry = registry
        self.objects = objects
        self.config = copy.deepcopy(DEFAULT_CONFIG)
        self.pinned: dict[str, dict] = {}      # pod uid -> behavior set by a test hook
        self._seen: dict[str, float] = {}      # pod uid -> loop time first seen
        self._times: dict[str, str] = {}       # pod uid -> start timestamp
        self._ips: dict[str, str] = {}
        self._next_ip = 10
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self.on_pod_deleted = None
        # Runs a container's command for real: async (pod, container, argv) -> (exit code, output).
        self.run_container = None
        self.store_log = None  # (namespace, pod, container, text): what `kubectl logs` shows
        self._inits: dict[str, dict] = {}  # pod uid -> progress of its init containers
        objects.store.add_listener(self._on_change)

    # -- configuration --------------------------------------------------------------------
    def configure(self, config: dict) -> dict:
        for key, value in config.items():
            if key not in DEFAULT_CONFIG:
                raise ValueError(f"unknown simulation setting {key!r}")
            if key == "podRules":
                for rule in value:
                    self._check_behavior(rule)
            self.config[key] = copy.deepcopy(value)
        self.kick()
        return self.config

    @staticmethod
    def _check_behavior(rule: dict) -> None:
        behavior = rule.get("behavior", "ready")
        if behavior not in BEHAVIORS:
            raise ValueError(f"unknown behavior {behavior!r}; one of {sorted(BEHAVIORS)}")

    def forbids(self, verb: str, resource: str, namespace: str, name: str) -> dict | None:
        """The `forbid` rule that denies this request (RBAC or an admission policy, simulated)."""
        for rule in self.config.get("forbid") or []:
            if all(fnmatch.fnmatchcase(value, rule.get(field, "*")) for field, value in
                   (("verb", verb), ("resource", resource), ("namespace", namespace), ("name", name))):
                return rule
        return None

    def pin_pod(self, pod: dict, behavior: dict) -> dict:
        """A test hook's explicit state for one pod; the simulation keeps it from then on."""
        self._check_behavior(behavior)
        uid = pod["metadata"]["uid"]
        self.pinned[uid] = behavior
        return self._apply_pod(pod, behavior)

    # -- loop -----------------------------------------------------------------------------
    def start(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.ensure_future(self._run())

    def kick(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _on_change(self, key, event_type, obj, old) -> None:
        if key == POD_KEY and event_type == "DELETED":
            uid = obj["metadata"].get("uid")
            for table in (self.pinned, self._seen, self._times, self._ips):
                table.pop(uid, None)
            init = self._inits.pop(uid, None)
            if init and init.get("task") and not init["task"].done():
                init["task"].cancel()
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
        if self.config.get("sandboxController", True) and self.registry.by_plural(*CLAIM_KEY):
            for template in self.objects.store.list(TEMPLATE_KEY):
                self._reconcile_template(template)
            for claim in self.objects.store.list(CLAIM_KEY):
                self._reconcile_claim(claim)
            for sandbox in self.objects.store.list(SANDBOX_KEY):
                self._reconcile_sandbox(sandbox)
        loop = asyncio.get_running_loop()
        for pod in self.objects.store.list(POD_KEY):
            uid = pod["metadata"]["uid"]
            if uid in self.pinned:
                continue
            first = self._seen.setdefault(uid, loop.time())
            if loop.time() - first < float(self.config.get("podDelaySeconds", 0)):
                # Scheduled, containers being created: what a real node reports first.
                self._apply_pod(pod, {"behavior": "ContainerCreating"})
                continue
            behavior = self._behavior_for(pod)
            init = self._init_progress(pod) if behavior.get("behavior", "ready") == "ready" else None
            if init is not None and init["done"] < len(pod["spec"]["initContainers"]):
                self._put_status(pod, self.init_status(pod, init))
            else:
                self._apply_pod(pod, behavior)

    # -- init containers ------------------------------------------------------------------
    def _init_progress(self, pod: dict) -> dict | None:
        """Init containers run for real, one after the other, before the pod can be ready."""
        inits = (pod.get("spec") or {}).get("initContainers") or []
        if not inits:
            return None
        uid = pod["metadata"]["uid"]
        state = self._inits.get(uid)
        if state is None:
            state = {"done": 0, "running": None, "failed": None, "finished": {}}
            self._inits[uid] = state
            state["task"] = asyncio.ensure_future(self._run_inits(pod, state))
        return state

    async def _run_inits(self, pod: dict, state: dict) -> None:
        meta = pod["metadata"]
        for i, container in enumerate(pod["spec"]["initContainers"]):
            state["running"] = i
            self.kick()
            argv = list(container.get("command") or []) + list(container.get("args") or [])
            if argv and self.run_container is not None:
                try:
                    code, output = await self.run_container(pod, container, argv)
                except Exception as exc:  # a broken pod directory must not stop the simulation
                    log.exception("init container %s of %s failed to run", container.get("name"), meta["name"])
                    code, output = 128, str(exc).encode()
            else:
                code, output = 0, b""  # no command: the image's entrypoint is not run here
            if self.store_log:
                self.store_log(meta["namespace"], meta["name"], container.get("name", ""),
                               output.decode("utf-8", "replace"))
            state["finished"][i] = (code, now())
            state["running"] = None
            if code != 0:
                state["failed"] = (i, code)
                self.kick()
                return
            state["done"] = i + 1
        self.kick()

    def init_status(self, pod: dict, state: dict) -> dict:
        """Pending while init containers run (main containers PodInitializing); an init container
        that failed is in CrashLoopBackOff, or terminated with the pod Failed under restartPolicy Never."""
        meta, spec = pod["metadata"], pod.get("spec", {})
        uid = meta["uid"]
        started = self._times.setdefault(uid, now())
        never = spec.get("restartPolicy", "Always") == "Never"
        failed = state.get("failed")
        statuses = []
        for i, c in enumerate(spec.get("initContainers") or []):
            st = {"name": c.get("name"), "image": c.get("image", ""), "imageID": "", "ready": False,
                  "restartCount": 0, "started": False, "lastState": {}}
            if i in state["finished"]:
                code, finished = state["finished"][i]
                terminated = {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                              "startedAt": started, "finishedAt": finished,
                              "containerID": f"containerd://{_hex(uid + 'init' + str(i), 64)}"}
                if code != 0 and not never:
                    st["state"] = {"waiting": {"reason": "CrashLoopBackOff",
                                               "message": f"back-off 10s restarting failed container={c.get('name')} "
                                                          f"pod={meta['name']}_{meta.get('namespace')}({uid})"}}
                    st["lastState"] = {"terminated": terminated}
                    st["restartCount"] = 1
                else:
                    st["state"] = {"terminated": terminated}
                    st["ready"] = code == 0
            elif state.get("running") == i:
                st.update(started=True, state={"running": {"startedAt": started}})
            else:
                st["state"] = {"waiting": {"reason": "PodInitializing"}}
            statuses.append(st)
        main = [{"name": c.get("name"), "image": c.get("image", ""), "imageID": "", "ready": False,
                 "restartCount": 0, "started": False, "lastState": {}, "state": {"waiting": {"reason": "PodInitializing"}}}
                for c in spec.get("containers") or []]
        incomplete = [st["name"] for st in statuses if not st["ready"]]
        previous = (pod.get("status") or {}).get("conditions") or []
        not_ready = f"containers with unready status: [{' '.join(c['name'] for c in main)}]"
        conditions = []
        for type_, state_, reason, message in (
                ("PodReadyToStartContainers", "True", "", ""),
                ("Initialized", "False", "ContainersNotInitialized",
                 f"containers with incomplete status: [{' '.join(incomplete)}]"),
                ("Ready", "False", "ContainersNotReady", not_ready),
                ("ContainersReady", "False", "ContainersNotReady", not_ready),
                ("PodScheduled", "True", "", "")):
            c = condition(type_, state_, reason, message, previous)
            c["lastProbeTime"] = None
            if not reason:
                c.pop("reason")
                c.pop("message")
            conditions.append(c)
        ip = self._pod_ip(uid)
        return {"phase": "Failed" if failed and never else "Pending", "conditions": conditions,
                "hostIP": "10.0.0.10", "hostIPs": [{"ip": "10.0.0.10"}], "podIP": ip, "podIPs": [{"ip": ip}],
                "startTime": started, "initContainerStatuses": statuses, "containerStatuses": main,
                "qosClass": (pod.get("status") or {}).get("qosClass", "BestEffort")}

    def _put_status(self, pod: dict, status: dict) -> None:
        current = self.objects.store.get(POD_KEY, pod["metadata"]["namespace"], pod["metadata"]["name"])
        if current is None or current["metadata"].get("uid") != pod["metadata"]["uid"]:
            return
        if current.get("status") == status and current["spec"].get("nodeName"):
            return
        current["spec"].setdefault("nodeName", "kube-api-test-node")
        current["status"] = status
        self.objects.store.put(POD_KEY, current)

    # -- kubelet --------------------------------------------------------------------------
    def _behavior_for(self, pod: dict) -> dict:
        meta = pod["metadata"]
        images = [c.get("image", "") for c in pod.get("spec", {}).get("containers") or []]
        for rule in self.config.get("podRules") or []:
            if "image" in rule and not any(fnmatch.fnmatchcase(i, rule["image"]) for i in images):
                continue
            if "name" in rule and not fnmatch.fnmatchcase(meta["name"], rule["name"]):
                continue
            if "namespace" in rule and not fnmatch.fnmatchcase(meta.get("namespace", ""), rule["namespace"]):
                continue
            return rule
        return {"behavior": "ready"}

    def _pod_ip(self, uid: str) -> str:
        if uid not in self._ips:
            self._next_ip += 1
            self._ips[uid] = f"10.244.{self._next_ip // 250}.{self._next_ip % 250 + 2}"
        return self._ips[uid]

    def _apply_pod(self, pod: dict, behavior: dict) -> dict:
        status = self.pod_status(pod, behavior)
        current = self.objects.find(self.registry.by_plural(*POD_KEY), pod["metadata"]["namespace"],
                                    pod["metadata"]["name"])
        if current is None:
            return pod
        changed = current.get("status") != status or not current["spec"].get("nodeName")
        if not changed:
            return current
        current["spec"].setdefault("nodeName", "kube-api-test-node")
        current["status"] = status
        return self.objects.store.put(POD_KEY, current)

    def pod_status(self, pod: dict, behavior: dict) -> dict:
        meta, spec = pod["metadata"], pod.get("spec", {})
        uid = meta["uid"]
        started = self._times.setdefault(uid, now())
        previous = (pod.get("status") or {}).get("conditions") or []
        kind = behavior.get("behavior", "ready")
        containers = spec.get("containers") or []
        target = behavior.get("container")
        if not target:
            image_glob = behavior.get("image")
            match = next((c for c in containers if image_glob and fnmatch.fnmatchcase(c.get("image", ""), image_glob)),
                         None)
            target = (match or (containers[0] if containers else {})).get("name")
        ip = self._pod_ip(uid)
        statuses = []
        all_ready = True
        phase = "Running"
        restart_policy = spec.get("restartPolicy", "Always")
        for c in containers:
            image = c.get("image", "")
            base = {"name": c.get("name"), "image": image, "imageID": "", "restartCount": 0, "started": False,
                    "ready": False, "lastState": {}}
            if c.get("name") != target or kind == "ready":
                base.update(ready=True, started=True, state={"running": {"startedAt": started}},
                            imageID=f"{image.split('@')[0].split(':')[0]}@sha256:{_hex(image, 64)}",
                            containerID=f"containerd://{_hex(uid + c.get('name', ''), 64)}")
            elif kind in ("ErrImagePull", "ImagePullBackOff"):
                default = (f'rpc error: code = NotFound desc = failed to pull and unpack image "{_qualify(image)}": '
                           f'failed to resolve reference "{_qualify(image)}": {_qualify(image)}: not found'
                           if kind == "ErrImagePull" else f'Back-off pulling image "{image}"')
                base["state"] = {"waiting": {"reason": kind, "message": behavior.get("message", default)}}
                phase = "Pending"
            elif kind in ("ContainerCreating", "pending"):
                base["state"] = {"waiting": {"reason": behavior.get("reason", "ContainerCreating")}}
                if behavior.get("message"):
                    base["state"]["waiting"]["message"] = behavior["message"]
                phase = "Pending"
            else:  # a container that exits
                code = int(behavior.get("exitCode", 1))
                terminated = {"exitCode": code, "reason": behavior.get("reason", "Completed" if code == 0 else "Error"),
                              "startedAt": started, "finishedAt": started,
                              "containerID": f"containerd://{_hex(uid + 'exit', 64)}"}
                if behavior.get("message"):
                    terminated["message"] = behavior["message"]
                base["imageID"] = f"{image.split('@')[0].split(':')[0]}@sha256:{_hex(image, 64)}"
                if kind == "terminated" or restart_policy == "Never" or (restart_policy == "OnFailure" and code == 0):
                    base["state"] = {"terminated": terminated}
                    phase = "Succeeded" if code == 0 else "Failed"
                else:
                    base["state"] = {"waiting": {
                        "reason": "CrashLoopBackOff",
                        "message": f"back-off 10s restarting failed container={c.get('name')} "
                                   f"pod={meta['name']}_{meta.get('namespace')}({uid})"}}
                    base["lastState"] = {"terminated": terminated}
                    base["restartCount"] = int(behavior.get("restartCount", 1))
            if not base["ready"]:
                all_ready = False
            statuses.append(base)
        not_ready = [s["name"] for s in statuses if not s["ready"]]
        reason = "" if all_ready else "ContainersNotReady"
        message = "" if all_ready else f"containers with unready status: [{' '.join(not_ready)}]"
        ready_state = "True" if all_ready and phase == "Running" else "False"
        if phase in ("Succeeded", "Failed"):
            reason = "PodCompleted"
            message = ""
        conditions = []
        for type_, state, r, m in (("PodReadyToStartContainers", "True", "", ""), ("Initialized", "True", "", ""),
                                   ("Ready", ready_state, reason, message),
                                   ("ContainersReady", ready_state, reason, message),
                                   ("PodScheduled", "True", "", "")):
            c = condition(type_, state, r, m, previous)
            c["lastProbeTime"] = None
            if not r:
                c.pop("reason")
            if not m:
                c.pop("message")
            conditions.append(c)
        status = {"phase": phase, "conditions": conditions, "hostIP": "10.0.0.10", "hostIPs": [{"ip": "10.0.0.10"}],
                  "podIP": ip, "podIPs": [{"ip": ip}], "startTime": started, "containerStatuses": statuses,
                  "qosClass": (pod.get("status") or {}).get("qosClass", "BestEffort")}
        if spec.get("initContainers"):
            finished = (self._inits.get(uid) or {}).get("finished") or {}
            status["initContainerStatuses"] = [
                {"name": c.get("name"), "image": c.get("image"), "imageID": "", "ready": True, "restartCount": 0,
                 "started": False, "lastState": {},
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": started,
                                          "finishedAt": finished.get(i, (0, started))[1]}}}
                for i, c in enumerate(spec["initContainers"])]
        return status

    # -- agent-sandbox --------------------------------------------------------------------
    def _set_status(self, key, obj: dict, status: dict) -> None:
        rt = self.registry.by_plural(*key)
        if obj.get("status") != status:
            self.objects.set_status(rt, obj["metadata"]["namespace"], obj["metadata"]["name"], status)

    def _claim_not_ready(self, claim: dict, reason: str, message: str, sandbox_name: str | None = None) -> None:
        status = copy.deepcopy(claim.get("status") or {})
        status["conditions"] = [condition("Ready", "False", reason, message, status.get("conditions"),
                                          claim["metadata"].get("generation"))]
        if sandbox_name:
            status["sandbox"] = {"name": sandbox_name}
        self._set_status(CLAIM_KEY, claim, status)

    def _reconcile_claim(self, claim: dict) -> None:
        meta = claim["metadata"]
        ns, name = meta["namespace"], meta["name"]
        store = self.objects.store
        pool_name = ((claim.get("spec") or {}).get("warmPoolRef") or {}).get("name", "")
        pool = store.get(POOL_KEY, ns, pool_name)
        if pool is None:
            return self._claim_not_ready(claim, "WarmPoolNotFound", f'SandboxWarmPool "{pool_name}" not found')
        template_name = ((pool.get("spec") or {}).get("sandboxTemplateRef") or {}).get("name", "")
        template = store.get(TEMPLATE_KEY, ns, template_name)
        if template is None:
            return self._claim_not_ready(claim, "TemplateNotFound", f'SandboxTemplate "{template_name}" not found')
        sandbox = store.get(SANDBOX_KEY, ns, name)
        if sandbox is None:
            try:
                self._create_sandbox(claim, template)
            except ApiError as err:
                return self._claim_not_ready(claim, "SandboxCreateFailed", err.message)
            return self._claim_not_ready(claim, "SandboxNotReady", "Sandbox is not ready", name)
        if not any(r.get("uid") == meta["uid"] for r in sandbox["metadata"].get("ownerReferences") or []):
            return self._claim_not_ready(claim, "ReconcilerError",
                                         f'Sandbox "{name}" exists and is not owned by this claim')
        sb_ready = next((c for c in (sandbox.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"),
                        None)
        status = copy.deepcopy(claim.get("status") or {})
        if sb_ready:  # agent-sandbox forwards the Sandbox's Ready condition
            cond = condition("Ready", sb_ready.get("status", "Unknown"), sb_ready.get("reason", "SandboxNotReady"),
                             sb_ready.get("message", ""), status.get("conditions"), meta.get("generation"))
        else:
            cond = condition("Ready", "False", "SandboxNotReady", "Sandbox is not ready", status.get("conditions"),
                             meta.get("generation"))
        status["conditions"] = [cond]
        status["sandbox"] = {"name": name}
        ips = (sandbox.get("status") or {}).get("podIPs")
        if ips:
            status["sandbox"]["podIPs"] = ips
        self._set_status(CLAIM_KEY, claim, status)

    def _reconcile_template(self, template: dict) -> None:
        """The template's shared NetworkPolicy `<template>-network-policy` (owned by the template)
        for the pods made from it: the template's own rules, or agent-sandbox's default (ingress
        from the sandbox router only, egress to public addresses only)."""
        meta = template["metadata"]
        spec = template.get("spec") or {}
        rt = self.registry.by_plural(*NETPOL_KEY)
        name = meta["name"] + "-network-policy"
        existing = self.objects.store.get(NETPOL_KEY, meta["namespace"], name)
        if spec.get("networkPolicyManagement", "Managed") == "Unmanaged":
            if existing is not None:
                self.objects.delete(rt, meta["namespace"], name)
            return
        custom = spec.get("networkPolicy")
        desired = {
            "podSelector": {"matchLabels": {TEMPLATE_REF_HASH: template_ref_hash(meta["namespace"], meta["name"])}},
            "policyTypes": ["Ingress", "Egress"],
        }
        if custom is None:
            desired["ingress"] = [{"from": [{"podSelector": {"matchLabels": {"app": "sandbox-router"}}}]}]
            desired["egress"] = [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": PRIVATE_RANGES}},
                                         {"ipBlock": {"cidr": "::/0", "except": ["fc00::/7"]}}]}]
        else:
            for field in ("ingress", "egress"):
                if custom.get(field) is not None:
                    desired[field] = copy.deepcopy(custom[field])
        for rule in (desired.get("ingress") or []) + (desired.get("egress") or []):
            for port in rule.get("ports") or []:
                port.setdefault("protocol", "TCP")
        if existing is not None:
            if existing.get("spec") != desired:
                existing["spec"] = desired
                self.objects.store.put(NETPOL_KEY, existing)
            return
        policy = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                  "metadata": {"name": name, "namespace": meta["namespace"],
                               "ownerReferences": [{"apiVersion": template["apiVersion"], "kind": "SandboxTemplate",
                                                    "name": meta["name"], "uid": meta["uid"], "controller": True,
                                                    "blockOwnerDeletion": True}]},
                  "spec": desired}
        try:
            self.objects.create(rt, meta["namespace"], policy, field_validation="Ignore")
        except ApiError as err:
            log.warning("cannot create %s: %s", name, err.message)

    def _create_sandbox(self, claim: dict, template: dict) -> None:
        meta = claim["metadata"]
        pod_template = copy.deepcopy((template.get("spec") or {}).get("podTemplate") or {})
        pt_meta = pod_template.setdefault("metadata", {})
        for field in ("labels", "annotations"):
            values = {k: v for k, v in (pt_meta.get(field) or {}).items() if not k.startswith(AGENTS_PREFIX)}
            extra = ((claim.get("spec") or {}).get("additionalPodMetadata") or {}).get(field) or {}
            values.update(extra)
            if field == "labels":
                values[TEMPLATE_REF_HASH] = template_ref_hash(meta["namespace"], template["metadata"]["name"])
            if values:
                pt_meta[field] = values
            else:
                pt_meta.pop(field, None)
        pod_spec = pod_template.setdefault("spec", {})
        pod_spec.setdefault("automountServiceAccountToken", False)
        sandbox = {
            "apiVersion": "agents.x-k8s.io/v1beta1", "kind": "Sandbox",
            "metadata": {"name": meta["name"], "namespace": meta["namespace"],
                         "labels": {"agents.x-k8s.io/claim-uid": meta["uid"]},
                         "ownerReferences": [{"apiVersion": claim["apiVersion"], "kind": "SandboxClaim",
                                              "name": meta["name"], "uid": meta["uid"], "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": {"podTemplate": pod_template},
        }
        vct = (template.get("spec") or {}).get("volumeClaimTemplates")
        if vct:
            sandbox["spec"]["volumeClaimTemplates"] = copy.deepcopy(vct)
        self.objects.create(self.registry.by_plural(*SANDBOX_KEY), meta["namespace"], sandbox,
                            field_validation="Strict")

    def _reconcile_sandbox(self, sandbox: dict) -> None:
        meta = sandbox["metadata"]
        ns, name = meta["namespace"], meta["name"]
        pod = self.objects.store.get(POD_KEY, ns, name)
        status = copy.deepcopy(sandbox.get("status") or {})
        name_hash = _hex(name, 8)
        if pod is None:
            try:
                self._create_pod(sandbox, name_hash)
                message = "Pod is being created"
            except ApiError as err:
                message = err.message
            status["conditions"] = [condition("Ready", "False", "DependenciesNotReady", message,
                                              status.get("conditions"), meta.get("generation"))]
            self._set_status(SANDBOX_KEY, sandbox, status)
            return
        pstatus = pod.get("status") or {}
        pod_ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in pstatus.get("conditions") or [])
        ready = pstatus.get("phase") == "Running" and pod_ready and bool(pstatus.get("podIP"))
        if ready:
            cond = condition("Ready", "True", "DependenciesReady", "Pod is Ready", status.get("conditions"),
                             meta.get("generation"))
        else:
            cond = condition("Ready", "False", "DependenciesNotReady",
                             f"Pod exists with phase: {pstatus.get('phase', 'Pending')}; Pod is not Ready",
                             status.get("conditions"), meta.get("generation"))
        status["conditions"] = [cond]
        status["selector"] = f"agents.x-k8s.io/sandbox-name-hash={name_hash}"
        if pstatus.get("podIP"):
            status["podIPs"] = [pstatus["podIP"]]
        self._set_status(SANDBOX_KEY, sandbox, status)

    def _create_pod(self, sandbox: dict, name_hash: str) -> None:
        meta = sandbox["metadata"]
        template = copy.deepcopy((sandbox.get("spec") or {}).get("podTemplate") or {})
        pt_meta = template.get("metadata") or {}
        labels = dict(pt_meta.get("labels") or {})
        labels["agents.x-k8s.io/sandbox-name-hash"] = name_hash
        pod = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": meta["name"], "namespace": meta["namespace"], "labels": labels,
                         "ownerReferences": [{"apiVersion": sandbox["apiVersion"], "kind": "Sandbox",
                                              "name": meta["name"], "uid": meta["uid"], "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": template.get("spec") or {},
        }
        if pt_meta.get("annotations"):
            pod["metadata"]["annotations"] = dict(pt_meta["annotations"])
        self.objects.create(self.registry.by_plural(*POD_KEY), meta["namespace"], pod, field_validation="Ignore")


def template_ref_hash(namespace: str, name: str) -> str:
    """The label value tying a sandbox pod to its template's NetworkPolicy."""
    return _hex(f"{namespace}/{name}", 8)


def _qualify(image: str) -> str:
    """docker.io/library/x:latest for a short image name, as containerd reports it."""
    name = image
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = "docker.io/library/" + name
    elif "." not in first and ":" not in first and first != "localhost":
        name = "docker.io/" + name
    last = name.rsplit("/", 1)[-1]
    if ":" not in last and "@" not in last:
        name += ":latest"
    return name
