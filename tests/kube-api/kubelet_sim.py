"""Simulated kubelet: the status a node would give each Pod.

Every new pod is scheduled at once with its containers in ContainerCreating; after the
configured delay it gets its final state: by default Running and Ready with a pod IP; pods
matching a configured rule instead wait with ErrImagePull / ImagePullBackOff /
ContainerCreating, stay unscheduled (PodScheduled False, Unschedulable), or have a container
that exits (CrashLoopBackOff, or Failed/Succeeded with restartPolicy Never). Init containers run for real first (through `run_container`)."""

from __future__ import annotations

import asyncio
import fnmatch
import logging

from conditions import condition, short_hash
from objects import ObjectService, now
from resources import Registry

log = logging.getLogger("kube-api.kubelet")

POD_KEY = ("", "pods")
BEHAVIORS = {"ready", "ErrImagePull", "ImagePullBackOff", "ContainerCreating", "pending", "exit", "CrashLoopBackOff",
             "terminated", "unschedulable"}


def check_behavior(rule: dict) -> None:
    behavior = rule.get("behavior", "ready")
    if behavior not in BEHAVIORS:
        raise ValueError(f"unknown behavior {behavior!r}; one of {sorted(BEHAVIORS)}")


class Kubelet:
    def __init__(self, registry: Registry, objects: ObjectService, config: dict, kick):
        self.registry = registry
        self.objects = objects
        self.config = config  # the simulation's settings (podDelaySeconds, podRules), shared
        self.kick = kick
        self.pinned: dict[str, dict] = {}      # pod uid -> behavior set by a test hook
        self._seen: dict[str, float] = {}      # pod uid -> loop time first seen
        self._times: dict[str, str] = {}       # pod uid -> start timestamp
        self._ips: dict[str, str] = {}
        self._next_ip = 10
        self._inits: dict[str, dict] = {}      # pod uid -> progress of its init containers
        # Runs a container's command for real: async (pod, container, argv) -> (exit code, output).
        self.run_container = None
        self.store_log = None  # (namespace, pod, container, text): what `kubectl logs` shows
        self.on_deadline = None  # (pod): its containers are killed (the exec service's processes)

    def forget(self, uid: str) -> None:
        for table in (self.pinned, self._seen, self._times, self._ips):
            table.pop(uid, None)
        init = self._inits.pop(uid, None)
        if init and init.get("task") and not init["task"].done():
            init["task"].cancel()

    def pin(self, pod: dict, behavior: dict) -> dict:
        """A test hook's explicit state for one pod; kept from then on."""
        check_behavior(behavior)
        self.pinned[pod["metadata"]["uid"]] = behavior
        return self._apply_pod(pod, behavior)

    def release(self, uid: str) -> None:
        self.pinned.pop(uid, None)

    def reconcile(self) -> None:
        loop = asyncio.get_running_loop()
        for pod in self.objects.store.list(POD_KEY):
            uid = pod["metadata"]["uid"]
            if uid in self.pinned:
                continue
            first = self._seen.setdefault(uid, loop.time())
            deadline = (pod.get("spec") or {}).get("activeDeadlineSeconds")
            if deadline is not None and loop.time() - first >= float(deadline):
                self._put_status(pod, self.deadline_exceeded_status(pod))
                continue
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

    def deadline_exceeded_status(self, pod: dict) -> dict:
        """spec.activeDeadlineSeconds passed: the kubelet kills the containers and the pod is
        Failed with reason DeadlineExceeded, whatever its restart policy."""
        previous = pod.get("status") or {}
        if previous.get("reason") == "DeadlineExceeded":
            return previous
        uid = pod["metadata"]["uid"]
        started = self._times.setdefault(uid, now())
        finished = now()
        statuses = [{"name": c.get("name"), "image": c.get("image", ""), "imageID": "", "ready": False,
                     "restartCount": 0, "started": False, "lastState": {},
                     "state": {"terminated": {"exitCode": 137, "reason": "Error", "startedAt": started,
                                              "finishedAt": finished,
                                              "containerID": f"containerd://{short_hash(uid + c.get('name', ''), 64)}"}}}
                    for c in (pod.get("spec") or {}).get("containers") or []]
        conditions = []
        for type_, state_ in (("PodReadyToStartContainers", "False"), ("Initialized", "True"), ("Ready", "False"),
                              ("ContainersReady", "False"), ("PodScheduled", "True")):
            c = condition(type_, state_, "", "", previous.get("conditions") or [])
            c["lastProbeTime"] = None
            c.pop("reason")
            c.pop("message")
            conditions.append(c)
        status = {"phase": "Failed", "reason": "DeadlineExceeded",
                  "message": "Pod was active on the node longer than the specified deadline",
                  "conditions": conditions, "hostIP": "10.0.0.10", "hostIPs": [{"ip": "10.0.0.10"}],
                  "startTime": started, "containerStatuses": statuses,
                  "qosClass": previous.get("qosClass", "BestEffort")}
        if self.on_deadline:
            self.on_deadline(pod)
        return status

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
                              "containerID": f"containerd://{short_hash(uid + 'init' + str(i), 64)}"}
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

    def _behavior_for(self, pod: dict) -> dict:
        meta = pod["metadata"]
        # The scheduler places no pod whose volume claim is not bound.
        for volume in pod.get("spec", {}).get("volumes") or []:
            claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
            pvc = self.objects.store.get(("", "persistentvolumeclaims"), meta.get("namespace", ""), claim or "")
            if claim and pvc is not None and (pvc.get("status") or {}).get("phase") == "Pending":
                return {"behavior": "unschedulable",
                        "message": "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
                                   "preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                                   "scheduling."}
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
        if kind == "unschedulable":
            # What the scheduler leaves on a pod no node fits (or whose claim does not bind).
            scheduled = condition("PodScheduled", "False", "Unschedulable", behavior.get(
                "message", "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are "
                           "available: 1 No preemption victims found for incoming pod."), previous)
            scheduled["lastProbeTime"] = None
            return {"phase": "Pending", "conditions": [scheduled],
                    "qosClass": (pod.get("status") or {}).get("qosClass", "BestEffort")}
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
                            imageID=f"{image.split('@')[0].split(':')[0]}@sha256:{short_hash(image, 64)}",
                            containerID=f"containerd://{short_hash(uid + c.get('name', ''), 64)}")
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
                              "containerID": f"containerd://{short_hash(uid + 'exit', 64)}"}
                if behavior.get("message"):
                    terminated["message"] = behavior["message"]
                base["imageID"] = f"{image.split('@')[0].split(':')[0]}@sha256:{short_hash(image, 64)}"
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

