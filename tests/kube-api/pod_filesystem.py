"""Per-pod directories on this machine, and the bubblewrap command line that shows a container
its volumes at their mount paths over a read-only view of this machine's root file system.

Layout under the state directory:
    pods/<ns>/<pod>/volumes/<volume>/   emptyDir, configMap, secret, projected, downwardAPI volumes
    pods/<ns>/<pod>/home/                /root in the container
    pods/<ns>/<pod>/tmp/                 /tmp in the container
    pods/<ns>/<pod>/fs/<path>/           a workingDir that is not on a volume
    pvcs/<ns>/<claim>/                   persistentVolumeClaim volumes (outlive pods)
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
import time

from container_user import pod_fs_group

# Host paths never shown to the container: they get their own mounts.
SPECIAL = {"/proc", "/dev", "/sys", "/tmp", "/root"}
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _safe_rel(path: str) -> str:
    parts = [p for p in path.split("/") if p not in ("", ".", "..")]
    return "/".join(parts)


class PodFilesystem:
    def __init__(self, pods_dir: str, pvcs_dir: str):
        self.pods_dir = pods_dir
        self.pvcs_dir = pvcs_dir
        self._owned: set[tuple[str, str]] = set()  # (pod uid, host path) whose ownership is set
        self._synced: dict[tuple[str, str], float] = {}  # (pod uid, volume path): last written

    def pod_dir(self, namespace: str, name: str) -> str:
        return os.path.join(self.pods_dir, _safe_rel(namespace), _safe_rel(name))

    def pvc_dir(self, namespace: str, claim: str) -> str:
        return os.path.join(self.pvcs_dir, _safe_rel(namespace), _safe_rel(claim))

    def ensure_pod(self, pod: dict) -> str:
        """The pod's directory, fresh for a new pod (uid) of the same name."""
        meta = pod["metadata"]
        root = self.pod_dir(meta["namespace"], meta["name"])
        marker = os.path.join(root, ".uid")
        try:
            with open(marker, encoding="utf-8") as f:
                same = f.read().strip() == meta["uid"]
        except OSError:
            same = False
        if not same:
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            with open(marker, "w", encoding="utf-8") as f:
                f.write(meta["uid"])
        for sub in ("volumes", "home", "tmp", "fs"):
            os.makedirs(os.path.join(root, sub), exist_ok=True)
        os.chmod(os.path.join(root, "tmp"), 0o1777)
        return root

    def remove_pod(self, namespace: str, name: str, uid: str) -> None:
        root = self.pod_dir(namespace, name)
        try:
            with open(os.path.join(root, ".uid"), encoding="utf-8") as f:
                if f.read().strip() != uid:
                    return
        except OSError:
            return
        shutil.rmtree(root, ignore_errors=True)

    def volume_sources(self, pod: dict, root: str, lookup, refresh_seconds: float = 0) -> dict[str, str]:
        """Host directory per volume name; configMap/secret contents are written when first
        mounted, then rewritten when at least `refresh_seconds` passed since the last write (the
        kubelet's periodic sync: a pod sees a changed ConfigMap only that much later).
        `lookup(kind, name)` returns the ConfigMap/Secret object or None."""
        ns = pod["metadata"]["namespace"]
        sources = {}
        for vol in (pod.get("spec") or {}).get("volumes") or []:
            name = vol.get("name", "")
            if "persistentVolumeClaim" in vol:
                path = self.pvc_dir(ns, vol["persistentVolumeClaim"].get("claimName", ""))
                self._mount_writable(pod, path)
                sources[name] = path
                continue
            path = os.path.join(root, "volumes", _safe_rel(name))
            if "emptyDir" in vol:
                self._mount_writable(pod, path)
            os.makedirs(path, exist_ok=True)
            files: dict[str, bytes] = {}
            if "configMap" in vol:
                files = self._config_files(lookup("configmaps", vol["configMap"].get("name", "")), vol["configMap"], False)
            elif "secret" in vol:
                files = self._config_files(lookup("secrets", vol["secret"].get("secretName", "")), vol["secret"], True)
            elif "projected" in vol:
                for src in vol["projected"].get("sources") or []:
                    if "configMap" in src:
                        files.update(self._config_files(lookup("configmaps", src["configMap"].get("name", "")),
                                                         src["configMap"], False))
                    elif "secret" in src:
                        files.update(self._config_files(lookup("secrets", src["secret"].get("name", "")),
                                                         src["secret"], True))
            elif "downwardAPI" in vol:
                for item in vol["downwardAPI"].get("items") or []:
                    ref = (item.get("fieldRef") or {}).get("fieldPath", "")
                    files[item.get("path", "")] = str(field_value(pod, ref)).encode()
            if files or any(k in vol for k in ("configMap", "secret", "projected", "downwardAPI")):
                key = (pod["metadata"].get("uid", ""), path)
                last = self._synced.get(key)
                if last is None or time.monotonic() - last >= refresh_seconds:
                    self._write_files(path, files)
                    self._synced[key] = time.monotonic()
            sources[name] = path
        return sources

    def _mount_writable(self, pod: dict, path: str) -> None:
        """An emptyDir or a claim's volume as the kubelet mounts it for a pod: made root-owned
        0777 (emptyDir; a provisioner's new volume), then, once per pod, with the pod's fsGroup,
        every file's group set to it, group read-write, directories setgid (what the kubelet's
        SetVolumeOwnership does). The top directory stays root's: a non-root container may write
        in it but not change its mode or times."""
        if not os.path.isdir(path):
            os.makedirs(path)
            os.chmod(path, 0o777)
        group = pod_fs_group(pod)
        key = (pod["metadata"].get("uid", ""), path)
        if group is None or key in self._owned:
            return
        self._owned.add(key)
        for directory, dirs, files in os.walk(path):
            for entry in [directory] + [os.path.join(directory, f) for f in files]:
                try:
                    st = os.lstat(entry)
                    if stat.S_ISLNK(st.st_mode):
                        continue
                    os.chown(entry, -1, group)
                    extra = 0o2770 if stat.S_ISDIR(st.st_mode) else 0o660
                    os.chmod(entry, stat.S_IMODE(st.st_mode) | extra)
                except OSError:
                    continue

    def forget_ownership(self, uid: str) -> None:
        self._owned = {k for k in self._owned if k[0] != uid}
        self._synced = {k: v for k, v in self._synced.items() if k[0] != uid}

    @staticmethod
    def _config_files(obj, ref, is_secret: bool) -> dict[str, bytes]:
        if isinstance(ref, str):
            ref = {"name": ref}
        if obj is None:
            return {}
        data: dict[str, bytes] = {}
        for key, value in (obj.get("data") or {}).items():
            data[key] = base64.b64decode(value) if is_secret else str(value).encode()
        for key, value in (obj.get("binaryData") or {}).items():
            data[key] = base64.b64decode(value)
        items = ref.get("items")
        if items:
            return {_safe_rel(i.get("path", i.get("key", ""))): data[i["key"]] for i in items if i.get("key") in data}
        return {_safe_rel(k): v for k, v in data.items()}

    @staticmethod
    def _write_files(directory: str, files: dict[str, bytes]) -> None:
        for entry in os.listdir(directory):
            p = os.path.join(directory, entry)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.unlink(p)
        for rel, content in files.items():
            target = os.path.join(directory, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(content)
            os.chmod(target, 0o644)

    def container_mounts(self, pod: dict, container: dict, root: str, sources: dict[str, str]
                         ) -> list[tuple[str, str, bool]]:
        """(container path, host path, read-only) for the container's volume mounts, /root and /tmp."""
        # The image's own writable places; read-only like the rest of the root file system when
        # the container asks for a read-only root file system.
        read_only_root = bool((container.get("securityContext") or {}).get("readOnlyRootFilesystem"))
        mounts = [("/root", os.path.join(root, "home"), read_only_root),
                  ("/tmp", os.path.join(root, "tmp"), read_only_root)]
        for m in container.get("volumeMounts") or []:
            src = sources.get(m.get("name"))
            dest = os.path.normpath("/" + m.get("mountPath", "").lstrip("/"))
            if not src or dest == "/":
                continue
            if m.get("subPath"):
                parent = src
                src = os.path.join(src, _safe_rel(m["subPath"]))
                # A subPath naming a file of the volume (a ConfigMap's key) is that file.
                if not os.path.lexists(src):
                    # The kubelet makes a missing subPath with its volume's mode (its group by
                    # the volume's setgid bit), owned by root.
                    os.makedirs(src)
                    os.chmod(src, stat.S_IMODE(os.stat(parent).st_mode))
            mounts = [x for x in mounts if x[0] != dest]
            mounts.append((dest, src, bool(m.get("readOnly"))))
        workdir = container.get("workingDir")
        if workdir:
            workdir = os.path.normpath("/" + workdir.lstrip("/"))
            covered = any(workdir == d or workdir.startswith(d.rstrip("/") + "/") for d, _, _ in mounts)
            if not covered and not os.path.isdir(workdir):
                host = os.path.join(root, "fs", _safe_rel(workdir))
                os.makedirs(host, exist_ok=True)
                mounts.append((workdir, host, False))
        return mounts

    @staticmethod
    def host_path(mounts: list[tuple[str, str, bool]], path: str) -> str:
        """Where a container path lives on this machine (for the executable check)."""
        best = None
        for dest, src, _ in mounts:
            if path == dest or path.startswith(dest.rstrip("/") + "/"):
                if best is None or len(dest) > len(best[0]):
                    best = (dest, src)
        if best is None:
            return path
        return os.path.join(best[1], path[len(best[0]):].lstrip("/"))

    @staticmethod
    def bwrap_args(mounts: list[tuple[str, str, bool]], hostname: str, workdir: str) -> list[str]:
        dests = {d for d, _, _ in mounts}
        expanded = set()
        for d in dests:
            parent = os.path.dirname(d)
            while parent != "/":
                expanded.add(parent)
                parent = os.path.dirname(parent)
        args = ["bwrap", "--tmpfs", "/"]

        def replicate(directory: str) -> None:
            try:
                entries = sorted(os.listdir(directory))
            except OSError:
                return
            for entry in entries:
                p = os.path.join(directory, entry)
                if p in SPECIAL or p in dests:
                    continue
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                if stat.S_ISLNK(st.st_mode):
                    args.extend(["--symlink", os.readlink(p), p])
                elif stat.S_ISDIR(st.st_mode) and p in expanded:
                    args.extend(["--dir", p])
                    replicate(p)
                else:
                    args.extend(["--ro-bind-try", p, p])

        replicate("/")
        # A mount point's parents this machine lacks (/etc/osf): bubblewrap would make them 0700,
        # which a non-root container could not pass; a container runtime makes them 0755.
        for parent in sorted(expanded, key=lambda p: p.count("/")):
            if not os.path.lexists(parent):
                args += ["--perms", "0755", "--dir", parent]
        args += ["--proc", "/proc", "--dev", "/dev", "--ro-bind-try", "/sys", "/sys"]
        for dest, src, ro in sorted(mounts, key=lambda m: m[0].count("/")):
            args += ["--ro-bind" if ro else "--bind", src, dest]
        args += ["--unshare-pid", "--unshare-uts", "--unshare-ipc", "--hostname", hostname[:63],
                 "--die-with-parent", "--new-session", "--chdir", workdir, "--clearenv"]
        return args


def field_value(pod: dict, path: str):
    meta, spec, status = pod.get("metadata", {}), pod.get("spec", {}), pod.get("status", {})
    simple = {
        "metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"), "metadata.uid": meta.get("uid"),
        "spec.nodeName": spec.get("nodeName", ""), "spec.serviceAccountName": spec.get("serviceAccountName", ""),
        "status.podIP": status.get("podIP", ""), "status.hostIP": status.get("hostIP", ""),
    }
    if path in simple:
        return simple[path] or ""
    for field in ("labels", "annotations"):
        prefix = f"metadata.{field}['"
        if path.startswith(prefix) and path.endswith("']"):
            return (meta.get(field) or {}).get(path[len(prefix):-2], "")
    return ""
