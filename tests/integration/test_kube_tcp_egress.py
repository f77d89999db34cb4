"""sandbox-kubernetes' ssh client configuration run for real: the file `create --dry-run`
puts in the CA ConfigMap (mounted in the sandbox pod at
/etc/ssh/ssh_config.d/osf-egress.conf), with the egress Service's name and port replaced by a
real egress-proxy's on loopback, is given to the real ssh and git, against an sshd on loopback
standing for an allowed `tcp` host. Its ProxyCommand (bash's /dev/tcp and an HTTP CONNECT) must
clone a repository, run a command, and say why a host that is not in `tcp` is refused; the
proxy logs each tunnel. (The test API server's pods cannot reach each other by a Service, so
this is the part of the way in that can run here; the manifests are checked in
tests/unit and test_adapter.py.)"""
import json
import os
import shutil
import subprocess

import pytest

from osftest.proxy import Proxy
from osftest.waiting import wait_until
from test_local_tcp_egress import SshServer

ADAPTER = os.environ.get("SANDBOX_KUBERNETES_BIN") or os.path.join(
    os.environ.get("OSF_BUILD", "build/default"), "adapter", "sandbox-kubernetes")

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/usr/sbin/sshd"), reason="openssh-server is not installed "
                       "(scripts/install-deps.sh)"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash"),
]


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("sshd in inetd mode with root login needs root")
    directory = tmp_path_factory.mktemp("sshd")
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    server = SshServer(str(directory))
    try:
        yield server
    finally:
        server.close()


def kubernetes_ssh_config(tmp_path):
    """The ssh_config key of the CA ConfigMap, as `create --dry-run` shows it."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"template": "debian:12", "tcp": ["git.test:22"]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSF_") and not k.lower().endswith("_proxy")}
    env.update({"KUBECONFIG": str(tmp_path / "no-such-kubeconfig"), "HOME": str(tmp_path)})
    res = subprocess.run([ADAPTER, "create", "--dry-run", str(spec)], capture_output=True, text=True, env=env,
                         timeout=60)
    assert res.returncode == 0, res.stderr
    items = json.loads(res.stdout)["items"]
    [ca] = [i for i in items if i["kind"] == "ConfigMap" and i["metadata"]["name"].endswith("-ca")]
    sandbox_id = ca["metadata"]["labels"]["osf.sandbox.id"]
    return ca["data"]["ssh_config"], f"osf-sandbox-{sandbox_id}-egress"


def test_the_kubernetes_proxy_command_tunnels_ssh_through_the_real_proxy(sshd, tmp_path):
    config, service = kubernetes_ssh_config(tmp_path)
    assert config.endswith(f"' {service} 8080 %h %p\n")
    proxy = Proxy({"tcp": [f"git.test:{sshd.port}"]}, str(tmp_path / "proxy"),
                  aliases={"git.test": "127.0.0.1", "other.test": "127.0.0.1"})
    try:
        host, port = proxy.listen.rsplit(":", 1)
        (tmp_path / "ssh_config").write_text(config.replace(f" {service} 8080 ", f" {host} {port} "))
        key = tmp_path / "id_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        sshd.authorize(key.with_suffix(".pub").read_text())
        (tmp_path / "known_hosts").write_text(sshd.known_hosts_line("git.test") +
                                              sshd.known_hosts_line("other.test"))
        ssh = (f"ssh -F {tmp_path}/ssh_config -o UserKnownHostsFile={tmp_path}/known_hosts "
               f"-o GlobalKnownHostsFile=/dev/null -o BatchMode=yes -i {key}")
        res = subprocess.run([*ssh.split(), "-p", str(sshd.port), "root@git.test", "echo", "over-bash"],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        assert res.stdout == "over-bash\n"

        repo = tmp_path / "repo.git"
        subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
        res = subprocess.run(["git", "clone", "-q", f"ssh://root@git.test:{sshd.port}{repo}", str(tmp_path / "c")],
                             capture_output=True, text=True, timeout=60, env={**os.environ, "GIT_SSH_COMMAND": ssh})
        assert res.returncode == 0, res.stderr
        assert (tmp_path / "c" / ".git").is_dir()

        accepted = sshd.accepted
        res = subprocess.run([*ssh.split(), "-p", str(sshd.port), "root@other.test", "true"],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 255
        assert f"osf egress proxy: other.test:{sshd.port} refused (HTTP/1.1 403" in res.stderr, res.stderr
        assert sshd.accepted == accepted

        def tunnel_lines():
            lines = [l for l in proxy.log_lines() if l.get("port") == sshd.port]
            allowed = [l for l in lines if l.get("host") == "git.test" and l.get("outcome") == "allowed"]
            refused = [l for l in lines if l.get("host") == "other.test" and l.get("outcome") != "allowed"]
            return len(allowed) >= 2 and refused and (allowed, refused)
        allowed, _ = wait_until(tunnel_lines, timeout=30, what="the tunnels' log lines")
        assert all(l["scheme"] == "tcp" and l["via"] == "connect" for l in allowed)
    finally:
        proxy.stop()
