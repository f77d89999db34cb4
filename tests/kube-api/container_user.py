"""Who a container's processes run as, from the pod's and the container's securityContext (the
container's fields win), as the kubelet and the container runtime decide it: `runAsUser` (the
image's user otherwise; the images this server stands in for run as root), `runAsGroup` (the
image's group, 0, otherwise), and the supplementary groups `fsGroup` and `supplementalGroups`.
A non-root user gets no capabilities, so the kernel refuses it what it refuses any such process:
chmod or utime of a directory it does not own, such as a volume's root-owned top directory."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContainerUser:
    uid: int
    gid: int
    groups: tuple[int, ...]

    def setpriv_args(self) -> list[str]:
        """The command prefix that drops to this user (empty for root: commands run as this server)."""
        if self.uid == 0:
            return []
        groups = ["--groups", ",".join(str(g) for g in self.groups)] if self.groups else ["--clear-groups"]
        return ["setpriv", "--reuid", str(self.uid), "--regid", str(self.gid), *groups,
                "--inh-caps=-all", "--"]


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def container_user(pod: dict, container: dict) -> ContainerUser:
    pod_security = (pod.get("spec") or {}).get("securityContext") or {}
    security = container.get("securityContext") or {}

    def pick(field: str) -> int | None:
        own = _int(security.get(field))
        return own if own is not None else _int(pod_security.get(field))

    uid = pick("runAsUser") or 0
    gid = pick("runAsGroup") or 0
    groups = []
    for g in [pod_security.get("fsGroup"), *(pod_security.get("supplementalGroups") or [])]:
        if _int(g) is not None and g != gid and g not in groups:
            groups.append(g)
    return ContainerUser(uid, gid, tuple(groups))


def pod_fs_group(pod: dict) -> int | None:
    return _int(((pod.get("spec") or {}).get("securityContext") or {}).get("fsGroup"))
