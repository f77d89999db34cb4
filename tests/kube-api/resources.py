"""The resource types the test API server serves: built-in kinds and the CRDs it loads."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

import yaml

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


@dataclass
class ResourceType:
    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool = True
    short_names: list[str] = field(default_factory=list)
    verbs: list[str] = field(default_factory=lambda: list(ALL_VERBS))
    categories: list[str] = field(default_factory=list)
    subresources: list[str] = field(default_factory=list)  # "status", "exec", "log", "scale"
    schema: dict | None = None  # openAPIV3Schema of a CRD version
    printer_columns: list[dict] = field(default_factory=list)
    has_generation: bool = False

    @property
    def api_version(self) -> str:
        return self.version if not self.group else f"{self.group}/{self.version}"

    @property
    def key(self) -> tuple[str, str]:
        return (self.group, self.plural)

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def is_custom(self) -> bool:
        return self.schema is not None


def builtin_types() -> list[ResourceType]:
    core = [
        ResourceType("", "v1", "pods", "pod", "Pod", short_names=["po"], categories=["all"],
                     subresources=["status", "exec", "log"]),
        ResourceType("", "v1", "services", "service", "Service", short_names=["svc"], categories=["all"],
                     subresources=["status"],
                     verbs=["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]),
        ResourceType("", "v1", "configmaps", "configmap", "ConfigMap", short_names=["cm"]),
        ResourceType("", "v1", "secrets", "secret", "Secret"),
        ResourceType("", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim",
                     short_names=["pvc"], subresources=["status"]),
        ResourceType("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", short_names=["sa"]),
        ResourceType("", "v1", "events", "event", "Event", short_names=["ev"]),
        ResourceType("", "v1", "namespaces", "namespace", "Namespace", namespaced=False, short_names=["ns"],
                     subresources=["status"],
                     verbs=["create", "delete", "get", "list", "patch", "update", "watch"]),
        ResourceType("batch", "v1", "cronjobs", "cronjob", "CronJob", short_names=["cj"], categories=["all"]),
        ResourceType("batch", "v1", "jobs", "job", "Job", categories=["all"]),
        ResourceType("networking.k8s.io", "v1", "networkpolicies", "networkpolicy", "NetworkPolicy",
                     short_names=["netpol"], has_generation=True),
    ]
    return core


def load_crds(directory: str) -> list[ResourceType]:
    """One ResourceType per CRD: its storage version (v1beta1 for agent-sandbox)."""
    types = []
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml")) + glob.glob(os.path.join(directory, "*.yml"))):
        with open(path, encoding="utf-8") as f:
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            for doc in yaml.load_all(f, Loader=loader):
                if not doc or doc.get("kind") != "CustomResourceDefinition":
                    continue
                types.append(_crd_type(doc))
    return types


def _crd_type(crd: dict) -> ResourceType:
    spec = crd["spec"]
    names = spec["names"]
    versions = [v for v in spec["versions"] if v.get("served", True)]
    version = next((v for v in versions if v.get("storage")), versions[0])
    subresources = []
    if "status" in (version.get("subresources") or {}):
        subresources.append("status")
    if "scale" in (version.get("subresources") or {}):
        subresources.append("scale")
    return ResourceType(
        group=spec["group"],
        version=version["name"],
        plural=names["plural"],
        singular=names.get("singular", names["kind"].lower()),
        kind=names["kind"],
        namespaced=spec.get("scope", "Namespaced") == "Namespaced",
        short_names=list(names.get("shortNames") or []),
        categories=list(names.get("categories") or []),
        subresources=subresources,
        schema=version["schema"]["openAPIV3Schema"],
        printer_columns=list(version.get("additionalPrinterColumns") or []),
        has_generation=True,
    )


class Registry:
    def __init__(self, types: list[ResourceType]):
        self.types = types
        self._by_path = {(t.group, t.version, t.plural): t for t in types}

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_path.get((group, version, plural))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        for t in self.types:
            if t.api_version == api_version and t.kind == kind:
                return t
        return None

    def by_plural(self, group: str, plural: str) -> ResourceType | None:
        for t in self.types:
            if t.group == group and t.plural == plural:
                return t
        return None

    def groups(self) -> list[tuple[str, list[str]]]:
        """(group, versions) in registration order, the core group first."""
        seen: dict[str, list[str]] = {}
        for t in self.types:
            versions = seen.setdefault(t.group, [])
            if t.version not in versions:
                versions.append(t.version)
        return list(seen.items())

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        return [t for t in self.types if t.group == group and t.version == version]
