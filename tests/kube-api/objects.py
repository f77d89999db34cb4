"""The object service: create, get, list, replace, patch and delete with the API server's
semantics (system metadata, defaulting, status subresource, dry run, owner-reference garbage
collection). The HTTP handlers, the test hooks and the controller simulation all go through it."""

from __future__ import annotations

import base64
import copy
import datetime
import ipaddress
import random
import uuid

import api_errors
import paging
import pod_security
from api_errors import ApiError, bad_request
from label_selectors import FieldSelector, LabelSelector
from patching import apply_patch
from resources import Registry, ResourceType
from store import Store, clone
from validation import Admission

GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
NAMESPACE_KEY = ("", "namespaces")


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _image_pull_policy(image: str) -> str:
    last = image.rsplit("/", 1)[-1]
    if "@" in last:
        return "IfNotPresent"
    if ":" not in last or last.endswith(":latest"):
        return "Always"
    return "IfNotPresent"


def _qos_class(spec: dict) -> str:
    containers = spec.get("containers") or []
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") or {}
        requests, limits = res.get("requests") or {}, res.get("limits") or {}
        if requests or limits:
            any_set = True
        for r in ("cpu", "memory"):
            limit = limits.get(r)
            request = requests.get(r, limit)
            if limit is None or str(request) != str(limit):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


class ObjectService:
    def __init__(self, registry: Registry, store: Store, admission: Admission):
        self.registry = registry
        self.store = store
        self.admission = admission
        self._service_ips = (str(ipaddress.ip_address("10.96.0.10") + i) for i in range(1, 60000))
        # > 0: a Background deletion leaves its dependents to the background garbage collector
        # (garbage_collector.py), which removes them this many seconds later, as a real cluster's
        # asynchronous collector does; 0: they go at once.
        self.background_gc_delay = 0.0
        # The cluster's StorageClasses: a claim naming another stays Pending, with the event the
        # volume controller records for it.
        self.storage_classes = ["standard"]
        # The class a claim naming none gets (the cluster's default StorageClass); None: the
        # cluster has no default, so such a claim binds only to a matching PersistentVolume,
        # of which the simulation has none.
        self.default_storage_class: str | None = "standard"
        for ns in NAMESPACES:
            self._create_namespace(ns)

    # -- helpers --------------------------------------------------------------------------
    def _create_namespace(self, name: str) -> None:
        rt = self.registry.by_plural("", "namespaces")
        obj = {"apiVersion": "v1", "kind": "Namespace",
               "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
               "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
        self._stamp_new(rt, obj)
        self.store.put(rt.key, obj)
        self._ensure_default_service_account(name)

    def _ensure_default_service_account(self, namespace: str) -> None:
        sa = self.registry.by_plural("", "serviceaccounts")
        if sa is None or self.store.get(sa.key, namespace, "default") is not None:
            return
        obj = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": namespace}}
        self._stamp_new(sa, obj)
        self.store.put(sa.key, obj)

    def namespace_exists(self, namespace: str) -> bool:
        return self.store.get(NAMESPACE_KEY, "", namespace) is not None

    def _stamp_new(self, rt: ResourceType, obj: dict) -> None:
        meta = obj.setdefault("metadata", {})
        meta["uid"] = str(uuid.uuid4())
        meta["creationTimestamp"] = now()
        if rt.has_generation:
            meta["generation"] = 1
        meta.pop("resourceVersion", None)
        meta.pop("deletionTimestamp", None)
        meta.pop("selfLink", None)
        meta.pop("managedFields", None)

    # -- reads ----------------------------------------------------------------------------
    def get(self, rt: ResourceType, namespace: str, name: str) -> dict:
        obj = self.store.get(rt.key, namespace if rt.namespaced else "", name)
        if obj is None:
            raise api_errors.not_found(rt.group, rt.plural, name)
        return obj

    def find(self, rt: ResourceType, namespace: str, name: str) -> dict | None:
        return self.store.get(rt.key, namespace if rt.namespaced else "", name)

    def list(self, rt: ResourceType, namespace: str | None, labels: str | None = None,
             fields: str | None = None, shared: bool = False, limit: str | None = None,
             continue_token: str | None = None) -> dict:
        """The matching objects; with `shared` the stored objects themselves (the caller only
        encodes them), else copies. With `limit` (and `continue`), one page, as the real API
        server pages a list read from etcd (paging.py)."""
        label_sel = LabelSelector.parse(labels)
        field_sel = FieldSelector.parse(fields)
        field_sel.check_supported(rt.group, rt.plural)
        page = paging.Page.of_request(limit, continue_token, self.store.resource_version)
        within = namespace if rt.namespaced else None
        scanned = self.store.scan(rt.key, within)
        items, more, remaining = page.select(
            scanned, lambda o: label_sel.matches(o["metadata"].get("labels")) and field_sel.matches(o),
            counts_remaining=not labels and not fields, in_namespace=within is not None)
        if not shared:
            items = [clone(o) for o in items]
        metadata = {"resourceVersion": str(page.resource_version)}
        if more is not None:
            metadata["continue"] = more
            if remaining is not None:
                metadata["remainingItemCount"] = remaining
        return {"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": metadata, "items": items}

    # -- writes ---------------------------------------------------------------------------
    def _check_identity(self, rt: ResourceType, obj: dict, namespace: str) -> None:
        if not isinstance(obj, dict):
            raise bad_request("the body of the request must be a JSON object")
        kind = obj.get("kind")
        api_version = obj.get("apiVersion")
        if kind and kind != rt.kind:
            raise bad_request(f"the object provided is unrecognized (must be of type {rt.kind}): "
                              f"couldn't get version/kind; json parse error (kind {kind})")
        if api_version and api_version != rt.api_version:
            raise bad_request(f'the API version in the data ({api_version}) does not match the expected API '
                              f'version ({rt.api_version})')
        obj["kind"] = rt.kind
        obj["apiVersion"] = rt.api_version
        meta = obj.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise bad_request("metadata must be an object")
        if rt.namespaced:
            if meta.get("namespace") and meta["namespace"] != namespace:
                raise bad_request("the namespace of the provided object does not match the namespace sent on the request")
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)

    def create(self, rt: ResourceType, namespace: str, obj: dict, *, dry_run: bool = False,
               field_validation: str | None = None) -> tuple[dict, list[str]]:
        obj = copy.deepcopy(obj)
        self._check_identity(rt, obj, namespace)
        meta = obj["metadata"]
        if meta.get("resourceVersion"):
            raise bad_request("resourceVersion should not be set on objects to be created")
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + "".join(random.choice(GENERATE_ALPHABET) for _ in range(5))
        if rt.namespaced and not self.namespace_exists(namespace):
            raise api_errors.not_found("", "namespaces", namespace)
        obj, warnings = self.admission.admit(rt, obj, field_validation)
        meta = obj["metadata"]
        if rt.key == ("", "pods"):
            self._admit_pod_security(namespace, obj)
        if self.find(rt, namespace, meta["name"]) is not None:
            raise api_errors.already_exists(rt.group, rt.plural, meta["name"])
        self._stamp_new(rt, obj)
        self._default_on_create(rt, obj)
        if dry_run:
            return obj, warnings
        stored = self.store.put(rt.key, obj)
        if rt.key == NAMESPACE_KEY:
            self._ensure_default_service_account(meta["name"])
        if rt.key == ("", "persistentvolumeclaims") and obj["status"]["phase"] == "Pending":
            if obj["spec"].get("storageClassName"):
                self._record_event(obj, "Warning", "ProvisioningFailed",
                                   f'storageclass.storage.k8s.io "{obj["spec"]["storageClassName"]}" not found')
            else:
                # No class, and no PersistentVolume to bind: the volume controller says so with
                # a Normal event (kubectl describe shows it; nothing marks it as a problem).
                self._record_event(obj, "Normal", "FailedBinding",
                                   "no persistent volumes available for this claim and no storage class is set")
        return stored, warnings

    def _record_event(self, about: dict, event_type: str, reason: str, message: str) -> None:
        """An Event about `about`, as a controller records one (`kubectl describe` shows them)."""
        meta = about["metadata"]
        stamp = now()
        event = {"apiVersion": "v1", "kind": "Event",
                 "metadata": {"name": f"{meta['name']}.{random.randrange(16 ** 12):012x}",
                              "namespace": meta["namespace"]},
                 "involvedObject": {"apiVersion": about.get("apiVersion", "v1"), "kind": about["kind"],
                                    "name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"]},
                 "type": event_type, "reason": reason, "message": message, "count": 1,
                 "firstTimestamp": stamp, "lastTimestamp": stamp,
                 "source": {"component": "persistentvolume-controller"}}
        rt = self.registry.by_plural("", "events")
        self._stamp_new(rt, event)
        self.store.put(rt.key, event)

    def _admit_pod_security(self, namespace: str, pod: dict) -> None:
        """Pod Security admission: the namespace's enforce level (pod_security.py)."""
        level = pod_security.enforced_level(self.store.get(NAMESPACE_KEY, "", namespace))
        reasons = pod_security.violations(pod, level)
        if reasons:
            raise ApiError(403, "Forbidden", f'pods "{pod["metadata"].get("name", "")}" is forbidden: violates '
                                             f'PodSecurity "{level}:latest": {", ".join(reasons)}',
                           {"name": pod["metadata"].get("name", ""), "kind": "pods"})

    def _default_on_create(self, rt: ResourceType, obj: dict) -> None:
        kind = rt.key
        if kind == ("", "secrets"):
            data = obj.setdefault("data", {})
            for k, v in (obj.pop("stringData", None) or {}).items():
                data[k] = base64.b64encode(v.encode()).decode()
            obj.setdefault("type", "Opaque")
            if not data:
                obj.pop("data")
        elif kind == ("", "pods"):
            self._default_pod(obj)
        elif kind == ("", "services"):
            spec = obj.setdefault("spec", {})
            spec.setdefault("type", "ClusterIP")
            if spec["type"] in ("ClusterIP", "NodePort", "LoadBalancer") and not spec.get("clusterIP"):
                spec["clusterIP"] = next(self._service_ips)
            if spec.get("clusterIP"):
                spec.setdefault("clusterIPs", [spec["clusterIP"]])
            spec.setdefault("sessionAffinity", "None")
            spec.setdefault("ipFamilies", ["IPv4"])
            spec.setdefault("ipFamilyPolicy", "SingleStack")
            spec.setdefault("internalTrafficPolicy", "Cluster")
            for p in spec.get("ports") or []:
                p.setdefault("protocol", "TCP")
                p.setdefault("targetPort", p.get("port"))
            obj["status"] = {"loadBalancer": {}}
        elif kind == ("", "persistentvolumeclaims"):
            spec = obj.setdefault("spec", {})
            spec.setdefault("volumeMode", "Filesystem")
            if "storageClassName" not in spec and self.default_storage_class:
                spec["storageClassName"] = self.default_storage_class
            spec["volumeName"] = f"pvc-{obj['metadata']['uid']}"
            request = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "1Gi")
            if spec.get("storageClassName") in self.storage_classes:
                obj["status"] = {"phase": "Bound", "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                                 "capacity": {"storage": request}}
            else:
                spec.pop("volumeName")
                obj["status"] = {"phase": "Pending"}
        elif kind == ("networking.k8s.io", "networkpolicies"):
            spec = obj.setdefault("spec", {})
            spec.setdefault("podSelector", {})
            for rule in (spec.get("ingress") or []) + (spec.get("egress") or []):
                for port in rule.get("ports") or []:
                    port.setdefault("protocol", "TCP")
            if not spec.get("policyTypes"):
                spec["policyTypes"] = ["Ingress"] + (["Egress"] if spec.get("egress") else [])
        elif kind == NAMESPACE_KEY:
            obj.setdefault("spec", {"finalizers": ["kubernetes"]})
            obj["status"] = {"phase": "Active"}
            obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"]["name"]
        elif rt.is_custom and "status" in rt.subresources:
            obj.pop("status", None)

    def _default_pod(self, obj: dict) -> None:
        spec = obj.setdefault("spec", {})
        spec.setdefault("restartPolicy", "Always")
        spec.setdefault("dnsPolicy", "ClusterFirst")
        spec.setdefault("schedulerName", "default-scheduler")
        spec.setdefault("terminationGracePeriodSeconds", 30)
        spec.setdefault("securityContext", {})
        spec.setdefault("serviceAccountName", spec.get("serviceAccount", "default"))
        spec.setdefault("serviceAccount", spec["serviceAccountName"])
        spec.setdefault("enableServiceLinks", True)
        spec.setdefault("priority", 0)
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
        for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
            c.setdefault("imagePullPolicy", _image_pull_policy(c.get("image", "")))
            c.setdefault("terminationMessagePath", "/dev/termination-log")
            c.setdefault("terminationMessagePolicy", "File")
            c.setdefault("resources", {})
            for p in c.get("ports") or []:
                p.setdefault("protocol", "TCP")
        obj["status"] = {"phase": "Pending", "qosClass": _qos_class(spec)}

    def replace(self, rt: ResourceType, namespace: str, name: str, obj: dict, *, subresource: str | None = None,
                dry_run: bool = False, field_validation: str | None = None, current: dict | None = None,
                create_if_missing: bool = False) -> tuple[dict, list[str], bool]:
        """PUT semantics. Returns (object, warnings, created)."""
        obj = copy.deepcopy(obj)
        self._check_identity(rt, obj, namespace)
        meta = obj["metadata"]
        if meta.get("name") and meta["name"] != name:
            raise bad_request(f'the name of the object ({meta["name"]}) does not match the name on the URL ({name})')
        meta["name"] = name
        if current is None:
            current = self.find(rt, namespace, name)
        if current is None:
            if create_if_missing and subresource is None:
                meta.pop("resourceVersion", None)
                created, warnings = self.create(rt, namespace, obj, dry_run=dry_run, field_validation=field_validation)
                return created, warnings, True
            raise api_errors.not_found(rt.group, rt.plural, name)
        if meta.get("resourceVersion") and meta["resourceVersion"] != current["metadata"]["resourceVersion"]:
            raise api_errors.conflict(rt.group, rt.plural, name)
        if subresource == "status":
            merged = copy.deepcopy(current)
            if "status" in obj:
                merged["status"] = obj["status"]
            else:
                merged.pop("status", None)
            obj = merged
        elif "status" in rt.subresources:
            if "status" in current:
                obj["status"] = copy.deepcopy(current["status"])
            else:
                obj.pop("status", None)
        obj, warnings = self.admission.admit(rt, obj, field_validation)
        meta = obj["metadata"]
        # System metadata is the server's.
        for key in ("uid", "creationTimestamp", "generation", "deletionTimestamp"):
            if key in current["metadata"]:
                meta[key] = current["metadata"][key]
            else:
                meta.pop(key, None)
        if rt.key == ("", "secrets") and "stringData" in obj:
            data = obj.setdefault("data", {})
            for k, v in obj.pop("stringData").items():
                data[k] = base64.b64encode(v.encode()).decode()
        self._check_immutable(rt, current, obj)
        if rt.has_generation and _spec_part(obj) != _spec_part(current):
            meta["generation"] = int(current["metadata"].get("generation", 1)) + 1
        if obj == current or _same_ignoring_rv(obj, current):
            return current, warnings, False
        if dry_run:
            return obj, warnings, False
        stored = self.store.put(rt.key, obj)
        if stored["metadata"].get("deletionTimestamp") and not stored["metadata"].get("finalizers"):
            self._remove(rt, stored["metadata"].get("namespace", ""), name, "Background")
        return stored, warnings, False

    def _check_immutable(self, rt: ResourceType, old: dict, new: dict) -> None:
        if rt.key in (("", "configmaps"), ("", "secrets")) and old.get("immutable"):
            for field in ("data", "binaryData", "stringData"):
                if old.get(field) != new.get(field):
                    raise api_errors.invalid(rt.group, rt.kind, old["metadata"]["name"], [
                        api_errors.FieldError("FieldValueForbidden", field, None,
                                              "field is immutable when `immutable` is set")])
        if rt.key == ("", "pods"):
            old_spec = copy.deepcopy(old.get("spec") or {})
            new_spec = copy.deepcopy(new.get("spec") or {})
            for spec in (old_spec, new_spec):
                for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
                    c.pop("image", None)
                spec.pop("activeDeadlineSeconds", None)
                spec.pop("tolerations", None)
            self._default_pod({"spec": new_spec})
            self._default_pod({"spec": old_spec})
            if old_spec != new_spec:
                raise api_errors.invalid(rt.group, rt.kind, old["metadata"]["name"], [
                    api_errors.FieldError(
                        "FieldValueForbidden", "spec", None,
                        "pod updates may not change fields other than `spec.containers[*].image`,"
                        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
                        "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
                        "(allow it to be set to 1 if it was previously negative)")])

    def patch(self, rt: ResourceType, namespace: str, name: str, content_type: str, body: bytes, *,
              subresource: str | None = None, dry_run: bool = False, field_validation: str | None = None
              ) -> tuple[dict, list[str], bool]:
        current = self.find(rt, namespace, name)
        is_apply = content_type.split(";")[0].strip().lower() == "application/apply-patch+yaml"
        if current is None:
            if not is_apply or subresource:
                raise api_errors.not_found(rt.group, rt.plural, name)
            patched = apply_patch(content_type, {}, body)
            if not isinstance(patched, dict):
                raise bad_request("the applied configuration must be an object")
            patched.setdefault("metadata", {})["name"] = name
            created, warnings = self.create(rt, namespace, patched, dry_run=dry_run, field_validation=field_validation)
            return created, warnings, True
        patched = apply_patch(content_type, current, body)
        if not isinstance(patched, dict):
            raise bad_request("the patched object must be an object")
        # A patch carries no resourceVersion precondition unless it sets one itself.
        patched.setdefault("metadata", {})
        if patched["metadata"].get("resourceVersion") is None:
            patched["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        return self.replace(rt, namespace, name, patched, subresource=subresource, dry_run=dry_run,
                            field_validation=field_validation, current=current)

    def set_status(self, rt: ResourceType, namespace: str, name: str, status: dict) -> dict | None:
        """Controller-side status write (no validation, no-op when unchanged)."""
        current = self.find(rt, namespace, name)
        if current is None:
            return None
        if current.get("status") == status:
            return current
        current["status"] = copy.deepcopy(status)
        return self.store.put(rt.key, current)

    def delete(self, rt: ResourceType, namespace: str, name: str, *, dry_run: bool = False,
               propagation: str | None = None, preconditions: dict | None = None) -> dict:
        current = self.get(rt, namespace, name)
        if preconditions:
            if preconditions.get("uid") and preconditions["uid"] != current["metadata"].get("uid"):
                raise api_errors.conflict(rt.group, rt.plural, name)
            if preconditions.get("resourceVersion") and \
                    preconditions["resourceVersion"] != current["metadata"].get("resourceVersion"):
                raise api_errors.conflict(rt.group, rt.plural, name)
        if dry_run:
            return current
        if current["metadata"].get("finalizers"):
            if not current["metadata"].get("deletionTimestamp"):
                current["metadata"]["deletionTimestamp"] = now()
                current["metadata"]["deletionGracePeriodSeconds"] = 0
                return self.store.put(rt.key, current)
            return current
        return self._remove(rt, namespace if rt.namespaced else "", name, propagation or "Background")

    def _remove(self, rt: ResourceType, namespace: str, name: str, propagation: str) -> dict:
        if propagation == "Foreground" and rt.key != NAMESPACE_KEY:
            self._delete_dependents_first(rt, namespace, name)
        gone = self.store.remove(rt.key, namespace, name)
        if gone is None:
            raise api_errors.not_found(rt.group, rt.plural, name)
        uid = gone["metadata"].get("uid")
        if rt.key == NAMESPACE_KEY:
            for key, obj in self.store.all_in_namespace(name):
                self.store.remove(key, name, obj["metadata"]["name"])
            return gone
        if propagation == "Background" and self.background_gc_delay > 0:
            return gone  # the dependents now name a missing owner: the collector's work
        if propagation != "Foreground":
            self._collect_dependents(namespace, uid, propagation)
        return gone

    def _delete_dependents_first(self, rt: ResourceType, namespace: str, name: str) -> None:
        """Foreground: the owner is marked (deletionTimestamp, finalizer foregroundDeletion) and
        stays visible until its dependents are gone; Background deletes the owner first."""
        current = self.store.get(rt.key, namespace, name)
        if current is None:
            return
        uid = current["metadata"].get("uid")
        if not self.store.dependents(namespace, uid):
            return
        meta = current["metadata"]
        meta.setdefault("deletionTimestamp", now())
        meta.setdefault("deletionGracePeriodSeconds", 0)
        meta["finalizers"] = list(meta.get("finalizers") or []) + ["foregroundDeletion"]
        self.store.put(rt.key, current)
        self._collect_dependents(namespace, uid, "Foreground")

    def _collect_dependents(self, namespace: str, owner_uid: str, propagation: str) -> None:
        """The garbage collector: dependents of a deleted owner go too (or lose the reference)."""
        for key, obj in self.store.dependents(namespace, owner_uid):
            refs = obj["metadata"].get("ownerReferences") or []
            rt = self.registry.by_plural(*key)
            if propagation == "Orphan":
                obj["metadata"]["ownerReferences"] = [r for r in refs if r.get("uid") != owner_uid]
                self.store.put(key, obj)
            elif rt is not None and self.find(rt, namespace, obj["metadata"]["name"]) is not None:
                self._remove(rt, namespace, obj["metadata"]["name"], propagation)


def _spec_part(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if k not in ("metadata", "status")}


def _same_ignoring_rv(a: dict, b: dict) -> bool:
    a2, b2 = copy.deepcopy(a), copy.deepcopy(b)
    a2["metadata"].pop("resourceVersion", None)
    b2["metadata"].pop("resourceVersion", None)
    return a2 == b2
