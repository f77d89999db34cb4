"""Simulated agent-sandbox controllers (v1beta1, cold start).

A SandboxClaim whose SandboxWarmPool names a SandboxTemplate gets a Sandbox named after the
claim (owned by it) whose Pod has the same name (owned by the Sandbox), built from the
template's podTemplate. The Sandbox is Ready when its pod is Running, Ready and has an IP; the
claim forwards the Sandbox's Ready condition and `.status.sandbox.name` names it. Not-ready
reasons: WarmPoolNotFound, TemplateNotFound, SandboxNotReady (before the Sandbox reports a
condition), then the Sandbox's own, with agent-sandbox's reasons and messages: DependenciesNotReady
("Pod exists with phase: Pending", "Pod is Running but not Ready"), DependenciesReady, PodSucceeded /
PodFailed with a Finished condition for a terminal pod, ReconcilerError ("Error seen: ...") when
making the pod fails. Each template
gets the shared NetworkPolicy `<template>-network-policy`."""

from __future__ import annotations

import copy
import datetime
import logging

from api_errors import ApiError
from conditions import condition, short_hash
from objects import ObjectService
from resources import Registry

log = logging.getLogger("kube-api.agent-sandbox")

POD_KEY = ("", "pods")
SANDBOX_KEY = ("agents.x-k8s.io", "sandboxes")
CLAIM_KEY = ("extensions.agents.x-k8s.io", "sandboxclaims")
POOL_KEY = ("extensions.agents.x-k8s.io", "sandboxwarmpools")
TEMPLATE_KEY = ("extensions.agents.x-k8s.io", "sandboxtemplates")
NETPOL_KEY = ("networking.k8s.io", "networkpolicies")
PVC_KEY = ("", "persistentvolumeclaims")
WATCHED = {POD_KEY, SANDBOX_KEY, CLAIM_KEY, POOL_KEY, TEMPLATE_KEY}
AGENTS_PREFIX = "agents.x-k8s.io/"
TEMPLATE_REF_HASH = "agents.x-k8s.io/sandbox-template-ref-hash"
PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"]


def expired(shutdown_time: str | None) -> bool:
    """True when an RFC 3339 shutdownTime has passed."""
    if not shutdown_time:
        return False
    try:
        when = datetime.datetime.fromisoformat(shutdown_time.replace("Z", "+00:00"))
    except ValueError:
        return False
    return when <= datetime.datetime.now(datetime.timezone.utc)


def template_ref_hash(namespace: str, name: str) -> str:
    """The label value tying a sandbox pod to its template's NetworkPolicy."""
    return short_hash(f"{namespace}/{name}", 8)


class SandboxController:
    def __init__(self, registry: Registry, objects: ObjectService):
        self.registry = registry
        self.objects = objects

    @property
    def available(self) -> bool:
        return self.registry.by_plural(*CLAIM_KEY) is not None

    def reconcile(self) -> None:
        for template in self.objects.store.list(TEMPLATE_KEY):
            self._reconcile_template(template)
        for claim in self.objects.store.list(CLAIM_KEY):
            self._reconcile_claim(claim)
        for sandbox in self.objects.store.list(SANDBOX_KEY):
            self._reconcile_sandbox(sandbox)

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

    def _expire_claim(self, claim: dict) -> bool:
        """spec.lifecycle: at shutdownTime the claim is deleted (Delete: background cascade,
        DeleteForeground: dependents first) or, with Retain, its Sandbox is deleted and the claim
        stays, not ready (reason ClaimExpired)."""
        lifecycle = (claim.get("spec") or {}).get("lifecycle") or {}
        if claim["metadata"].get("deletionTimestamp") or not expired(lifecycle.get("shutdownTime")):
            return False
        meta = claim["metadata"]
        policy = lifecycle.get("shutdownPolicy", "Retain")
        if policy in ("Delete", "DeleteForeground"):
            self.objects.delete(self.registry.by_plural(*CLAIM_KEY), meta["namespace"], meta["name"],
                                propagation="Foreground" if policy == "DeleteForeground" else "Background")
            return True
        if self.objects.store.get(SANDBOX_KEY, meta["namespace"], meta["name"]) is not None:
            self.objects.delete(self.registry.by_plural(*SANDBOX_KEY), meta["namespace"], meta["name"])
        self._claim_not_ready(claim, "ClaimExpired", "the claim's shutdownTime has passed")
        return True

    def _reconcile_claim(self, claim: dict) -> None:
        meta = claim["metadata"]
        ns, name = meta["namespace"], meta["name"]
        store = self.objects.store
        if self._expire_claim(claim):
            return
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
        if not getattr(self, "config", {}).get("templateNetworkPolicies", True):
            return  # a controller that makes none (down for this part, or a version without it)
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
        spec = sandbox.get("spec") or {}
        if expired(spec.get("shutdownTime")) and spec.get("shutdownPolicy", "Retain") == "Delete":
            self.objects.delete(self.registry.by_plural(*SANDBOX_KEY), ns, name)
            return
        pod = self.objects.store.get(POD_KEY, ns, name)
        status = copy.deepcopy(sandbox.get("status") or {})
        name_hash = short_hash(name, 8)
        stopped = None
        if expired(spec.get("shutdownTime")):
            stopped = ("SandboxExpired", "the Sandbox's shutdownTime has passed")
        elif spec.get("operatingMode", "Running") == "Suspended":
            stopped = ("SandboxSuspended", "the Sandbox is suspended")
        if stopped is not None:  # no pod; its volume claims stay
            if pod is not None:
                self.objects.delete(self.registry.by_plural(*POD_KEY), ns, name)
            status["conditions"] = [condition("Ready", "False", stopped[0], stopped[1], status.get("conditions"),
                                              meta.get("generation"))]
            status.pop("podIPs", None)
            self._set_status(SANDBOX_KEY, sandbox, status)
            return
        self._ensure_volume_claims(sandbox)
        if pod is None:
            try:
                self._create_pod(sandbox, name_hash)
                message = "Pod is being created"
            except ApiError as err:
                # The real controller: an error of its own reconcile is ReconcilerError.
                status["conditions"] = [condition("Ready", "False", "ReconcilerError", "Error seen: " + err.message,
                                                  status.get("conditions"), meta.get("generation"))]
                self._set_status(SANDBOX_KEY, sandbox, status)
                return
            status["conditions"] = [condition("Ready", "False", "DependenciesNotReady", message,
                                              status.get("conditions"), meta.get("generation"))]
            self._set_status(SANDBOX_KEY, sandbox, status)
            return
        pstatus = pod.get("status") or {}
        pod_ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in pstatus.get("conditions") or [])
        ready = pstatus.get("phase") == "Running" and pod_ready and bool(pstatus.get("podIP"))
        phase = pstatus.get("phase", "Pending")
        finished = None
        if phase in ("Succeeded", "Failed"):
            # A terminal pod: Ready False with PodSucceeded/PodFailed, and a Finished condition.
            reason, text = (("PodSucceeded", "Pod completed successfully") if phase == "Succeeded"
                            else ("PodFailed", "Pod failed"))
            cond = condition("Ready", "False", reason, text, status.get("conditions"), meta.get("generation"))
            finished = condition("Finished", "True", reason, text, status.get("conditions"), meta.get("generation"))
        elif ready:
            cond = condition("Ready", "True", "DependenciesReady", "Pod is Ready", status.get("conditions"),
                             meta.get("generation"))
        else:
            text = "Pod is Running but not Ready" if phase == "Running" else f"Pod exists with phase: {phase}"
            cond = condition("Ready", "False", "DependenciesNotReady", text, status.get("conditions"),
                             meta.get("generation"))
        status["conditions"] = [cond] + ([finished] if finished else [])
        status["selector"] = f"agents.x-k8s.io/sandbox-name-hash={name_hash}"
        if pstatus.get("podIP"):
            status["podIPs"] = [pstatus["podIP"]]
        self._set_status(SANDBOX_KEY, sandbox, status)

    def _ensure_volume_claims(self, sandbox: dict) -> None:
        """spec.volumeClaimTemplates: a PVC `<template name>-<sandbox name>` each (owner: the
        Sandbox), made once and kept while the Sandbox exists, suspended or not."""
        meta = sandbox["metadata"]
        rt = self.registry.by_plural(*PVC_KEY)
        for vct in (sandbox.get("spec") or {}).get("volumeClaimTemplates") or []:
            vmeta = vct.get("metadata") or {}
            pvc_name = f"{vmeta.get('name', '')}-{meta['name']}"
            if self.objects.store.get(PVC_KEY, meta["namespace"], pvc_name) is not None:
                continue
            pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                   "metadata": {"name": pvc_name, "namespace": meta["namespace"],
                                "labels": dict(vmeta.get("labels") or {}),
                                "ownerReferences": [{"apiVersion": sandbox["apiVersion"], "kind": "Sandbox",
                                                     "name": meta["name"], "uid": meta["uid"], "controller": True,
                                                     "blockOwnerDeletion": True}]},
                   "spec": copy.deepcopy(vct.get("spec") or {})}
            if vmeta.get("annotations"):
                pvc["metadata"]["annotations"] = dict(vmeta["annotations"])
            try:
                self.objects.create(rt, meta["namespace"], pvc, field_validation="Ignore")
            except ApiError as err:
                log.warning("cannot create %s: %s", pvc_name, err.message)

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
        # Each volume claim template becomes a volume of the same name on the claim's PVC.
        volumes = pod["spec"].setdefault("volumes", [])
        for vct in (sandbox.get("spec") or {}).get("volumeClaimTemplates") or []:
            vname = (vct.get("metadata") or {}).get("name", "")
            volumes[:] = [v for v in volumes if v.get("name") != vname]
            volumes.append({"name": vname, "persistentVolumeClaim": {"claimName": f"{vname}-{meta['name']}"}})
        if not volumes:
            pod["spec"].pop("volumes")
        self.objects.create(self.registry.by_plural(*POD_KEY), meta["namespace"], pod, field_validation="Ignore")


