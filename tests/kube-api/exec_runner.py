"""pods/exec over WebSocket (`v5.channel.k8s.io`, `v4.channel.k8s.io`) and pods/log.

Each binary message starts with a channel byte: 0 stdin, 1 stdout, 2 stderr, 3 error (a JSON
`Status` once the command ended: Success, or Failure/NonZeroExitCode with the exit code as
cause), 4 resize; in v5 the client sends [255, 0] to close stdin.

Commands run for real on this machine, inside bubblewrap: a read-only view of the root file
system with the pod's volumes bound at their mount paths (so `/workspace/x` works), the
container's environment, and cwd = the container's workingDir. Test hooks can give pods whose
image matches a glob a canned answer for a command (`egress-proxy ca`) or extra executables
on PATH."""

from __future__ import annotations

import asyncio
import base64
import fnmatch
import json
import logging
import os
import shutil
import signal
import subprocess

from api_errors import bad_request
from container_user import container_user
from http_server import Request, Response, WebSocketResponse
from objects import ObjectService
from pod_filesystem import DEFAULT_PATH, PodFilesystem, field_value
from pod_processes import PodProcessSpaces
from resources import Registry

log = logging.getLogger("kube-api.exec")

PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io")
BIN_MOUNT = "/opt/kube-api-test/bin"
STDIN, STDOUT, STDERR, ERROR, RESIZE, CLOSE = 0, 1, 2, 3, 4, 255


def exit_status(code: int, argv: list[str]) -> dict:
    if code == 0:
        return {"metadata": {}, "status": "Success"}
    return {"metadata": {}, "status": "Failure",
            "message": f"command terminated with non-zero exit code: error executing command "
                       f"[{' '.join(argv)}], exit code {code}",
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}


class ExecService:
    def __init__(self, registry: Registry, objects: ObjectService, pods_dir: str, pvcs_dir: str, simulation,
                 use_bwrap: bool = True):
        self.registry = registry
        self.objects = objects
        self.fs = PodFilesystem(pods_dir, pvcs_dir)
        self.simulation = simulation
        self.use_bwrap = use_bwrap and _bwrap_works()
        self.canned: list[dict] = []   # {image, command: [argv prefix], stdout, stderr, exitCode}
        self.bin_dirs: list[dict] = []  # {image, dir, at}
        self.logs: dict[tuple[str, str, str], str] = {}
        self._processes: set[asyncio.subprocess.Process] = set()
        self.spaces = PodProcessSpaces()

    @property
    def pods(self):
        return self.registry.by_plural("", "pods")

    # -- hooks ----------------------------------------------------------------------------
    def configure(self, config: dict) -> dict:
        if "handlers" in config:
            self.canned = list(config["handlers"])
        if "binDirs" in config:
            self.bin_dirs = list(config["binDirs"])
        return {"handlers": self.canned, "binDirs": self.bin_dirs}

    def store_log(self, namespace: str, pod: str, container: str, text: str) -> None:
        self.logs[(namespace, pod, container)] = text

    def forget_pod(self, pod: dict) -> None:
        meta = pod["metadata"]
        self.spaces.stop(meta.get("uid", ""))
        self.fs.remove_pod(meta.get("namespace", ""), meta["name"], meta.get("uid", ""))
        self.fs.forget_ownership(meta.get("uid", ""))
        for key in [k for k in self.logs if k[:2] == (meta.get("namespace"), meta["name"])]:
            self.logs.pop(key, None)

    def stop_pod_processes(self, pod: dict) -> None:
        """The pod's containers stopped (activeDeadlineSeconds): its processes die."""
        self.spaces.stop(pod["metadata"].get("uid", ""))

    async def shutdown(self) -> None:
        for proc in list(self._processes):
            _kill(proc)
        self.spaces.shutdown()

    # -- requests -------------------------------------------------------------------------
    def _container(self, pod: dict, name: str | None, *, with_init: bool = False) -> dict:
        containers = (pod.get("spec") or {}).get("containers") or []
        if name and with_init:
            containers = containers + ((pod.get("spec") or {}).get("initContainers") or [])
        if not name:
            annotated = (pod["metadata"].get("annotations") or {}).get("kubectl.kubernetes.io/default-container")
            name = annotated or (containers[0]["name"] if len(containers) == 1 else None)
            if name is None:
                names = " ".join(c.get("name", "") for c in containers)
                raise bad_request(f"a container name must be specified for pod {pod['metadata']['name']}, "
                                  f"choose one of: [{names}]")
        for c in containers:
            if c.get("name") == name:
                return c
        raise bad_request(f"container {name} is not valid for pod {pod['metadata']['name']}")

    async def handle_exec(self, request: Request, namespace: str, name: str):
        pod = self.objects.get(self.pods, namespace, name)
        container = self._container(pod, request.param("container"))
        argv = request.params("command")
        if not argv:
            raise bad_request("you must specify at least 1 command")
        if not pod.get("spec", {}).get("nodeName"):
            raise bad_request(f"pod {name} does not have a host assigned")
        cstatus = next((c for c in (pod.get("status") or {}).get("containerStatuses") or []
                        if c.get("name") == container["name"]), {})
        if "running" not in (cstatus.get("state") or {}):
            raise bad_request(f'unable to upgrade connection: container not found ("{container["name"]}")')
        if not request.is_websocket:
            raise bad_request("Upgrade request required: this test API server speaks pods/exec over WebSocket "
                              "(v5.channel.k8s.io) only")
        offered = [p.strip() for p in request.header("sec-websocket-protocol").split(",") if p.strip()]
        protocol = next((p for p in offered if p in PROTOCOLS), None)
        if protocol is None:
            raise bad_request(f"unsupported subprotocols {offered}; supported: {list(PROTOCOLS)}")
        flags = {k: request.param(k, "false").lower() in ("true", "1") for k in ("stdin", "stdout", "stderr", "tty")}

        async def session(ws):
            try:
                await self._session(ws, pod, container, argv, flags)
            except Exception as exc:  # tell the client instead of leaving it with a silent success
                log.exception("exec in %s/%s failed", namespace, name)
                failure = {"metadata": {}, "status": "Failure", "reason": "InternalError",
                           "message": f"test API server failed to run the command: {exc}"}
                try:
                    await _send(ws, ERROR, json.dumps(failure).encode())
                except Exception:
                    pass

        return WebSocketResponse(session, protocol)

    async def handle_log(self, request: Request, namespace: str, name: str):
        pod = self.objects.get(self.pods, namespace, name)
        container = self._container(pod, request.param("container"), with_init=True)
        text = self.logs.get((namespace, name, container["name"]), "")
        tail = request.param("tailLines")
        if tail is not None and tail.isdigit():
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-int(tail):]) if int(tail) else ""
        return Response(200, text.encode(), {"Content-Type": "text/plain"})

    # -- a session ------------------------------------------------------------------------
    def _canned_for(self, pod: dict, container: dict, argv: list[str]) -> dict | None:
        for h in self.canned:
            if "image" in h and not fnmatch.fnmatchcase(container.get("image", ""), h["image"]):
                continue
            if "pod" in h and not fnmatch.fnmatchcase(pod["metadata"]["name"], h["pod"]):
                continue
            prefix = h.get("command") or []
            if argv[:len(prefix)] == prefix:
                return h
        return None

    def _environment(self, pod: dict, container: dict, tty: bool, extra_path: str | None) -> dict[str, str]:
        ns = pod["metadata"]["namespace"]
        env = {"PATH": (extra_path + ":" if extra_path else "") + DEFAULT_PATH,
               "HOSTNAME": pod["metadata"]["name"], "HOME": "/root",
               "KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
        if tty:
            env["TERM"] = "xterm"
        for src in container.get("envFrom") or []:
            prefix = src.get("prefix", "")
            if "configMapRef" in src:
                obj = self._lookup(ns, "configmaps", src["configMapRef"].get("name", ""))
                for k, v in ((obj or {}).get("data") or {}).items():
                    env[prefix + k] = v
            if "secretRef" in src:
                obj = self._lookup(ns, "secrets", src["secretRef"].get("name", ""))
                for k, v in ((obj or {}).get("data") or {}).items():
                    env[prefix + k] = base64.b64decode(v).decode("utf-8", "replace")
        for var in container.get("env") or []:
            name = var.get("name")
            if not name:
                continue
            if "value" in var:
                env[name] = _expand(str(var["value"]), env)
            elif "valueFrom" in var:
                src = var["valueFrom"]
                if "fieldRef" in src:
                    env[name] = str(field_value(pod, src["fieldRef"].get("fieldPath", "")))
                elif "configMapKeyRef" in src:
                    obj = self._lookup(ns, "configmaps", src["configMapKeyRef"].get("name", ""))
                    value = ((obj or {}).get("data") or {}).get(src["configMapKeyRef"].get("key"))
                    if value is not None:
                        env[name] = value
                elif "secretKeyRef" in src:
                    obj = self._lookup(ns, "secrets", src["secretKeyRef"].get("name", ""))
                    value = ((obj or {}).get("data") or {}).get(src["secretKeyRef"].get("key"))
                    if value is not None:
                        env[name] = base64.b64decode(value).decode("utf-8", "replace")
                else:
                    env[name] = ""
            else:
                env[name] = ""
        return env

    def _lookup(self, namespace: str, plural: str, name: str):
        rt = self.registry.by_plural("", plural)
        return self.objects.find(rt, namespace, name) if rt else None

    def _bin_dir(self, container: dict) -> tuple[str, str] | None:
        """(host directory, where the container sees it) of the first binDirs entry for its image."""
        for b in self.bin_dirs:
            if fnmatch.fnmatchcase(container.get("image", ""), b.get("image", "*")):
                return b["dir"], os.path.normpath("/" + b.get("at", BIN_MOUNT).lstrip("/"))
        return None

    def _executable(self, argv0: str, env: dict, mounts) -> bool:
        if "/" in argv0:
            p = PodFilesystem.host_path(mounts, argv0 if argv0.startswith("/") else os.path.join("/", argv0))
            return os.access(p, os.X_OK) and not os.path.isdir(p)
        for d in env.get("PATH", "").split(":"):
            if d and os.access(os.path.join(PodFilesystem.host_path(mounts, d), argv0), os.X_OK):
                return True
        return False

    def _prepare(self, pod: dict, container: dict, tty: bool) -> tuple[list, dict, str]:
        """The container's mounts (volumes materialised), environment and working directory."""
        meta = pod["metadata"]
        root = self.fs.ensure_pod(pod)
        sources = self.fs.volume_sources(pod, root, lambda plural, n: self._lookup(meta["namespace"], plural, n),
                                         float(getattr(self.simulation, "config", {}).get("configMapRefreshSeconds", 0) or 0))
        mounts = self.fs.container_mounts(pod, container, root, sources)
        bin_dir = self._bin_dir(container)
        if bin_dir:
            mounts = [m for m in mounts if m[0] != bin_dir[1]] + [(bin_dir[1], bin_dir[0], True)]
        env = self._environment(pod, container, tty, bin_dir[1] if bin_dir else None)
        workdir = os.path.normpath("/" + (container.get("workingDir") or "/").lstrip("/"))
        return mounts, env, workdir

    def _command(self, pod: dict, container: dict, mounts, env: dict, workdir: str, argv: list[str]):
        """(argv, cwd, environment) of the process that runs `argv` as the container would, as
        the container's user (container_user)."""
        if self.use_bwrap:
            argv = container_user(pod, container).setpriv_args() + argv
            cmd = self.fs.bwrap_args(mounts, pod["metadata"]["name"], workdir)
            fd = self.spaces.namespace_fd(pod["metadata"].get("uid", ""))
            if fd is not None:  # the pod's PID namespace instead of one per command
                at = cmd.index("--unshare-pid")
                cmd[at:at + 1] = ["--pidns", str(fd)]
                # bwrap joins a PID namespace through an intermediate process that exits
                # at once; --die-with-parent set in the command before that exit (under
                # load it happens) SIGKILLs the command as it starts: exit 137 for no
                # reason. Without it the command still ends with the pod: the pause
                # process dies with this server, and the namespace with the pause.
                cmd.remove("--die-with-parent")
            for k, v in env.items():
                cmd += ["--setenv", k, v]
            return cmd + ["--", *argv], None, {"PATH": DEFAULT_PATH}, (fd,) if fd is not None else ()
        return argv, PodFilesystem.host_path(mounts, workdir), env, ()

    async def run_captured(self, pod: dict, container: dict, argv: list[str], timeout: float = 600
                           ) -> tuple[int, bytes]:
        """Runs a command as the container would, without a client: (exit code, stdout+stderr).
        The simulated kubelet runs init containers with it."""
        mounts, env, workdir = self._prepare(pod, container, False)
        if not self._executable(argv[0], env, mounts):
            return 128, _not_found_message(argv[0]).encode()
        cmd, cwd, run_env, fds = self._command(pod, container, mounts, env, workdir, argv)
        proc = await asyncio.create_subprocess_exec(*cmd, cwd=cwd, env=run_env, stdin=asyncio.subprocess.DEVNULL,
                                                    pass_fds=fds,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                                                    start_new_session=True)
        self._processes.add(proc)
        try:
            output, _ = await asyncio.wait_for(proc.communicate(), timeout)
        except asyncio.TimeoutError:
            _kill(proc)
            await proc.wait()
            return 137, b"killed: the test API server's time limit for a container command ran out\n"
        finally:
            self._processes.discard(proc)
            if proc.returncode is None:
                _kill(proc)
        code = proc.returncode
        if code == -signal.SIGKILL:
            self._log_killed(pod, container)
        return (128 - code if code < 0 else code), output

    def _log_killed(self, pod: dict, container: dict) -> None:
        alive = self.spaces.alive(pod["metadata"].get("uid", ""))
        log.warning("a command in container %s of pod %s was SIGKILLed (the pod's PID namespace %s)",
                    container.get("name"), pod["metadata"]["name"], "lives" if alive else "is gone")

    async def _session(self, ws, pod: dict, container: dict, argv: list[str], flags: dict) -> None:
        canned = self._canned_for(pod, container, argv)
        if canned is not None:
            await self._send_canned(ws, canned, argv, flags)
            return
        mounts, env, workdir = self._prepare(pod, container, flags["tty"])
        if not self._executable(argv[0], env, mounts):
            if flags["stdout"]:
                await _send(ws, STDOUT, _not_found_message(argv[0]).encode())
            await _send(ws, ERROR, json.dumps(exit_status(126, argv)).encode())
            return
        cmd, cwd, run_env, fds = self._command(pod, container, mounts, env, workdir, argv)
        proc = await asyncio.create_subprocess_exec(
            *cmd, cwd=cwd, env=run_env, pass_fds=fds,
            stdin=asyncio.subprocess.PIPE if flags["stdin"] else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if flags["tty"] else asyncio.subprocess.PIPE,
            start_new_session=True)
        self._processes.add(proc)
        client_gone = asyncio.Event()
        reader = asyncio.ensure_future(self._read_client(ws, proc, client_gone))
        try:
            pumps = [self._pump(ws, proc.stdout, STDOUT if flags["stdout"] or flags["tty"] else None)]
            if not flags["tty"]:
                pumps.append(self._pump(ws, proc.stderr, STDERR if flags["stderr"] else None))
            await asyncio.gather(*pumps)
            code = await proc.wait()
            if code == -signal.SIGKILL:
                self._log_killed(pod, container)
            if code < 0:
                code = 128 - code
            if not client_gone.is_set():
                await _send(ws, ERROR, json.dumps(exit_status(code, argv)).encode())
                await ws.close()
                try:
                    await asyncio.wait_for(asyncio.shield(reader), 2)
                except asyncio.TimeoutError:
                    pass
        finally:
            self._processes.discard(proc)
            if proc.returncode is None:
                _kill(proc)
            if not reader.done():
                reader.cancel()
                try:
                    await reader
                except (asyncio.CancelledError, Exception):
                    pass

    async def _read_client(self, ws, proc, client_gone: asyncio.Event) -> None:
        while True:
            message = await ws.recv()
            if message is None:
                # As a container runtime does: the command keeps running when the client goes
                # (kubectl killed, connection lost); its stdin ends. Only stopping it in the
                # container (exec kill, the pod's deletion) ends it.
                client_gone.set()
                if proc.stdin is not None:
                    try:
                        proc.stdin.close()
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                return
            if not message:
                continue
            channel, data = message[0], message[1:]
            if channel == STDIN and proc.stdin is not None and data:
                try:
                    proc.stdin.write(data)
                    await proc.stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    pass
            elif channel == CLOSE and data[:1] == bytes([STDIN]) and proc.stdin is not None:
                try:
                    proc.stdin.close()
                except (BrokenPipeError, ConnectionResetError):
                    pass

    async def _pump(self, ws, stream, channel: int | None) -> None:
        if stream is None:
            return
        while True:
            chunk = await stream.read(65536)
            if not chunk:
                return
            if channel is not None:
                try:
                    await _send(ws, channel, chunk)
                except (ConnectionError, Exception):
                    channel = None  # keep draining so the process is not blocked

    async def _send_canned(self, ws, canned: dict, argv: list[str], flags: dict) -> None:
        # As long as a real process takes to start: kubectl's WebSocket client registers its
        # streams after the handshake, and output sent before that is discarded ("Unknown
        # stream id 1"), which a loaded machine showed with answers sent at once.
        await asyncio.sleep(0.1)
        if flags["stdin"]:
            pass  # canned answers ignore stdin
        if canned.get("stdout") and flags["stdout"]:
            await _send(ws, STDOUT, canned["stdout"].encode())
        if canned.get("stderr") and flags["stderr"]:
            await _send(ws, STDERR, canned["stderr"].encode())
        await _send(ws, ERROR, json.dumps(exit_status(int(canned.get("exitCode", 0)), argv)).encode())


def _not_found_message(argv0: str) -> str:
    return (f'OCI runtime exec failed: exec failed: unable to start container process: exec: '
            f'"{argv0}": executable file not found in $PATH: unknown\r\n')


def _bwrap_works() -> bool:
    """bubblewrap needs mount namespaces; without them exec runs unsandboxed (and says so)."""
    if shutil.which("bwrap") is None:
        log.warning("bwrap not found: exec runs commands without a sandbox")
        return False
    probe = PodFilesystem.bwrap_args([], "probe", "/") + ["--", "true"]
    try:
        ok = subprocess.run(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        log.warning("bwrap cannot create namespaces here: exec runs commands without a sandbox")
    return ok


async def _send(ws, channel: int, data: bytes) -> None:
    await ws.send_binary(bytes([channel]) + data)


def _kill(proc) -> None:
    # asyncio's child watcher reaps in its own thread and sets returncode later,
    # on the loop: in between, the pid is free and may lead a new process group
    # (another pod's command). Only a child not yet reaped is signalled.
    if proc.returncode is not None:
        return
    try:
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _expand(value: str, env: dict) -> str:
    """Kubernetes $(VAR) expansion of earlier variables; $$ escapes."""
    out, i = "", 0
    while i < len(value):
        if value.startswith("$$", i):
            out += "$"
            i += 2
        elif value.startswith("$(", i) and ")" in value[i:]:
            end = value.index(")", i)
            name = value[i + 2:end]
            out += env.get(name, value[i:end + 1])
            i = end + 1
        else:
            out += value[i]
            i += 1
    return out
