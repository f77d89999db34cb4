"""One PID namespace per pod, as a pod's containers have: the first exec (or init container)
starts a pause process in a new PID namespace and every later command of the pod joins it
(`bwrap --pidns`), so one exec can see and signal the processes another started. Deleting the
pod, or its activeDeadlineSeconds passing, kills the pause process and with it (it is the
namespace's init) every process of the pod, as a container runtime stops a pod's containers."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time

log = logging.getLogger("kube-api.pod-processes")


class PodProcessSpaces:
    def __init__(self):
        self._spaces: dict[str, tuple[subprocess.Popen, int]] = {}  # pod uid -> (pause, ns fd)

    def namespace_fd(self, uid: str) -> int | None:
        """An open file descriptor of the pod's PID namespace (started on first use), or None
        when it cannot be made (the caller then unshares a namespace per command)."""
        space = self._spaces.get(uid)
        if space is not None and space[0].poll() is None:
            return space[1]
        if space is not None:
            log.warning("the PID namespace of pod %s ended by itself (pause exit %s)", uid, space[0].returncode)
            self.stop(uid)
        pause = subprocess.Popen(["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent",
                                  "--new-session", "--", "sleep", "infinity"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        children = f"/proc/{pause.pid}/task/{pause.pid}/children"
        for _ in range(200):  # bounded: bwrap forks its namespace's init at once
            try:
                with open(children, encoding="ascii") as f:
                    child = f.read().split()
            except OSError:
                child = []
            if child:
                try:
                    fd = os.open(f"/proc/{child[0]}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    break
                self._spaces[uid] = (pause, fd)
                return fd
            if pause.poll() is not None:
                break
            time.sleep(0.01)
        log.warning("no PID namespace for pod %s: commands get one each", uid)
        _kill(pause)
        return None

    def alive(self, uid: str) -> bool:
        space = self._spaces.get(uid)
        return space is not None and space[0].poll() is None

    def stop(self, uid: str) -> None:
        """Kills every process of the pod."""
        space = self._spaces.pop(uid, None)
        if space is None:
            return
        pause, fd = space
        _kill(pause)
        os.close(fd)

    def shutdown(self) -> None:
        for uid in list(self._spaces):
            self.stop(uid)


def _kill(proc: subprocess.Popen) -> None:
    # A pause process already reaped no longer owns its pid: with pid_max 32768 and the
    # tests' thousands of processes, that number may now lead another group (a command
    # of another pod), which a blind killpg would SIGKILL.
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
