"""Pod Security admission, as the real API server's built-in admission plugin enforces it: a
namespace labelled `pod-security.kubernetes.io/enforce: baseline|restricted` refuses pods that
break a control of that level (kubernetes.io/docs/concepts/security/pod-security-standards/),
with a 403 whose message lists what is wrong in the plugin's words. `privileged` (or no label)
admits everything. Only pods are checked (as in the real plugin, workload templates only warn)."""

from __future__ import annotations

ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"
LEVELS = ("privileged", "baseline", "restricted")

BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                         "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
SAFE_SYSCTLS = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
                "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
                "net.ipv4.tcp_keepalive_probes"}
SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}


def _containers(spec: dict) -> list[dict]:
    out = []
    for key in ("initContainers", "containers", "ephemeralContainers"):
        out += [c for c in spec.get(key) or [] if isinstance(c, dict)]
    return out


def _sc(obj: dict) -> dict:
    return obj.get("securityContext") or {}


def _names(containers: list[dict]) -> str:
    names = ", ".join(f'"{c.get("name", "")}"' for c in containers)
    return ("container " if len(containers) == 1 else "containers ") + names


def baseline_reasons(metadata: dict, spec: dict) -> list[str]:
    reasons = []
    pod_sc = _sc(spec)
    containers = _containers(spec)
    if (pod_sc.get("windowsOptions") or {}).get("hostProcess") or any(
            (_sc(c).get("windowsOptions") or {}).get("hostProcess") for c in containers):
        reasons.append("hostProcess (pod and containers must not set securityContext.windowsOptions.hostProcess=true)")
    host = [f for f in ("hostNetwork", "hostPID", "hostIPC") if spec.get(f)]
    if host:
        reasons.append(f"host namespaces ({', '.join(f'{f}=true' for f in host)})")
    bad = [c for c in containers if _sc(c).get("privileged")]
    if bad:
        reasons.append(f"privileged ({_names(bad)} must not set securityContext.privileged=true)")
    bad = [c for c in containers
           if set((_sc(c).get("capabilities") or {}).get("add") or []) - BASELINE_CAPABILITIES]
    if bad:
        reasons.append(f"non-default capabilities ({_names(bad)} must not include capabilities in "
                       "securityContext.capabilities.add)")
    paths = [v.get("name", "") for v in spec.get("volumes") or [] if "hostPath" in v]
    if paths:
        reasons.append(f"hostPath volumes ({', '.join(paths)})")
    bad = [c for c in containers if any((p or {}).get("hostPort") for p in c.get("ports") or [])]
    if bad:
        reasons.append(f"hostPort ({_names(bad)} uses hostPort)")
    armor = [(pod_sc.get("appArmorProfile") or {}).get("type")] + [
        (_sc(c).get("appArmorProfile") or {}).get("type") for c in containers]
    annotations = (metadata.get("annotations") or {})
    armor_bad = any(t not in (None, "RuntimeDefault", "Localhost") for t in armor) or any(
        k.startswith("container.apparmor.security.beta.kubernetes.io/") and v != "runtime/default"
        and not str(v).startswith("localhost/") for k, v in annotations.items())
    if armor_bad:
        reasons.append("forbidden AppArmor profile")
    selinux = [pod_sc.get("seLinuxOptions")] + [_sc(c).get("seLinuxOptions") for c in containers]
    if any(o and (o.get("type", "") not in SELINUX_TYPES or o.get("user") or o.get("role")) for o in selinux):
        reasons.append("seLinuxOptions (forbidden securityContext.seLinuxOptions)")
    bad = [c for c in containers if _sc(c).get("procMount") not in (None, "Default")]
    if bad:
        reasons.append(f"procMount ({_names(bad)} must not set securityContext.procMount)")
    if (pod_sc.get("seccompProfile") or {}).get("type") == "Unconfined" or any(
            (_sc(c).get("seccompProfile") or {}).get("type") == "Unconfined" for c in containers):
        reasons.append('seccompProfile (pod or containers must not set securityContext.seccompProfile.type to '
                       '"Unconfined")')
    unsafe = [s.get("name", "") for s in pod_sc.get("sysctls") or [] if s.get("name") not in SAFE_SYSCTLS]
    if unsafe:
        reasons.append(f"forbidden sysctls ({', '.join(unsafe)})")
    return reasons


def restricted_reasons(metadata: dict, spec: dict) -> list[str]:
    reasons = baseline_reasons(metadata, spec)
    pod_sc = _sc(spec)
    containers = _containers(spec)
    volumes = [f'"{v.get("name", "")}"' for v in spec.get("volumes") or []
               if any(k != "name" and k not in RESTRICTED_VOLUMES for k in v)]
    if volumes:
        reasons.append(f"restricted volume types (volumes {', '.join(volumes)} use restricted volume types)")
    bad = [c for c in containers if _sc(c).get("allowPrivilegeEscalation") is not False]
    if bad:
        reasons.append(f"allowPrivilegeEscalation != false ({_names(bad)} must set "
                       "securityContext.allowPrivilegeEscalation=false)")
    bad = [c for c in containers
           if "ALL" not in ((_sc(c).get("capabilities") or {}).get("drop") or [])
           or set((_sc(c).get("capabilities") or {}).get("add") or []) - {"NET_BIND_SERVICE"}]
    if bad:
        reasons.append(f'unrestricted capabilities ({_names(bad)} must set securityContext.capabilities.drop=["ALL"]'
                       ' and may only add "NET_BIND_SERVICE")')
    pod_non_root = pod_sc.get("runAsNonRoot")
    bad = [c for c in containers
           if _sc(c).get("runAsNonRoot") is False or (_sc(c).get("runAsNonRoot") is None and pod_non_root is not True)]
    if pod_non_root is False or bad:
        reasons.append(f"runAsNonRoot != true (pod or {_names(bad) if bad else 'pod'} must set "
                       "securityContext.runAsNonRoot=true)")
    if pod_sc.get("runAsUser") == 0 or any(_sc(c).get("runAsUser") == 0 for c in containers):
        reasons.append("runAsUser=0 (pod and containers must not set runAsUser=0)")
    fine = ("RuntimeDefault", "Localhost")
    pod_seccomp = (pod_sc.get("seccompProfile") or {}).get("type")
    bad = [c for c in containers
           if ((_sc(c).get("seccompProfile") or {}).get("type") or pod_seccomp) not in fine]
    if (pod_seccomp is not None and pod_seccomp not in fine) or bad:
        reasons.append(f'seccompProfile (pod or {_names(bad) if bad else "pod"} must set '
                       'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')
    return reasons


def violations(pod: dict, level: str) -> list[str]:
    """What stops `pod` being admitted at `level`; empty when it is admitted."""
    metadata, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    if level == "restricted":
        return restricted_reasons(metadata, spec)
    if level == "baseline":
        return baseline_reasons(metadata, spec)
    return []


def enforced_level(namespace: dict | None) -> str:
    """The namespace's enforce label; an unknown value is treated as restricted, as a
    misconfigured policy must not admit more."""
    labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
    level = labels.get(ENFORCE_LABEL, "privileged")
    return level if level in LEVELS else "restricted"
