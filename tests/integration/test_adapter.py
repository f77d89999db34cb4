"""sandbox-kubernetes with the real kubectl against the test Kubernetes API server
(tests/kube-api): every command and exit code, the objects create writes (field by field),
clean-up after failures, kubectl's messages surfaced, and --dry-run checked against the
agent-sandbox CRDs."""

import base64
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from osftest.egress_log import SignedLog, expected_summary, summary_as_expected

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("OSF_REPO") or os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "kube-api"))

from kube_api_fixture import KubeApiServer  # noqa: E402
import openapi_validate  # noqa: E402
import pod_security  # noqa: E402

BUILD = os.environ.get("OSF_BUILD") or os.path.join(REPO, "build", "default")
ADAPTER = os.environ.get("SANDBOX_KUBERNETES_BIN") or os.path.join(BUILD, "adapter", "sandbox-kubernetes")
# agent-sandbox's CRDs as published (copied into the repository with the test API server).
CRDS = os.path.join(REPO, "tests", "kube-api", "crds")

pytestmark = [
    pytest.mark.usefixtures("pinned_kubectl"),  # the same kubectl on every machine (conftest)
    pytest.mark.skipif(not os.path.exists(ADAPTER), reason=f"{ADAPTER} is not built"),
]

ID_RE = re.compile(r"^[0-9a-f]{12}$")
SECRET_VALUE = "lin_api_s3cr3t-value-never-printed"
FILE_SECRET = "npm-file-secret-content\n"
ALL_KINDS = ("sandboxclaims.extensions.agents.x-k8s.io,sandboxwarmpools.extensions.agents.x-k8s.io,"
             "sandboxes.agents.x-k8s.io,sandboxtemplates.extensions.agents.x-k8s.io,pods,services,"
             "networkpolicies.networking.k8s.io,configmaps,secrets,persistentvolumeclaims")


def request_line(time, host, path, outcome="allowed", **extra):
    line = {"time": time, "connection": 1, "client": "10.0.0.7:40000", "host": host, "port": 443,
            "scheme": "https", "method": "POST" if path else "CONNECT", "path": path, "outcome": outcome,
            "status": 200 if outcome == "allowed" else 403}
    line.update(extra)
    line.update({"bytesUp": extra.get("bytesUp", 0), "bytesDown": extra.get("bytesDown", 0), "durationMs": 1.5})
    return line


def signed_log(key=None):
    """A log as the proxy writes it (hash chain, checkpoints), signed by `key` (a new key by default)."""
    log = SignedLog(time="2026-11-29T18:59:59.000Z", key=key)
    log.request(request_line("2026-11-29T19:00:00.000Z", "api.linear.app", "/graphql", secrets=["LINEAR_TOKEN"],
                             bytesUp=120, bytesDown=2048))
    log.request(request_line("2026-11-29T19:00:01.000Z", "evil.example", "", "refused", refusedBy="host-not-allowed"))
    log.checkpoint(time="2026-11-29T19:00:02.000Z")
    log.request(request_line("2026-11-29T19:00:03.000Z", "wiki.example.com", "/mcp", mcpServer="wiki", tool="search",
                             bytesUp=50, bytesDown=700))
    log.request(request_line("2026-11-29T19:00:04.000Z", "wiki.example.com", "/mcp", "refused", refusedBy="mcp-tool",
                             mcpServer="wiki", tool="delete_page"))
    log.checkpoint(time="2026-11-29T19:00:05.000Z")
    return log


LOG = signed_log()
EGRESS_LOG = LOG.text()
# What the proxy prints without --raw: its request lines (the chain's start and checkpoints left out).
EGRESS_REQUESTS = "".join(line + "\n" for line in EGRESS_LOG.splitlines() if '"kind"' not in line)
FOLLOWED = "followed lines\n"


def make_ca_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "osf test egress CA")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


CA_PEM = make_ca_pem()
EXEC_HANDLERS = [
    # The egress proxy image is not run here; its subcommands get canned answers.
    {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "ca", "--with-log-key"],
     "stdout": CA_PEM + LOG.public_pem},
    {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "log", "checkpoint"],
     "stdout": '{"kind":"checkpoint"}\n'},
    {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "log", "--state-dir",
                                            "/var/lib/egress-proxy", "--follow"], "stdout": FOLLOWED},
    {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "log", "--state-dir",
                                            "/var/lib/egress-proxy"], "stdout": EGRESS_REQUESTS},
    {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "log"], "stdout": EGRESS_LOG},
]


@pytest.fixture(scope="module")
def kube(tmp_path_factory):
    with KubeApiServer(tmp_path_factory.mktemp("kube-api")) as server:
        server.set_exec(handlers=EXEC_HANDLERS)
        yield server


@pytest.fixture
def cluster(kube):
    """The module's server, with the default simulation restored after each test."""
    yield kube
    kube.configure(podRules=[], podDelaySeconds=0.2, sandboxController=True, forbid=[], gcDelaySeconds=0,
                   templateNetworkPolicies=True, configMapRefreshSeconds=0, defaultStorageClass="standard")
    kube.set_exec(handlers=EXEC_HANDLERS, bin_dirs=[])


@pytest.fixture
def secrets_dir(tmp_path):
    d = tmp_path / "secrets"
    d.mkdir()
    (d / "npm").write_text(FILE_SECRET)
    return d


def adapter(kube, *args, env=None, input=None, timeout=180, check=None):
    full_env = kube.env()
    full_env.update(env or {})
    result = subprocess.run([ADAPTER, *args], input=input, capture_output=True, text=True, env=full_env,
                            timeout=timeout)
    if check is not None:
        assert result.returncode == check, (f"exit {result.returncode}\nstdout: {result.stdout}\n"
                                            f"stderr: {result.stderr}\ntest API server: {kube.warnings()}")
    return result


def write_spec(tmp_path, spec, name="spec.json"):
    path = tmp_path / name
    path.write_text(json.dumps(spec, indent=1))
    return str(path)


def create(kube, tmp_path, spec=None, env=None):
    spec = spec or {"template": "node:24-alpine"}
    result = adapter(kube, "create", write_spec(tmp_path, spec), env=env, check=0)
    sandbox_id = result.stdout.strip()
    assert ID_RE.match(sandbox_id), result.stdout
    return sandbox_id, result


def labelled(kube, sandbox_id):
    """Every object left with the sandbox's label."""
    out = kube.kubectl("get", ALL_KINDS, "-l", f"osf.sandbox.id={sandbox_id}", "-o", "json", check=True).stdout
    return json.loads(out)["items"]


def labelled_by_manager(kube):
    out = kube.kubectl("get", ALL_KINDS, "-l", "app.kubernetes.io/managed-by=sandbox-kubernetes", "-o", "json",
                       check=True).stdout
    return json.loads(out)["items"]


def get(kube, resource, name):
    return kube.kubectl_json("get", resource, name)


def env_map(container):
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def crd_schema(kind):
    for path in os.listdir(CRDS):
        if not path.endswith(".yaml"):
            continue
        with open(os.path.join(CRDS, path), encoding="utf-8") as f:
            for doc in yaml.safe_load_all(f):
                if doc and doc.get("kind") == "CustomResourceDefinition" and doc["spec"]["names"]["kind"] == kind:
                    for version in doc["spec"]["versions"]:
                        if version["name"] == "v1beta1":
                            return version["schema"]["openAPIV3Schema"]
    raise AssertionError(f"no v1beta1 CRD for {kind}")


FULL_SPEC = {
    "template": "node:24-alpine",
    "cpu": 2,
    "memory": "4Gi",
    "env": {"CI": "1"},
    "egress": ["api.linear.app", "registry.npmjs.org"],
    "secrets": {"LINEAR_TOKEN": "ref:env/LINEAR_TOKEN", "NPM_TOKEN": "ref:file/npm"},
}


# -- create: the objects, field by field ----------------------------------------------------------

def test_create_writes_every_object(cluster, tmp_path, secrets_dir):
    kube = cluster
    env = {"OSF_SECRET_LINEAR_TOKEN": SECRET_VALUE, "OSF_SECRETS_DIR": str(secrets_dir),
           "OSF_SANDBOX_HOST_ALIASES": "api.linear.app=10.0.0.5"}
    sandbox_id, result = create(kube, tmp_path, FULL_SPEC, env)
    assert result.stdout == sandbox_id + "\n"
    assert "egress proxy" in result.stderr and "ready" in result.stderr  # progress on stderr
    assert SECRET_VALUE not in result.stdout + result.stderr
    name = f"osf-sandbox-{sandbox_id}"
    # Everything but the claim is owned by the claim, and labelled so (gc leaves it out).
    labels = {"osf.sandbox.id": sandbox_id, "app.kubernetes.io/managed-by": "sandbox-kubernetes",
              "osf.sandbox.owned-by-claim": "true"}

    secret = get(kube, "secret", f"{name}-secrets")
    assert secret["metadata"]["labels"] == labels
    data = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert data == {"env.LINEAR_TOKEN": SECRET_VALUE, "file.npm": FILE_SECRET}

    spec_cm = get(kube, "configmap", f"{name}-spec")
    assert json.loads(spec_cm["data"]["spec.json"]) == FULL_SPEC
    assert spec_cm["metadata"]["labels"] == labels

    pod = get(kube, "pod", f"{name}-egress")
    assert pod["metadata"]["labels"] == {**labels, "osf.sandbox.role": "egress",
                                         "app.kubernetes.io/component": "egress-proxy"}
    c = pod["spec"]["containers"][0]
    assert c["image"] == "ghcr.io/opensoftware/egress-proxy:0.1.0"
    assert c["command"] == ["/usr/local/bin/egress-proxy"]
    assert c["args"] == ["--spec", "/etc/osf/spec/spec.json", "--listen", "0.0.0.0:8080", "--admin-listen",
                         "0.0.0.0:9090", "--state-dir", "/var/lib/egress-proxy", "--log-stdout"]
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["readinessProbe"]["httpGet"]["port"] == 9090
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["allowPrivilegeEscalation"] is False
    assert c["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert c["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["spec"]["automountServiceAccountToken"] is False
    assert pod["spec"]["enableServiceLinks"] is False
    e = env_map(c)
    assert e["OSF_SECRET_LINEAR_TOKEN"] == {"secretKeyRef": {"name": f"{name}-secrets", "key": "env.LINEAR_TOKEN"}}
    assert e["OSF_SECRETS_DIR"] == "/run/secrets/osf"
    assert e["OSF_SANDBOX_HOST_ALIASES"] == "api.linear.app=10.0.0.5"
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    assert "emptyDir" in volumes[mounts["/var/lib/egress-proxy"]]
    assert volumes[mounts["/run/secrets/osf"]]["secret"]["items"] == [{"key": "file.npm", "path": "npm"}]
    # The proxy really gets the values: the file where OSF_SECRETS_DIR says, the variable from the Secret.
    egress_exec = ["exec", f"{name}-egress", "-c", "egress-proxy", "--"]
    assert kube.kubectl(*egress_exec, "cat", "/run/secrets/osf/npm", check=True).stdout == FILE_SECRET
    assert kube.kubectl(*egress_exec, "printenv", "OSF_SECRET_LINEAR_TOKEN", check=True).stdout == SECRET_VALUE + "\n"

    service = get(kube, "service", f"{name}-egress")
    assert service["spec"]["selector"] == {"osf.sandbox.id": sandbox_id, "osf.sandbox.role": "egress"}
    # SOCKS5 on a second Service port, to the same container port (the proxy tells them apart).
    assert [(p["port"], p["targetPort"]) for p in service["spec"]["ports"]] == [(8080, 8080), (1080, 8080)]

    policy = get(kube, "networkpolicy", f"{name}-egress")
    assert policy["spec"]["podSelector"] == {"matchLabels": {"osf.sandbox.id": sandbox_id,
                                                             "osf.sandbox.role": "egress"}}
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    assert policy["spec"]["ingress"] == [{
        "from": [{"podSelector": {"matchLabels": {"osf.sandbox.id": sandbox_id, "osf.sandbox.role": "sandbox"}}}],
        "ports": [{"protocol": "TCP", "port": 8080}]}]

    ca = get(kube, "configmap", f"{name}-ca")
    ssh_config = ca["data"].pop("ssh_config")
    assert ca["data"] == {"egress-ca.crt": CA_PEM, "egress-log-key.pub": LOG.public_pem}
    assert "    ProxyCommand /bin/bash -c '" in ssh_config
    assert ssh_config.endswith(f"' {name}-egress 8080 %h %p\n")

    template = get(kube, "sandboxtemplates.extensions.agents.x-k8s.io", name)
    assert template["metadata"]["labels"] == labels
    np = template["spec"]["networkPolicy"]
    assert np.get("ingress", []) == []
    # Only the proxy: no DNS, which would carry data out past it.
    assert np["egress"] == [{
        "to": [{"podSelector": {"matchLabels": {"osf.sandbox.id": sandbox_id, "osf.sandbox.role": "egress"}}}],
        "ports": [{"protocol": "TCP", "port": 8080}]}]
    pod_spec = template["spec"]["podTemplate"]["spec"]
    # The proxy's name resolves from /etc/hosts to the Service the API server made.
    service_ip = get(kube, "service", f"{name}-egress")["spec"]["clusterIP"]
    assert pod_spec["dnsPolicy"] == "None" and pod_spec["dnsConfig"] == {"nameservers": ["127.0.0.1"]}
    assert pod_spec["hostAliases"] == [{"ip": service_ip, "hostnames": [
        f"{name}-egress", f"{name}-egress.{template['metadata']['namespace']}.svc"]}]
    sc = pod_spec["containers"][0]
    assert sc["image"] == "node:24-alpine"
    assert sc["command"] == ["sleep", "infinity"]
    assert sc["workingDir"] == "/workspace"
    assert sc["resources"] == {"requests": {"cpu": "2", "memory": "4Gi", "ephemeral-storage": "10Gi"},
                               "limits": {"cpu": "2", "memory": "4Gi", "ephemeral-storage": "10Gi"}}
    assert sc["securityContext"]["allowPrivilegeEscalation"] is False
    assert sc["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert sc["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod_spec["automountServiceAccountToken"] is False
    assert pod_spec["enableServiceLinks"] is False
    assert pod_spec["restartPolicy"] == "Never"
    assert pod_spec["shareProcessNamespace"] is True
    assert pod_spec["terminationGracePeriodSeconds"] == 5
    assert {"name": "workspace", "emptyDir": {"sizeLimit": "10Gi"}} in pod_spec["volumes"]
    se = env_map(sc)
    proxy = f"http://{name}-egress:8080"
    assert se["CI"] == "1"
    assert se["LINEAR_TOKEN"] == "osf-secret-placeholder-LINEAR_TOKEN"
    assert se["NPM_TOKEN"] == "osf-secret-placeholder-NPM_TOKEN"
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        assert se[var] == proxy
    assert se["ALL_PROXY"] == se["all_proxy"] == f"socks5h://{name}-egress:1080"
    assert se["NO_PROXY"] == "" and se["no_proxy"] == ""
    assert {"name": "osf-ssh-config", "mountPath": "/etc/ssh/ssh_config.d/osf-egress.conf",
            "subPath": "ssh_config", "readOnly": True} in sc["volumeMounts"]
    for var in ("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"):
        assert se[var] == "/etc/osf/egress-ca.crt"
    assert SECRET_VALUE not in json.dumps(template)

    pool = get(kube, "sandboxwarmpools.extensions.agents.x-k8s.io", name)
    assert pool["spec"]["replicas"] == 0
    assert pool["spec"]["sandboxTemplateRef"] == {"name": name}
    claim = get(kube, "sandboxclaims.extensions.agents.x-k8s.io", name)
    assert claim["spec"]["warmPoolRef"] == {"name": name}
    assert claim["status"]["sandbox"]["name"] == name
    assert any(c["type"] == "Ready" and c["status"] == "True" for c in claim["status"]["conditions"])

    # The controller's pod: our labels reach it, and the CA file is really there.
    sandbox_pod = get(kube, "pod", name)
    assert sandbox_pod["metadata"]["labels"]["osf.sandbox.role"] == "sandbox"
    out = adapter(kube, "exec", sandbox_id, "--", "cat", "/etc/osf/egress-ca.crt", check=0).stdout
    assert out == CA_PEM
    out = adapter(kube, "exec", sandbox_id, "--", "sh", "-c", "echo $HTTPS_PROXY $LINEAR_TOKEN", check=0).stdout
    assert out == f"{proxy} osf-secret-placeholder-LINEAR_TOKEN\n"
    # ...and the sandbox does not.
    out = adapter(kube, "exec", sandbox_id, "--", "sh", "-c", "env; cat /run/secrets/osf/npm 2>/dev/null; true",
                  check=0).stdout
    assert SECRET_VALUE not in out and "OSF_SECRET" not in out and FILE_SECRET not in out

    adapter(kube, "destroy", sandbox_id, check=0)
    assert labelled(kube, sandbox_id) == []


def test_namespace_and_proxy_image_variables(cluster, tmp_path):
    kube = cluster
    kube.kubectl("create", "namespace", "agents")
    env = {"OSF_SANDBOX_NAMESPACE": "agents", "OSF_EGRESS_PROXY_IMAGE": "registry.local/egress-proxy:dev"}
    sandbox_id, _ = create(kube, tmp_path, env=env)
    pod = kube.kubectl_json("get", "pod", "-n", "agents", f"osf-sandbox-{sandbox_id}-egress")
    assert pod["spec"]["containers"][0]["image"] == "registry.local/egress-proxy:dev"
    assert adapter(kube, "list", env=env, check=0).stdout.split()[0] == sandbox_id
    assert sandbox_id not in adapter(kube, "list", check=0).stdout  # other namespace
    adapter(kube, "destroy", sandbox_id, env=env, check=0)


def test_upstream_ca_bundle_and_pull_policy_reach_the_egress_pod_only(cluster, tmp_path):
    """OSF_UPSTREAM_CA_BUNDLE: a ConfigMap the egress pod mounts, its proxy started with
    --upstream-ca on it; the sandbox pod mounts only its own CA. OSF_SANDBOX_IMAGE_PULL_POLICY:
    both pods."""
    kube = cluster
    bundle = tmp_path / "corporate-ca.pem"
    pem = make_ca_pem()
    bundle.write_text(pem)
    env = {"OSF_UPSTREAM_CA_BUNDLE": str(bundle), "OSF_SANDBOX_IMAGE_PULL_POLICY": "Always"}
    spec = write_spec(tmp_path, {"template": "alpine:3"})
    listing = json.loads(adapter(kube, "create", "--dry-run", spec, env=env, check=0).stdout)
    names = [(item["kind"], item["metadata"]["name"]) for item in listing["items"]]
    sandbox_id = listing["items"][0]["metadata"]["labels"]["osf.sandbox.id"]
    upstream = f"osf-sandbox-{sandbox_id}-upstream-ca"
    assert names.index(("ConfigMap", upstream)) < names.index(("Pod", f"osf-sandbox-{sandbox_id}-egress"))
    assert next(i for i in listing["items"] if i["metadata"]["name"] == upstream)["data"] == {"upstream-ca.crt": pem}

    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"}, env=env)
    try:
        upstream = f"osf-sandbox-{sandbox_id}-upstream-ca"
        assert get(kube, "configmap", upstream)["data"] == {"upstream-ca.crt": pem}
        egress = get(kube, "pod", f"osf-sandbox-{sandbox_id}-egress")
        [c] = egress["spec"]["containers"]
        assert c["args"][-2:] == ["--upstream-ca", "/etc/osf/upstream-ca/upstream-ca.crt"]
        assert {"name": "upstream-ca", "mountPath": "/etc/osf/upstream-ca", "readOnly": True} in c["volumeMounts"]
        volumes = {v["name"]: v for v in egress["spec"]["volumes"]}
        assert volumes["upstream-ca"]["configMap"]["name"] == upstream
        assert c["imagePullPolicy"] == "Always"
        # The proxy in the pod reads it (the test server binds the pod's volumes).
        out = kube.kubectl("exec", f"osf-sandbox-{sandbox_id}-egress", "--", "cat",
                           "/etc/osf/upstream-ca/upstream-ca.crt", check=True).stdout
        assert out == pem
        sandbox_pod = get(kube, "pod", f"osf-sandbox-{sandbox_id}")
        assert upstream not in json.dumps(sandbox_pod)
        assert sandbox_pod["spec"]["containers"][0]["imagePullPolicy"] == "Always"
        adapter(kube, "destroy", sandbox_id, check=0)
        assert kube.kubectl("get", "configmap", upstream).returncode != 0
    finally:
        adapter(kube, "destroy", sandbox_id)
    # A path that is not a bundle: exit 2 before anything is made.
    before = labelled_by_manager(kube)
    for text, problem in ((None, "cannot read"), ("-----BEGIN PRIVATE KEY-----\n", "holds no PEM certificate")):
        missing = tmp_path / "not-a-bundle.pem"
        if text is not None:
            missing.write_text(text)
        for args in (["create", "--dry-run", spec], ["create", spec]):
            res = adapter(kube, *args, env={"OSF_UPSTREAM_CA_BUNDLE": str(missing)}, check=2)
            assert res.stderr.startswith(f"sandbox-kubernetes: OSF_UPSTREAM_CA_BUNDLE: ") and problem in res.stderr, \
                res.stderr
    assert labelled_by_manager(kube) == before


# -- --dry-run ------------------------------------------------------------------------------------

def test_dry_run_prints_a_valid_list_and_touches_no_cluster(cluster, tmp_path, secrets_dir):
    kube = cluster
    env = {"OSF_SECRET_LINEAR_TOKEN": SECRET_VALUE, "OSF_SECRETS_DIR": str(secrets_dir),
           "KUBECONFIG": str(tmp_path / "no-such-kubeconfig")}
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", "--dry-run", write_spec(tmp_path, FULL_SPEC), env=env, check=0)
    assert SECRET_VALUE not in result.stdout and FILE_SECRET.strip() not in result.stdout
    listing = json.loads(result.stdout)
    assert listing["apiVersion"] == "v1" and listing["kind"] == "List"
    kinds = [item["kind"] for item in listing["items"]]
    assert kinds == ["SandboxClaim", "Secret", "ConfigMap", "Pod", "Service", "NetworkPolicy", "ConfigMap",
                     "SandboxTemplate", "SandboxWarmPool"]
    secret = listing["items"][1]
    assert secret["stringData"] == {"env.LINEAR_TOKEN": "osf-secret-placeholder-LINEAR_TOKEN",
                                    "file.npm": "osf-secret-placeholder-npm"}
    assert listing["items"][6]["data"].keys() == {"egress-ca.crt", "ssh_config"}
    assert listing["items"][6]["data"]["egress-ca.crt"] == ""
    sandbox_id = listing["items"][0]["metadata"]["labels"]["osf.sandbox.id"]
    assert ID_RE.match(sandbox_id)

    # Each agent-sandbox object against its v1beta1 CRD schema: no unknown field, no error.
    for item in [listing["items"][0]] + listing["items"][7:]:
        assert item["apiVersion"] == "extensions.agents.x-k8s.io/v1beta1"
        _, unknown, errors = openapi_validate.check(crd_schema(item["kind"]), item)
        assert unknown == [], (item["kind"], unknown)
        assert errors == [], (item["kind"], [str(e) for e in errors])

    assert labelled_by_manager(kube) == before  # nothing was made

    # What users do with it: the server validates every object strictly, and stores nothing.
    applied = kube.kubectl("apply", "--dry-run=server", "-f", "-", input=result.stdout)
    assert applied.returncode == 0, applied.stderr
    assert labelled_by_manager(kube) == before


# -- create: errors before anything starts --------------------------------------------------------

def test_invalid_spec_exits_2_and_creates_nothing(cluster, tmp_path):
    kube = cluster
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3", "egres": []}), check=2)
    assert "$.egres" in result.stderr
    assert result.stdout == ""
    result = adapter(kube, "create", str(tmp_path / "missing.json"), check=2)
    assert "cannot read spec" in result.stderr
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    adapter(kube, "create", str(bad_json), check=2)
    assert labelled_by_manager(kube) == before


@pytest.mark.parametrize("secret,env,message", [
    ("ref:env/LINEAR_TOKEN", {}, "OSF_SECRET_LINEAR_TOKEN is not set"),
    ("ref:file/absent", {}, "no file "),
    ("ref:openbao/team/token", {"OSF_OPENBAO_ADDR": "http://127.0.0.1:1"}, "OSF_OPENBAO_ADDR and OSF_OPENBAO_TOKEN"),
])
def test_unresolvable_secret_exits_2_and_creates_nothing(cluster, tmp_path, secrets_dir, secret, env, message):
    kube = cluster
    before = labelled_by_manager(kube)
    env = {"OSF_SECRETS_DIR": str(secrets_dir), **env}
    spec = {"template": "alpine:3", "secrets": {"TOKEN": secret}}
    result = adapter(kube, "create", write_spec(tmp_path, spec), env=env, check=2)
    assert "secret TOKEN" in result.stderr and message in result.stderr
    assert labelled_by_manager(kube) == before


def test_openbao_secret_gives_the_proxy_address_and_token(cluster, tmp_path):
    kube = cluster
    env = {"OSF_OPENBAO_ADDR": "https://bao.internal:8200", "OSF_OPENBAO_TOKEN": "s.bao-token-value",
           "OSF_OPENBAO_MOUNT": "kv"}
    sandbox_id, result = create(kube, tmp_path, {"template": "alpine:3", "secrets": {"WIKI": "ref:openbao/wiki/key"}},
                                env)
    assert "s.bao-token-value" not in result.stdout + result.stderr
    name = f"osf-sandbox-{sandbox_id}"
    secret = get(kube, "secret", f"{name}-secrets")
    assert base64.b64decode(secret["data"]["openbao-token"]).decode() == "s.bao-token-value"
    e = env_map(get(kube, "pod", f"{name}-egress")["spec"]["containers"][0])
    assert e["OSF_OPENBAO_ADDR"] == "https://bao.internal:8200"
    assert e["OSF_OPENBAO_MOUNT"] == "kv"
    assert e["OSF_OPENBAO_TOKEN"] == {"secretKeyRef": {"name": f"{name}-secrets", "key": "openbao-token"}}
    sandbox_env = json.dumps(get(kube, "sandboxtemplates.extensions.agents.x-k8s.io", name))
    assert "OSF_OPENBAO" not in sandbox_env and "bao.internal" not in sandbox_env
    adapter(kube, "destroy", sandbox_id, check=0)


def test_named_template_is_copied_or_exit_1_when_missing(cluster, tmp_path):
    kube = cluster
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "python-dev"}), check=1)
    assert "no SandboxTemplate python-dev in namespace default" in result.stderr
    assert labelled_by_manager(kube) == before

    user_template = {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxTemplate",
        "metadata": {"name": "python-dev"},
        "spec": {"podTemplate": {"metadata": {"labels": {"team": "ml"}},
                                 "spec": {"containers": [{"name": "py", "image": "python:3.12",
                                                          "command": ["sleep", "infinity"],
                                                          "env": [{"name": "KEEP", "value": "yes"}]}]}}}}
    kube.kubectl("create", "-f", "-", input=json.dumps(user_template), check=True)
    sandbox_id, _ = create(kube, tmp_path, {"template": "python-dev"})
    template = get(kube, "sandboxtemplates.extensions.agents.x-k8s.io", f"osf-sandbox-{sandbox_id}")
    pod_template = template["spec"]["podTemplate"]
    assert pod_template["metadata"]["labels"]["team"] == "ml"
    c = pod_template["spec"]["containers"][0]
    assert c["image"] == "python:3.12"
    assert env_map(c)["KEEP"] == "yes"
    assert env_map(c)["HTTPS_PROXY"] == f"http://osf-sandbox-{sandbox_id}-egress:8080"
    assert adapter(kube, "exec", sandbox_id, "--", "pwd", check=0).stdout == "/workspace\n"
    adapter(kube, "destroy", sandbox_id, check=0)
    kube.kubectl("delete", "sandboxtemplates.extensions.agents.x-k8s.io", "python-dev", check=True)


# -- create: start failures are cleaned up --------------------------------------------------------

def test_image_pull_failure_removes_everything(cluster, tmp_path):
    kube = cluster
    kube.configure(podRules=[{"image": "registry.invalid/*", "behavior": "ErrImagePull",
                              "message": "failed to pull image registry.invalid/nope:1: not found"}])
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "registry.invalid/nope:1"}), check=1)
    assert "container sandbox: ErrImagePull: failed to pull image registry.invalid/nope:1: not found" in result.stderr
    assert result.stdout == ""
    assert labelled_by_manager(kube) == before
    sandbox_id = re.search(r"creating sandbox ([0-9a-f]{12})", result.stderr).group(1)
    assert f"removing sandbox {sandbox_id}" in result.stderr
    assert kube.kubectl("get", "sandboxes.agents.x-k8s.io", f"osf-sandbox-{sandbox_id}").returncode != 0
    assert kube.kubectl("get", "pod", f"osf-sandbox-{sandbox_id}").returncode != 0


def test_egress_proxy_that_exits_removes_everything(cluster, tmp_path):
    kube = cluster
    kube.configure(podRules=[{"name": "osf-sandbox-*-egress", "behavior": "exit", "exitCode": 2,
                              "message": "egress-proxy: bad configuration"}])
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}), check=1)
    assert "egress proxy did not start" in result.stderr
    assert "container egress-proxy: Error: exited with code 2: egress-proxy: bad configuration" in result.stderr
    assert labelled_by_manager(kube) == before


def test_sandbox_container_that_exits_removes_everything(cluster, tmp_path):
    kube = cluster
    kube.configure(podRules=[{"image": "busybox:*", "behavior": "CrashLoopBackOff", "exitCode": 1}])
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "busybox:1.36"}), check=1)
    # restartPolicy Never: the container is not restarted into CrashLoopBackOff, it terminates.
    assert "sandbox did not start" in result.stderr
    assert "container sandbox: Error: exited with code 1" in result.stderr
    assert labelled_by_manager(kube) == before


def test_a_sandbox_without_network_isolation_is_not_reported_ready(cluster, tmp_path):
    """agent-sandbox makes the sandbox's NetworkPolicy from its template, asynchronously, or not at
    all (its controller down for that part). create waits for it, or for a default-deny of the
    namespace covering every sandbox pod, before it prints the ID."""
    kube = cluster
    kube.configure(templateNetworkPolicies=False)
    before = labelled_by_manager(kube)
    env = {"OSF_SANDBOX_START_TIMEOUT": "4"}
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}), env=env, check=1)
    sandbox_id = re.search(r"creating sandbox ([0-9a-f]{12})", result.stderr).group(1)
    policy = f"osf-sandbox-{sandbox_id}-network-policy"
    assert f"timed out after 4s waiting for the sandbox's NetworkPolicy {policy} (OSF_SANDBOX_START_TIMEOUT): " \
           f"NetworkPolicy {policy} does not exist" in result.stderr, result.stderr
    assert "no default-deny NetworkPolicy covers sandbox pods" in result.stderr
    assert result.stdout == "" and labelled_by_manager(kube) == before
    # The chart's default-deny covers the pod meanwhile: the sandbox starts.
    kube.kubectl("create", "-f", "-", check=True, input=json.dumps({
        "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "sandbox-default-deny"},
        "spec": {"podSelector": {"matchLabels": {"osf.sandbox.role": "sandbox"}}, "policyTypes": ["Ingress", "Egress"]}}))
    try:
        sandbox_id, result = create(kube, tmp_path, {"template": "alpine:3"}, env=env)
        assert "NetworkPolicy sandbox-default-deny denies the sandbox's traffic meanwhile" in result.stderr
        adapter(kube, "destroy", sandbox_id, check=0)
    finally:
        kube.kubectl("delete", "networkpolicy", "sandbox-default-deny", check=True)
    # With the controller's policy: in place.
    kube.configure(templateNetworkPolicies=True)
    sandbox_id, result = create(kube, tmp_path, {"template": "alpine:3"})
    assert f"sandbox network policy osf-sandbox-{sandbox_id}-network-policy: in place" in result.stderr
    adapter(kube, "destroy", sandbox_id, check=0)


def test_start_timeout_removes_everything(cluster, tmp_path):
    kube = cluster
    kube.configure(podRules=[{"image": "slow/*", "behavior": "pending"}])
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "slow/image:1"}),
                     env={"OSF_SANDBOX_START_TIMEOUT": "3"}, check=1)
    # Usually while waiting for the sandbox; on a slow machine possibly still for the egress pod.
    assert "timed out after 3s waiting for " in result.stderr
    assert "(OSF_SANDBOX_START_TIMEOUT)" in result.stderr
    assert labelled_by_manager(kube) == before
    adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}),
            env={"OSF_SANDBOX_START_TIMEOUT": "soon"}, check=2)


def test_a_pod_no_node_fits_fails_at_once_naming_the_schedulers_reason(cluster, tmp_path):
    kube = cluster
    kube.configure(podRules=[{"image": "huge/*", "behavior": "unschedulable",
                              "message": "0/3 nodes are available: 3 Insufficient memory."}])
    before = labelled_by_manager(kube)
    # A start timeout far beyond the run's own: only failing at once passes.
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "huge/image:1"}),
                     env={"OSF_SANDBOX_START_TIMEOUT": "3600"}, timeout=120, check=1)
    reason = "not scheduled: Unschedulable: 0/3 nodes are available: 3 Insufficient memory."
    assert re.search(r"sandbox did not start: pod osf-sandbox-[0-9a-f]{12} " + re.escape(reason), result.stderr), \
        result.stderr
    assert "OSF_SANDBOX_START_TIMEOUT" not in result.stderr
    # Named once: not as a progress line and again in the error.
    assert result.stderr.count("Insufficient memory") == 1, result.stderr
    assert labelled_by_manager(kube) == before


def test_a_workspace_claim_that_never_binds_is_named_with_its_event(cluster, tmp_path):
    kube = cluster
    before = labelled_by_manager(kube)
    spec = {"template": "alpine:3", "persistence": {"size": "1Gi", "storageClassName": "fast-ssd"}}
    result = adapter(kube, "create", write_spec(tmp_path, spec), env={"OSF_SANDBOX_START_TIMEOUT": "4"}, check=1)
    assert "(OSF_SANDBOX_START_TIMEOUT): pod osf-sandbox-" in result.stderr
    assert "not scheduled: Unschedulable: 0/1 nodes are available: pod has unbound immediate" in result.stderr
    assert re.search(r"PersistentVolumeClaim workspace-osf-sandbox-[0-9a-f]{12} is Pending: ProvisioningFailed: "
                     r'storageclass.storage.k8s.io "fast-ssd" not found', result.stderr), result.stderr
    assert labelled_by_manager(kube) == before


def test_ctrl_c_during_create_removes_everything(cluster, tmp_path):
    kube = cluster
    kube.configure(podRules=[{"image": "slow/*", "behavior": "pending"}])
    before = labelled_by_manager(kube)
    process = subprocess.Popen([ADAPTER, "create", write_spec(tmp_path, {"template": "slow/image:1"})],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=kube.env())
    try:
        kube.wait_for(lambda: any(o["kind"] == "SandboxClaim" for o in labelled_by_manager(kube)), timeout=60,
                      what="the claim")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert out == ""
    assert "interrupted" in err
    assert labelled_by_manager(kube) == before


def test_refused_kubectl_call_surfaces_its_message_and_cleans_up(cluster, tmp_path):
    kube = cluster
    kube.configure(forbid=[{"verb": "create", "resource": "sandboxclaims", "namespace": "*", "name": "*"}])
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}), check=1)
    assert "sandbox-kubernetes: kubectl create failed: Error from server (Forbidden): " in result.stderr
    assert ('sandboxclaims.extensions.agents.x-k8s.io is forbidden: User "kube-api-test-user" cannot create '
            'resource "sandboxclaims"') in result.stderr
    assert result.stderr.endswith(" (sandbox-kubernetes doctor checks the cluster)\n")
    assert labelled_by_manager(kube) == before


def test_a_namespace_that_refuses_every_write_prints_one_error_and_no_cleanup(cluster, tmp_path):
    # Creates and deletes alike are refused: nothing was made, so there is no
    # "removing sandbox" to report and no "cleanup failed" before the real error.
    kube = cluster
    kube.configure(forbid=[{"verb": "create"}, {"verb": "delete"}, {"verb": "deletecollection"}])
    try:
        result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}), check=1)
    finally:
        kube.configure(forbid=[])
    assert "is forbidden" in result.stderr, result.stderr
    assert "cleanup failed" not in result.stderr, result.stderr
    assert "removing sandbox" not in result.stderr, result.stderr


def test_a_role_that_cannot_write_prints_each_commands_refusal_alone(cluster, tmp_path):
    # A Role that may read the namespace but not write to it (a "view" binding): each command
    # that writes fails with the API server's refusal as its only line. Nothing was made, so
    # no "removing ..." and no "cleanup failed" for deletes the same Role refuses.
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    kube.configure(forbid=[{"verb": verb} for verb in ("create", "delete", "deletecollection", "patch",
                                                         "update")])
    try:
        for args in (["create", write_spec(tmp_path, {"template": "alpine:3"})], ["snapshot", sandbox_id],
                     ["destroy", sandbox_id]):
            result = adapter(kube, *args, check=1)
            lines = [line for line in result.stderr.splitlines() if not line.startswith("creating sandbox ")]
            assert len(lines) == 1 and "is forbidden" in lines[0], (args[0], result.stderr)
    finally:
        kube.configure(forbid=[])
    adapter(kube, "destroy", sandbox_id, check=0)


def test_a_namespace_the_role_cannot_touch_prints_each_commands_refusal_alone(cluster, tmp_path):
    # Every verb refused in the namespace (a Role bound in another one): one line each.
    kube = cluster
    kube.configure(forbid=[{"namespace": "default"}])
    try:
        for args in (["create", write_spec(tmp_path, {"template": "alpine:3"})], ["snapshot", "0123456789ab"],
                     ["destroy", "0123456789ab"], ["gc"], ["list"]):
            result = adapter(kube, *args, check=1)
            lines = [line for line in result.stderr.splitlines() if not line.startswith("creating sandbox ")]
            assert len(lines) == 1 and "is forbidden" in lines[0], (args[0], result.stderr)
    finally:
        kube.configure(forbid=[])


def recording_kubectl(kube, tmp_path):
    """(env, calls): an environment whose kubectl records each call's arguments, and a function
    that returns the calls so far (each a list of arguments)."""
    import shlex
    import shutil
    real = shutil.which(os.environ.get("KUBECTL", "kubectl"), path=kube.env().get("PATH"))
    bin_dir = tmp_path / "recording-bin"
    bin_dir.mkdir()
    log = tmp_path / "kubectl-calls.log"
    log.write_text("")
    wrapper = bin_dir / "kubectl"
    wrapper.write_text(f'#!/bin/bash\nprintf \'%q \' "$@" >> {shlex.quote(str(log))}\n'
                       f'echo >> {shlex.quote(str(log))}\nexec {shlex.quote(real)} "$@"\n')
    wrapper.chmod(0o755)
    env = {"PATH": f"{bin_dir}:{kube.env().get('PATH', '')}"}
    return env, lambda: [shlex.split(line) for line in log.read_text().splitlines() if line.strip()]


def bulk_sandbox(sandbox_id, bulk, shutdown="2099-01-01T00:00:00Z", spec=None, image=None):
    """The objects a sandbox leaves that list and gc read, as a real create stores them (a claim,
    its template, a Secret, its spec ConfigMap), put straight into the test server's store.
    `image`: the claim names it (osf.sandbox.image), as create's claims do; without, a claim as
    older versions made it (its image only in the template)."""
    labels = {"osf.sandbox.id": sandbox_id, "app.kubernetes.io/managed-by": "sandbox-kubernetes", "bulk": bulk}
    name = f"osf-sandbox-{sandbox_id}"
    meta = lambda n: {"name": n, "namespace": "default", "labels": dict(labels)}  # noqa: E731
    objects = [
        {"apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxClaim", "metadata": meta(name),
         "spec": {"sandboxTemplateRef": {"name": name}, "lifecycle": {"shutdownTime": shutdown}},
         "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "SandboxReady"}]}},
        {"apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxTemplate", "metadata": meta(name),
         "spec": {"podTemplate": {"spec": {"containers": [{"name": "sandbox", "image": "alpine:3"}]}}}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": meta(f"{name}-secrets"), "data": {}},
    ]
    if image is not None:
        objects[0]["metadata"]["annotations"] = {"osf.sandbox.image": image}
        objects[1]["spec"]["podTemplate"]["spec"]["containers"][0]["image"] = image
    if spec is not None:
        objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(f"{name}-spec"),
                        "data": {"spec.json": json.dumps(spec)}})
    return objects


def labelled_by_bulk(kube, bulk):
    out = kube.kubectl("get", ALL_KINDS + ",secrets", "-l", f"bulk={bulk}", "-o", "name", check=True).stdout
    return out.split()


def remove_bulk(kube, bulk):
    kube.kubectl("delete", ALL_KINDS + ",secrets", "-l", f"bulk={bulk}", "--wait=false", timeout=600)


def test_list_reads_in_pages_and_of_configmaps_only_the_spec(cluster, tmp_path):
    """list -o json at more sandboxes than a page: every read a `get --raw` of one page (`limit`:
    5,000 claims, which are small, or 1,000 templates or ConfigMaps), the next asked for with
    `continue`; the spec ConfigMaps streamed (a CA bundle's megabyte is never held), never a
    whole `kubectl get configmaps -o json`. It takes up to 3 minutes at load 4: more than a
    page needs 1,001 sandboxes stored in the test server and read back through kubectl."""
    kube = cluster
    bulk = "b" + os.urandom(4).hex()
    ids = [f"{bulk[1:]}{n:04x}" for n in range(1001)]
    kube.configure(simulation=False)  # 1,001 claims for no controller to start
    try:
        objects = [o for n, i in enumerate(ids)
                   for o in bulk_sandbox(i, bulk, spec={"template": "alpine:3", "egress": [f"h{n}.example"]}
                                         if n % 500 == 0 else None)]
        bundle = {"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": f"osf-sandbox-{ids[1]}-upstream-ca", "namespace": "default",
                               "labels": {"osf.sandbox.id": ids[1], "bulk": bulk,
                                          "app.kubernetes.io/managed-by": "sandbox-kubernetes"}},
                  "data": {"ca.pem": "x" * (1 << 20)}}
        for start in range(0, len(objects), 1000):
            kube.hook("POST", "objects", {"items": objects[start:start + 1000]})
        kube.hook("POST", "objects", {"items": [bundle]})
        env, calls = recording_kubectl(kube, tmp_path)
        result = adapter(kube, "list", "-o", "json", env=env, timeout=600, check=0)
        rows = {row["id"]: row for row in json.loads(result.stdout)}
        assert set(ids) <= set(rows)
        assert rows[ids[0]]["policy"]["egress"] == ["h0.example"]
        assert rows[ids[1000]]["policy"]["egress"] == ["h1000.example"]
        reads = [c for c in calls() if c[0] == "get"]
        assert all(c[1] == "--raw" for c in reads), reads
        claims = [c[2] for c in reads if "/sandboxclaims?" in c[2]]
        assert len(claims) == 1 and "&limit=5000" in claims[0], claims
        # These claims name no image (an older version's), so their templates are read too.
        templates = [c[2] for c in reads if "/sandboxtemplates?" in c[2]]
        assert all("&limit=1000" in t for t in templates), templates
        assert len(templates) >= 2 and "&continue=" not in templates[0] and "&continue=" in templates[1], \
            templates
        assert any("/configmaps?" in c[2] and "&limit=1000" in c[2] for c in reads), reads
    finally:
        kube.configure(simulation=True)
        remove_bulk(kube, bulk)


def test_list_reads_claims_only_and_templates_only_for_claims_that_name_no_image(cluster, sandbox, tmp_path):
    """A row is its claim: create's claims name their image, so list reads no template (four
    times a claim's size); a claim an older version made sends list to the templates for it."""
    kube = cluster
    claim = get(kube, "sandboxclaims.extensions.agents.x-k8s.io", f"osf-sandbox-{sandbox}")
    template = get(kube, "sandboxtemplates.extensions.agents.x-k8s.io", f"osf-sandbox-{sandbox}")
    image = template["spec"]["podTemplate"]["spec"]["containers"][0]["image"]
    assert claim["metadata"]["annotations"]["osf.sandbox.image"] == image
    bulk = "i" + os.urandom(4).hex()
    named, older = f"{bulk[1:]}0001", f"{bulk[1:]}0002"
    kube.configure(simulation=False)
    try:
        kube.hook("POST", "objects", {"items": bulk_sandbox(named, bulk, image="python:3.12")})
        env, calls = recording_kubectl(kube, tmp_path)
        rows = {r["id"]: r for r in json.loads(adapter(kube, "list", "-o", "json", env=env, check=0).stdout)}
        assert (rows[named]["image"], rows[sandbox]["image"]) == ("python:3.12", image), rows
        reads = [c[2] for c in calls() if c[:2] == ["get", "--raw"]]
        assert any("/sandboxclaims?" in r for r in reads), reads
        assert not any("/sandboxtemplates?" in r for r in reads), reads

        kube.hook("POST", "objects", {"items": bulk_sandbox(older, bulk)})
        (tmp_path / "older").mkdir()
        env, calls = recording_kubectl(kube, tmp_path / "older")
        rows = {r["id"]: r for r in json.loads(adapter(kube, "list", "-o", "json", env=env, check=0).stdout)}
        assert (rows[named]["image"], rows[older]["image"]) == ("python:3.12", "alpine:3"), rows
        assert any("/sandboxtemplates?" in c[2] for c in calls() if c[:2] == ["get", "--raw"]), calls()
    finally:
        kube.configure(simulation=True)
        remove_bulk(kube, bulk)


def test_gc_reads_claims_pools_ended_pods_and_only_the_parts_no_claim_owns(cluster, sandbox, tmp_path):
    """gc reads what its rules decide on: claims and warm pools whole, of the pods only those that
    ended (the API server picks them), and of every other kind, in one kubectl call, only parts
    no claim owns (an earlier version's leftovers). A running sandbox's pods, ConfigMaps,
    Service and template are never sent: Kubernetes removes them with its claim."""
    kube = cluster
    leftover = "0000" + os.urandom(4).hex()
    kube.kubectl("create", "configmap", f"osf-sandbox-{leftover}-spec", check=True)
    kube.kubectl("label", "configmap", f"osf-sandbox-{leftover}-spec", f"osf.sandbox.id={leftover}",
                 "app.kubernetes.io/managed-by=sandbox-kubernetes", check=True)
    try:
        assert {o["metadata"]["labels"].get("osf.sandbox.owned-by-claim") for o in labelled(kube, sandbox)
                if o["kind"] != "SandboxClaim" and "osf.sandbox.id" in o["metadata"].get("labels", {})} \
            == {"true"}
        env, calls = recording_kubectl(kube, tmp_path)
        env["OSF_SANDBOX_GC_GRACE"] = "1s"
        kube.wait_for(lambda: any(line.startswith(f"{leftover} no SandboxClaim, parts left for ")
                                  for line in adapter(kube, "gc", "--dry-run", env=env, check=0).stdout.splitlines()),
                      what="gc --dry-run to name the leftover once its grace is over")
        last = [c for c in calls() if c[0] == "get"][-4:]
        raw = [c[2] for c in last if c[1] == "--raw"]
        assert [r.split("?")[0].rsplit("/", 1)[1] for r in raw] == ["sandboxclaims", "sandboxwarmpools", "pods"], last
        assert "&fieldSelector=status.phase%21%3DRunning" in raw[2], raw
        parts = [c for c in last if c[1] != "--raw"]
        assert len(parts) == 1 and "!osf.sandbox.owned-by-claim" in parts[0][parts[0].index("-l") + 1], last

        def ids(read):
            items = json.loads(kube.kubectl(*read, check=True).stdout)["items"]
            return {o["metadata"].get("labels", {}).get("osf.sandbox.id") for o in items}
        # The same reads again, as gc made them: the running sandbox is in neither.
        assert sandbox not in ids(["get", "--raw", raw[2]])
        part_ids = ids(parts[0])
        assert leftover in part_ids and sandbox not in part_ids, part_ids
    finally:
        kube.kubectl("delete", "configmap", f"osf-sandbox-{leftover}-spec", "--ignore-not-found")


def test_destroy_of_many_removes_in_batches_each_kubectl_call_within_its_burst(cluster, tmp_path):
    """destroy -l (and --all, and several IDs) removes 50 sandboxes per batch, each step naming
    the batch's objects, in kubectl calls of at most 8 objects: kubectl throttles itself to 5
    requests a second after a burst of 10, so one call naming 500 objects would wait minutes.
    About a minute at load 4: three batches need more than 100 sandboxes, each removed through
    kubectl."""
    kube = cluster
    bulk = "d" + os.urandom(4).hex()
    ids = sorted(f"{bulk[1:]}{n:04x}" for n in range(120))
    kube.configure(simulation=False)
    try:
        kube.hook("POST", "objects", {"items": [o for i in ids for o in bulk_sandbox(i, bulk)]})
        env, calls = recording_kubectl(kube, tmp_path)
        result = adapter(kube, "destroy", "-l", f"bulk={bulk}", env=env, timeout=600, check=0)
        assert sorted(result.stderr.splitlines()) == [f"removed sandbox {i}" for i in ids]
        assert labelled_by_bulk(kube, bulk) == []
        deletes = [c for c in calls() if c[0] == "delete"]
        named = [[a for a in c[1:] if not a.startswith("-") and a not in ("default",)] for c in deletes]
        assert all(len(n) <= 9 for n in named), max(named, key=len)  # a resource and 8 names
        secrets = [n[1:] for n in named if n[0] == "secrets"]
        assert sorted(s for n in secrets for s in n) == sorted(f"osf-sandbox-{i}-secrets" for i in ids)
        # Batched: every Secret call but each batch's last names 8.
        assert sorted(len(n) for n in secrets).count(8) == len(secrets) - 3, secrets
    finally:
        kube.configure(simulation=True)
        remove_bulk(kube, bulk)


def test_gc_removes_in_batches_naming_each_batchs_sandboxes_in_one_call(cluster, tmp_path):
    kube = cluster
    bulk = "g" + os.urandom(4).hex()
    ids = sorted(f"{bulk[1:]}{n:04x}" for n in range(5))
    kube.configure(simulation=False)
    try:
        kube.hook("POST", "objects", {"items": [o for i in ids for o in bulk_sandbox(i, bulk, "2020-01-01T00:00:00Z")]})
        env, calls = recording_kubectl(kube, tmp_path)
        result = adapter(kube, "gc", "-l", f"bulk={bulk}", "--batch", "2", env=env, timeout=600, check=0)
        assert result.stdout == "".join(f"{i} expired at 2020-01-01T00:00:00Z\n" for i in ids)
        assert result.stderr == ("sandbox-kubernetes: gc: batch 1 of 3: 2 of 5 removed so far\n"
                                 "sandbox-kubernetes: gc: batch 2 of 3: 4 of 5 removed so far\n"
                                 "sandbox-kubernetes: gc: batch 3 of 3: 5 of 5 removed so far\n")
        # One delete of claims per batch of two, naming both.
        claim_deletes = [c for c in calls() if c[:2] == ["delete", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io"]]
        assert [c[2:4] for c in claim_deletes[:2]] == [[f"osf-sandbox-{i}" for i in ids[0:2]],
                                                       [f"osf-sandbox-{i}" for i in ids[2:4]]]
        left = kube.kubectl("get", ALL_KINDS + ",secrets", "-l", f"bulk={bulk}", "-o", "name", check=True).stdout
        assert left.strip() == ""
    finally:
        kube.configure(simulation=True)
        remove_bulk(kube, bulk)


def test_unreachable_cluster_is_a_kubectl_failure(cluster, tmp_path):
    kube = cluster
    config = tmp_path / "kubeconfig"
    original = open(kube.kubeconfig, encoding="utf-8").read()
    config.write_text(re.sub(r"server: https://127\.0\.0\.1:\d+", "server: https://127.0.0.1:1", original))
    result = adapter(kube, "list", env={"KUBECONFIG": str(config)}, check=1)
    assert result.stderr.startswith("sandbox-kubernetes: kubectl get failed: ")
    assert "127.0.0.1:1" in result.stderr


# -- exec, copy, list, egress-log, snapshot, destroy -----------------------------------------------

@pytest.fixture(scope="module")
def sandbox(kube, tmp_path_factory):
    sandbox_id, _ = create(kube, tmp_path_factory.mktemp("spec"), {"template": "node:24-alpine", "env": {"CI": "1"}})
    yield sandbox_id
    adapter(kube, "destroy", sandbox_id)


def test_the_sandbox_pod_sees_socks_and_the_ssh_config(cluster, sandbox):
    """What the pod's processes get for raw TCP: ALL_PROXY to the Service's SOCKS5 port and the
    ssh client configuration, one file mounted from the CA ConfigMap into ssh_config.d."""
    out = adapter(cluster, "exec", sandbox, "--", "sh", "-c",
                  "echo $ALL_PROXY $all_proxy; cat /etc/ssh/ssh_config.d/osf-egress.conf", check=0).stdout
    first, config = out.split("\n", 1)
    assert first == f"socks5h://osf-sandbox-{sandbox}-egress:1080 socks5h://osf-sandbox-{sandbox}-egress:1080"
    assert config.startswith("# Written by sandbox-kubernetes")
    assert config.endswith(f"' osf-sandbox-{sandbox}-egress 8080 %h %p\n")


def test_exec_exit_codes_streams_and_workspace(cluster, sandbox):
    kube = cluster
    assert adapter(kube, "exec", sandbox, "--", "pwd", check=0).stdout == "/workspace\n"
    result = adapter(kube, "exec", sandbox, "--", "sh", "-c", "echo out; echo err >&2; exit 7", check=7)
    assert result.stdout == "out\n"
    assert result.stderr == "err\n"  # kubectl's "command terminated" line is not passed on
    result = adapter(kube, "exec", sandbox, "--", "sh", "-c", "tr a-z A-Z", input="hello stdin\n", check=0)
    assert result.stdout == "HELLO STDIN\n"
    assert adapter(kube, "exec", sandbox, "--", "printenv", "CI", check=0).stdout == "1\n"
    assert adapter(kube, "exec", sandbox.upper(), "--", "true", check=0).returncode == 0
    # Options after -- belong to the command.
    assert adapter(kube, "exec", sandbox, "--", "ls", "-a", "/workspace", check=0).stdout.startswith(".")
    # Arguments arrive as given, whatever a shell would make of them.
    words = ["a b", "it's", "", "$HOME", "`id`", "x\ny", "*", "%s"]
    assert adapter(kube, "exec", sandbox, "--", "printf", "<%s>", *words, check=0).stdout == \
        "".join(f"<{w}>" for w in words)


def test_exec_errors(cluster, sandbox):
    kube = cluster
    result = adapter(kube, "exec", "0000000000ff", "--", "true", check=1)
    assert result.stderr == "sandbox-kubernetes: no sandbox 0000000000ff\n"
    adapter(kube, "exec", "0000000000f", "--", "true", check=2)
    adapter(kube, "exec", sandbox, check=2)
    # A program the sandbox lacks is named as such: 127, as in a shell.
    result = adapter(kube, "exec", sandbox, "--", "no-such-program-here", check=127)
    assert result.stderr == "exec: no-such-program-here: not found in the sandbox\n"
    # A path or a program found on PATH runs as before.
    assert adapter(kube, "exec", sandbox, "--", "/bin/sh", "-c", "echo $0", check=0).stdout == "/bin/sh\n"


def test_exec_returns_when_the_command_does_and_background_jobs_keep_running(cluster, sandbox):
    kube = cluster
    # kubectl alone ends only when every process holding the command's output has closed it.
    # The job outlives the call's own deadline: exec returned before it, or the call times out.
    result = adapter(kube, "exec", sandbox, "--", "sh", "-c", "sleep 7322 & echo started", timeout=120, check=0)
    assert result.stdout == "started\n"
    assert adapter(kube, "exec", sandbox, "--", "pgrep", "-f", "^sleep 7322$", check=None).returncode == 0
    adapter(kube, "exec", sandbox, "--", "pkill", "-f", "sleep 7322", check=0)
    # A background job writing after exec returned is not killed by a closed pipe: its output is dropped.
    adapter(kube, "exec", sandbox, "--", "sh", "-c",
            "(while [ ! -e /tmp/go-7321 ]; do sleep 0.1; done; echo late; echo late >&2; exec sleep 7321) & "
            "echo started", timeout=60, check=0)
    adapter(kube, "exec", sandbox, "--", "touch", "/tmp/go-7321", check=0)
    deadline = time.monotonic() + 30
    while adapter(kube, "exec", sandbox, "--", "pgrep", "-f", "^sleep 7321$", check=None).returncode != 0:
        assert time.monotonic() < deadline, "the background job did not survive writing its output"
        time.sleep(0.2)
    adapter(kube, "exec", sandbox, "--", "pkill", "-f", "sleep 7321", check=0)


def test_exec_exit_code_comes_from_the_command_not_from_its_output(cluster, sandbox):
    kube = cluster
    line = "command terminated with exit code 9"
    # The command prints kubectl's words and succeeds: exit 0, and the line is the command's output.
    result = adapter(kube, "exec", sandbox, "--", "sh", "-c", f"echo '{line}' >&2", check=0)
    assert result.stderr == line + "\n"
    result = adapter(kube, "exec", sandbox, "--", "sh", "-c", f"echo '{line}' >&2; exit 3", check=3)
    assert result.stderr == line + "\n"
    result = adapter(kube, "exec", sandbox, "--", "sh", "-c", "echo x >&2; exit 7", check=7)
    assert result.stderr == "x\n"
    # kubectl's line after a last stderr line without a newline is not passed on either.
    result = adapter(kube, "exec", sandbox, "--", "sh", "-c", "printf 'no newline' >&2; exit 5", check=5)
    assert result.stderr == "no newline"


def test_copy_both_ways(cluster, sandbox, tmp_path):
    kube = cluster
    local = tmp_path / "in.txt"
    local.write_text("copied in\n")
    adapter(kube, "exec", sandbox, "--", "mkdir", "sub", check=0)
    adapter(kube, "copy", str(local), f"{sandbox}:sub/in.txt", check=0)
    assert adapter(kube, "exec", sandbox, "--", "cat", "/workspace/sub/in.txt", check=0).stdout == "copied in\n"
    adapter(kube, "exec", sandbox, "--", "sh", "-c", "mkdir -p out && echo made inside > out/result.txt", check=0)
    back = tmp_path / "back.txt"
    adapter(kube, "copy", f"{sandbox}:out/result.txt", str(back), check=0)
    assert back.read_text() == "made inside\n"
    adapter(kube, "copy", f"{sandbox}:/workspace/out", str(tmp_path / "outdir"), check=0)
    assert (tmp_path / "outdir" / "result.txt").read_text() == "made inside\n"
    adapter(kube, "copy", str(local), str(back), check=2)
    result = adapter(kube, "copy", str(local), "0000000000ff:x", check=1)
    assert "no sandbox 0000000000ff" in result.stderr
    result = adapter(kube, "copy", f"{sandbox}:no/such/file", str(tmp_path / "x"), check=1)
    assert result.stderr == f"sandbox-kubernetes: copy: no /workspace/no/such/file in sandbox {sandbox}\n"
    result = adapter(kube, "copy", str(local), f"{sandbox}:missing-dir/in.txt", check=1)
    assert result.stderr.startswith("sandbox-kubernetes: kubectl cp failed: ")


def test_list(cluster, sandbox, tmp_path):
    kube = cluster
    second, _ = create(kube, tmp_path, {"template": "alpine:3"})
    try:
        assert {sandbox, second} <= set(adapter(kube, "list", check=0).stdout.split())
        lines = adapter(kube, "list", "-o", "wide", check=0).stdout.splitlines()
        rows = {line.split()[0]: line.split() for line in lines[1:]}
        assert rows[sandbox][1] == "Ready" and rows[sandbox][-1] == "node:24-alpine"
        assert rows[second][1] == "Ready" and rows[second][-1] == "alpine:3"
        assert re.match(r"^\d+[smhd]$", rows[second][2])
        listed = json.loads(adapter(kube, "list", "--json", check=0).stdout)
        by_id = {row["id"]: row for row in listed}
        assert by_id[second]["status"] == "Ready"
        assert by_id[second]["image"] == "alpine:3"
        assert by_id[second]["ageSeconds"] >= 0
    finally:
        adapter(kube, "destroy", second, check=0)
    assert second not in adapter(kube, "list", check=0).stdout


def test_kubectl_habits_namespace_context_kubeconfig_output_and_several_ids(cluster, tmp_path):
    """-n/--namespace, --context and --kubeconfig as kubectl takes them (before or after the
    subcommand), the current context's namespace when neither -n nor OSF_SANDBOX_NAMESPACE is set,
    list -o name|yaml, and destroy of several IDs or --all --yes."""
    import shutil
    kube = cluster
    kube.kubectl("create", "namespace", "habits")
    spec = write_spec(tmp_path, {"template": "alpine:3"})
    first = adapter(kube, "-n", "habits", "create", spec, check=0).stdout.strip()
    second = adapter(kube, "create", spec, "--namespace", "habits", check=0).stdout.strip()
    assert ID_RE.match(first) and ID_RE.match(second)
    assert kube.kubectl_json("get", "sandboxclaims.extensions.agents.x-k8s.io", f"osf-sandbox-{first}", "-n", "habits")
    assert first not in adapter(kube, "list", check=0).stdout  # the context's namespace: default
    # -n wins over the variable
    listed = adapter(kube, "list", "-n", "habits", env={"OSF_SANDBOX_NAMESPACE": "default"}, check=0).stdout
    assert sorted(listed.split()) == sorted([first, second])
    # -o name as kubectl prints it; -o yaml
    names = adapter(kube, "list", "-n", "habits", "-o", "name", check=0).stdout.split()
    assert sorted(names) == sorted([f"sandbox/{first}", f"sandbox/{second}"])
    rows = yaml.safe_load(adapter(kube, "list", "-n", "habits", "-o", "yaml", check=0).stdout)
    assert sorted(r["id"] for r in rows) == sorted([first, second])
    assert all(r["status"] == "Ready" and r["image"] == "alpine:3" for r in rows)

    # The current context's namespace when neither -n nor the variable says one.
    config = tmp_path / "kubeconfig"
    shutil.copy(kube.kubeconfig, config)
    good = kube.kubectl("--kubeconfig", str(config), "config", "current-context", check=True).stdout.strip()
    kube.kubectl("--kubeconfig", str(config), "config", "set-context", "--current", "--namespace", "habits",
                 check=True)
    in_context = adapter(kube, "list", env={"KUBECONFIG": str(config)}, check=0).stdout
    assert sorted(in_context.split()) == sorted([first, second])
    # --kubeconfig over KUBECONFIG; --context picks a context that is not the current one.
    assert first in adapter(kube, "--kubeconfig", str(config), "list",
                            env={"KUBECONFIG": "/nonexistent/config"}, check=0).stdout
    kube.kubectl("--kubeconfig", str(config), "config", "set-cluster", "dead", "--server=https://127.0.0.1:1",
                 check=True)
    user = kube.kubectl("--kubeconfig", str(config), "config", "view", "--minify", "-o",
                        "jsonpath={.contexts[0].context.user}", check=True).stdout.strip()
    kube.kubectl("--kubeconfig", str(config), "config", "set-context", "dead", "--cluster=dead", f"--user={user}",
                 check=True)
    kube.kubectl("--kubeconfig", str(config), "config", "use-context", "dead", check=True)
    dead = adapter(kube, "list", "-n", "habits", env={"KUBECONFIG": str(config)}, check=1)
    assert "127.0.0.1:1" in dead.stderr and dead.stderr.count("\n") == 1
    assert first in adapter(kube, "list", "--context", good, "-n", "habits", env={"KUBECONFIG": str(config)},
                            check=0).stdout

    # bash completion offers the namespace's sandbox IDs, asking list with the -n already typed.
    script = adapter(kube, "--bash-completion", check=0).stdout
    driver = (script + f"\nCOMP_WORDS=('{ADAPTER}' -n habits exec '')\nCOMP_CWORD=4\n"
              "_osf_sandbox_kubernetes\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    completed = subprocess.run(["bash", "--norc", "--noprofile", "-c", driver], capture_output=True, text=True,
                               env=kube.env(), timeout=60, check=True).stdout.split()
    assert sorted(w for w in completed if not w.startswith("-")) == sorted([first, second])

    # destroy: several IDs at once; an unknown one is named and does not keep the others.
    third = adapter(kube, "create", spec, "-n", "habits", check=0).stdout.strip()
    result = adapter(kube, "destroy", "-n", "habits", first, "0000000000ff", second, check=1)
    assert result.stderr.count("removed sandbox") == 2
    assert "sandbox-kubernetes: no sandbox 0000000000ff\n" in result.stderr
    assert adapter(kube, "list", "-n", "habits", check=0).stdout.split() == [third]
    # --all needs --yes; IDs and --all together are a usage error
    adapter(kube, "destroy", "-n", "habits", "--all", check=2)
    adapter(kube, "destroy", "-n", "habits", "--all", "--yes", third, check=2)
    assert adapter(kube, "list", "-n", "habits", check=0).stdout.split() == [third]
    result = adapter(kube, "destroy", "-n", "habits", "--all", "--yes", check=0)
    assert result.stderr == f"removed sandbox {third}\n"
    assert adapter(kube, "list", "-n", "habits", check=0).stdout == ""
    assert adapter(kube, "list", "-n", "habits", "-o", "yaml", check=0).stdout == "[]\n"


def doctor_lines(result):
    return {line.split()[1].rstrip(":"): line for line in result.stdout.splitlines()}


def test_doctor_fails_when_the_gc_cronjobs_last_run_failed_or_cannot_pull_its_image(cluster):
    kube = cluster
    ns = "doctor-gc-runs"
    kube.kubectl("create", "namespace", ns, check=True)
    image = "registry.invalid/sandbox-kubernetes:0.1.0"
    pull_error = f'Back-off pulling image "{image}"'
    kube.configure(podRules=[{"image": "registry.invalid/*", "behavior": "ImagePullBackOff", "message": pull_error}])
    kube.kubectl("create", "-n", ns, "-f", "-", check=True, input=json.dumps({
        "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "sandboxes-gc"},
        "spec": {"schedule": "*/15 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "gc", "image": image, "command": ["sandbox-kubernetes", "gc"]}]}}}}}}))
    cronjob_uid = kube.kubectl_json("get", "cronjob", "sandboxes-gc", "-n", ns)["metadata"]["uid"]

    def job(name, status):
        # What the CronJob controller makes (the simulation runs no workloads): a Job it owns.
        kube.kubectl("create", "-n", ns, "-f", "-", check=True, input=json.dumps({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob",
                                                            "name": "sandboxes-gc", "uid": cronjob_uid,
                                                            "controller": True}]},
            "spec": {"template": {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "gc", "image": image}]}}},
            "status": status}))

    # An earlier run failed; the newest cannot pull its image: the newest is what counts.
    job("sandboxes-gc-29000000", {"failed": 1, "conditions": [
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
         "message": "Job has reached the specified backoff limit"}]})
    job("sandboxes-gc-29000015", {"active": 1})
    kube.kubectl("create", "-n", ns, "-f", "-", check=True, input=json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "sandboxes-gc-29000015-x7k2p",
                     "labels": {"job-name": "sandboxes-gc-29000015",
                                "batch.kubernetes.io/job-name": "sandboxes-gc-29000015"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "gc", "image": image}]}}))
    kube.wait_for(lambda: "ImagePullBackOff" in kube.kubectl("get", "pod", "sandboxes-gc-29000015-x7k2p", "-n", ns,
                                                             "-o", "json").stdout,
                  timeout=60, what="the gc pod's image pull error")
    lines = doctor_lines(adapter(kube, "doctor", "-n", ns, check=1))
    assert lines["gc"] == ("FAIL  gc: CronJob sandboxes-gc runs sandbox-kubernetes gc; its last run, Job "
                           "sandboxes-gc-29000015, cannot start: pod sandboxes-gc-29000015-x7k2p, container gc: "
                           f"ImagePullBackOff: {pull_error}; fix: kubectl describe job sandboxes-gc-29000015 and "
                           "kubectl logs job/sandboxes-gc-29000015 say why; until it runs, nothing is cleaned up"), \
        lines["gc"]

    # The newest run failed (its pods gone): the Job's own condition is quoted.
    kube.kubectl("delete", "-n", ns, "pod/sandboxes-gc-29000015-x7k2p", "job/sandboxes-gc-29000015", check=True)
    job("sandboxes-gc-29000030", {"failed": 1, "conditions": [
        {"type": "Failed", "status": "True", "reason": "DeadlineExceeded",
         "message": "Job was active longer than specified deadline"}]})
    lines = doctor_lines(adapter(kube, "doctor", "-n", ns, check=1))
    assert lines["gc"].startswith("FAIL  gc: CronJob sandboxes-gc runs sandbox-kubernetes gc; its last run, Job "
                                  "sandboxes-gc-29000030, failed: DeadlineExceeded: Job was active longer than "
                                  "specified deadline; fix: "), lines["gc"]

    # A run that succeeded.
    job("sandboxes-gc-29000045", {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]})
    lines = doctor_lines(adapter(kube, "doctor", "-n", ns))
    assert lines["gc"] == ("ok    gc: CronJob sandboxes-gc runs sandbox-kubernetes gc; its last run, Job "
                           "sandboxes-gc-29000045, succeeded"), lines["gc"]


def test_doctor_names_what_the_cluster_lacks_with_the_fix(cluster, tmp_path):
    """Over a minute at load 4 (50 to 80 s in the stress runs): doctor asks kubectl one
    `auth can-i` per permission, a process each, and this runs doctor in several namespaces."""
    kube = cluster
    # A namespace with everything: Pod Security labels, every permission, a gc CronJob.
    env = psa_namespace(kube, "doctor-ok", "restricted")
    kube.kubectl("create", "-n", "doctor-ok", "-f", "-", check=True, input=json.dumps({
        "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "sandboxes-gc"},
        "spec": {"schedule": "*/10 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "gc", "image": "ghcr.io/opensoftware/sandbox-kubernetes:0.1.0",
                            "command": ["sandbox-kubernetes", "gc"]}]}}}}}}))
    # The chart's default-deny, as helm renders it.
    kube.kubectl("create", "-n", "doctor-ok", "-f", "-", check=True, input=json.dumps({
        "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "osf-sandbox-default-deny"},
        "spec": {"podSelector": {"matchExpressions": [{"key": "osf.sandbox.role", "operator": "In",
                                                       "values": ["sandbox", "snapshot-copy"]}]},
                 "policyTypes": ["Ingress", "Egress"]}}))
    bundle = tmp_path / "upstream-ca.pem"
    bundle.write_text(make_ca_pem() + make_ca_pem())
    result = adapter(kube, "doctor", env={**env, "OSF_UPSTREAM_CA_BUNDLE": str(bundle)}, check=0)
    lines = doctor_lines(result)
    assert list(lines) == ["kubectl", "cluster", "agent-sandbox", "namespace", "pod-security", "rbac", "gc",
                           "default-deny", "network-policy", "upstream-ca"]
    for name in ("kubectl", "cluster", "agent-sandbox", "namespace", "pod-security", "rbac", "gc", "default-deny",
                 "upstream-ca"):
        assert lines[name].startswith("ok  "), lines[name]
    assert "NetworkPolicy osf-sandbox-default-deny denies sandbox pods' traffic" in lines["default-deny"]
    assert lines["upstream-ca"] == (f"ok    upstream-ca: {bundle}: 2 certificates, mounted into each egress pod "
                                    "(never the sandbox) from a ConfigMap")
    # A bundle that is not one fails doctor, naming it.
    bundle.write_text("not a certificate\n")
    lines = doctor_lines(adapter(kube, "doctor", env={**env, "OSF_UPSTREAM_CA_BUNDLE": str(bundle)}, check=1))
    assert lines["upstream-ca"].startswith(f"FAIL  upstream-ca: OSF_UPSTREAM_CA_BUNDLE: {bundle} holds no PEM "
                                           "certificate"), lines["upstream-ca"]
    assert lines["gc"] == "ok    gc: CronJob sandboxes-gc runs sandbox-kubernetes gc; it has not run yet"
    assert re.search(r"all \d+ permissions the commands use are granted in doctor-ok", lines["rbac"])
    assert lines["network-policy"].startswith("warn") and "fix: " in lines["network-policy"]

    # A namespace that does not exist; a permission RBAC denies; no labels, no gc: each named with its fix.
    kube.configure(forbid=[{"verb": "create", "resource": "pods/exec", "namespace": "*", "name": "*"}])
    try:
        result = adapter(kube, "doctor", "-n", "doctor-missing", check=1)
    finally:
        kube.configure(forbid=[])
    lines = doctor_lines(result)
    assert lines["namespace"] == ("FAIL  namespace: doctor-missing does not exist; fix: kubectl create namespace "
                                  "doctor-missing, or choose one with -n or OSF_SANDBOX_NAMESPACE")
    assert lines["rbac"].startswith("FAIL  rbac: denied in doctor-missing: create pods/exec; fix: ")
    kube.kubectl("create", "namespace", "doctor-bare")
    lines = doctor_lines(adapter(kube, "doctor", "-n", "doctor-bare", check=0))
    assert lines["pod-security"].startswith("warn  pod-security: doctor-bare has no Pod Security enforce label; "
                                            "fix: kubectl label namespace doctor-bare")
    assert lines["gc"].startswith("warn  gc: no CronJob runs sandbox-kubernetes gc in doctor-bare")
    assert lines["default-deny"].startswith("warn  default-deny: no NetworkPolicy in doctor-bare denies every "
                                            "sandbox pod's egress by default")
    assert "upstream-ca" not in lines

    # A cluster without agent-sandbox.
    empty = tmp_path / "no-crds"
    empty.mkdir()
    with KubeApiServer(tmp_path / "bare-api", crds=str(empty)) as bare:
        result = subprocess.run([ADAPTER, "doctor"], capture_output=True, text=True, env=bare.env(), timeout=120)
    assert result.returncode == 1
    lines = doctor_lines(result)
    assert lines["agent-sandbox"].startswith("FAIL  agent-sandbox: agents.x-k8s.io/v1beta1, "
                                             "extensions.agents.x-k8s.io/v1beta1 not served; fix: install")
    # An API server that does not answer: one line, exit 1.
    result = adapter(kube, "doctor", "--kubeconfig", str(tmp_path / "nonexistent"),
                     env={"KUBECONFIG": ""}, check=1)
    assert doctor_lines(result)["cluster"].startswith("FAIL  cluster: cannot reach the API server: ")


def test_egress_log(cluster, sandbox):
    kube = cluster
    # The proxy's request lines by default (it leaves out the chain's lines); --raw, the file as written.
    assert adapter(kube, "egress-log", sandbox, check=0).stdout == EGRESS_REQUESTS
    assert adapter(kube, "egress-log", sandbox, "--raw", check=0).stdout == EGRESS_LOG
    assert '"kind"' in EGRESS_LOG and '"kind"' not in EGRESS_REQUESTS and '"host"' in EGRESS_REQUESTS
    assert adapter(kube, "egress-log", sandbox, "--follow", check=0).stdout == FOLLOWED
    adapter(kube, "egress-log", sandbox, "--raw", "--verify", check=2)
    assert adapter(kube, "egress-log", "0000000000ff", check=1).stderr == \
        "sandbox-kubernetes: no sandbox 0000000000ff\n"
    adapter(kube, "egress-log", "xyz", check=2)
    adapter(kube, "egress-log", sandbox, "--verify", "--follow", check=2)
    adapter(kube, "egress-log", sandbox, "--json", check=2)


def set_log(kube, text):
    """The proxy's `log` answers `text` from now on (the other canned answers stay)."""
    handlers = [h for h in EXEC_HANDLERS if h["command"][1:] != ["log"]]
    kube.set_exec(handlers=handlers + [{"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "log"],
                                        "stdout": text}])


def test_egress_log_verify_and_summary_use_the_clusters_key(cluster, sandbox):
    kube = cluster
    result = adapter(kube, "egress-log", sandbox, "--verify", check=0)
    assert result.stdout.startswith(f"egress log of {sandbox}: verified: 7 lines")
    assert "by the given key" in result.stdout and "unsigned tail" not in result.stdout
    summary = json.loads(adapter(kube, "egress-log", sandbox, "--summary", "--json", check=0).stdout)
    assert summary_as_expected(summary) == expected_summary(EGRESS_LOG)
    assert summary["secrets"] == [{"secret": "LINEAR_TOKEN", "host": "api.linear.app", "count": 1}]
    assert summary["mcp"] == [{"server": "wiki", "called": {"search": 1}, "refused": {"delete_page": 1},
                               "toolsRemoved": 0}]
    text = adapter(kube, "egress-log", sandbox, "--summary", check=0).stdout
    assert text.startswith("chain: verified, 7 lines, signed through line 7 by the given key")
    assert "delete_page REFUSED 1" in text
    # What was refused, as allow takes it, once each (worked out here from the raw lines).
    expected = []
    for line in map(json.loads, EGRESS_LOG.splitlines()):
        if "kind" in line or line.get("outcome") != "refused":
            continue
        reason, host, port = line.get("refusedBy"), line.get("host"), line.get("port")
        entry = {"host-not-allowed": host if port in (80, 443) else f"{host}:{port}",
                 "port-not-allowed": f"{host}:{port}",
                 "mcp-tool": f"--mcp {line.get('mcpServer')}:{line.get('tool')}"}.get(reason)
        if entry and entry not in expected:
            expected.append(entry)
    assert "--mcp wiki:delete_page" in expected
    assert adapter(kube, "egress-log", sandbox, "--refused", check=0).stdout.splitlines() == expected
    # The canned --follow answer has no refusal (test_adapter_policy follows a real proxy).
    assert adapter(kube, "egress-log", sandbox, "--refused", "--follow", check=0).stdout == ""
    adapter(kube, "egress-log", sandbox, "--refused", "--raw", check=2)

    lines = EGRESS_LOG.splitlines(keepends=True)
    set_log(kube, "".join(lines[:2] + lines[3:]))  # line 3 deleted
    result = adapter(kube, "egress-log", sandbox, "--verify", check=1)
    assert result.stderr.startswith(f"egress log of {sandbox}:3: line 3 does not follow line 2")
    result = adapter(kube, "egress-log", sandbox, "--summary", check=1)
    assert result.stdout.startswith("chain: NOT VERIFIED: line 3:")
    # A log the proxy signed with a key other than the one create stored.
    set_log(kube, signed_log().text())
    result = adapter(kube, "egress-log", sandbox, "--verify", check=1)
    assert "signed by a key other than the given one" in result.stderr


def test_egress_log_kubectl_failure(cluster, sandbox):
    kube = cluster
    kube.configure(forbid=[{"verb": "create", "resource": "pods/exec", "namespace": "*", "name": "*"}])
    result = adapter(kube, "egress-log", sandbox, check=1)
    assert result.stderr.startswith("sandbox-kubernetes: kubectl exec failed: ")


def test_snapshot_survives_destroy_and_starts_a_sandbox(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "node:24-alpine"})
    adapter(kube, "exec", sandbox_id, "--", "sh", "-c", "mkdir -p src && echo 'state' > src/state.txt", check=0)
    result = adapter(kube, "snapshot", sandbox_id, env={"OSF_SANDBOX_SNAPSHOT_SIZE": "2Gi"}, check=0)
    name = result.stdout.strip()
    assert re.match(rf"^osf-snapshot-{sandbox_id}-\d{{14}}$", name), result.stdout
    snapshot_labels = {"osf.snapshot.of": sandbox_id, "app.kubernetes.io/managed-by": "sandbox-kubernetes"}

    pvc = get(kube, "pvc", name)
    assert pvc["metadata"]["labels"] == snapshot_labels
    assert pvc["spec"]["resources"]["requests"]["storage"] == "2Gi"
    # The copy really holds the workspace (the test server keeps PVC contents on disk).
    stored = os.path.join(kube.state_dir, "pvcs", "default", name, "src", "state.txt")
    assert open(stored, encoding="utf-8").read() == "state\n"
    assert not kube.kubectl("get", "pod", f"{name}-copy").returncode == 0  # the copy pod is gone

    template = get(kube, "sandboxtemplates.extensions.agents.x-k8s.io", name)
    assert template["metadata"]["labels"] == snapshot_labels
    pod_spec = template["spec"]["podTemplate"]["spec"]
    restore = pod_spec["initContainers"][0]
    assert restore["name"] == "osf-restore-workspace"
    # Each entry of the snapshot, not its top directory (whose times a non-root restore may not set).
    assert restore["command"][:2] == ["sh", "-c"] and "cp -a \"$entry\" /workspace/" in restore["command"][2]
    assert {"name": "osf-snapshot", "persistentVolumeClaim": {"claimName": name, "readOnly": True}} in \
        pod_spec["volumes"]

    adapter(kube, "destroy", sandbox_id, check=0)
    assert labelled(kube, sandbox_id) == []
    assert get(kube, "pvc", name)["metadata"]["name"] == name
    assert get(kube, "sandboxtemplates.extensions.agents.x-k8s.io", name)["metadata"]["name"] == name

    # A new sandbox from the snapshot: its pod restores the PVC into /workspace first. (The test
    # server runs no containers, so the init container's copy itself is not exercised here.)
    restored, _ = create(kube, tmp_path, {"template": name})
    restored_pod = get(kube, "sandboxtemplates.extensions.agents.x-k8s.io", f"osf-sandbox-{restored}")
    restored_spec = restored_pod["spec"]["podTemplate"]["spec"]
    assert restored_spec["initContainers"][0]["name"] == "osf-restore-workspace"
    assert {"name": "osf-snapshot", "persistentVolumeClaim": {"claimName": name, "readOnly": True}} in \
        restored_spec["volumes"]
    assert restored_pod["spec"]["podTemplate"]["metadata"]["labels"]["osf.sandbox.id"] == restored
    assert env_map(restored_spec["containers"][0])["HTTPS_PROXY"] == f"http://osf-sandbox-{restored}-egress:8080"
    adapter(kube, "destroy", restored, check=0)
    adapter(kube, "snapshot", restored, check=1)
    kube.kubectl("delete", "sandboxtemplates.extensions.agents.x-k8s.io,pvc", "-l", f"osf.snapshot.of={sandbox_id}")


def test_destroy(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    assert labelled(kube, sandbox_id) != []
    result = adapter(kube, "destroy", sandbox_id, check=0)
    assert result.stdout == ""
    assert labelled(kube, sandbox_id) == []
    assert kube.kubectl("get", "sandboxes.agents.x-k8s.io", f"osf-sandbox-{sandbox_id}").returncode != 0
    result = adapter(kube, "destroy", sandbox_id, check=1)
    assert result.stderr == f"sandbox-kubernetes: no sandbox {sandbox_id}\n"
    adapter(kube, "destroy", "not-hex", check=2)
    adapter(kube, "destroy", check=2)


def test_destroy_save_log_keeps_a_verified_log_first(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    saved = tmp_path / "saved.jsonl"
    saved.write_text("already here")
    result = adapter(kube, "destroy", sandbox_id, "--save-log", str(saved), check=2)
    assert "already exists" in result.stderr
    assert labelled(kube, sandbox_id) != []
    saved.unlink()

    # A log that does not verify is saved, but nothing is removed.
    lines = EGRESS_LOG.splitlines(keepends=True)
    set_log(kube, "".join(lines[:3] + [lines[4], lines[3]] + lines[5:]))
    result = adapter(kube, "destroy", sandbox_id, "--save-log", str(saved), check=1)
    assert "does not verify (line 4: line 4 does not follow line 3" in result.stderr
    assert f"sandbox {sandbox_id} not removed" in result.stderr
    assert labelled(kube, sandbox_id) != []
    saved.unlink()
    (tmp_path / "saved.jsonl.pub").unlink()

    set_log(kube, EGRESS_LOG)
    result = adapter(kube, "destroy", sandbox_id, "--save-log", str(saved), check=0)
    assert saved.read_text() == EGRESS_LOG
    assert (tmp_path / "saved.jsonl.pub").read_text() == LOG.public_pem
    assert f"{saved}: verified: 7 lines" in result.stderr
    assert result.stderr.endswith(f"removed sandbox {sandbox_id}\n")
    assert labelled(kube, sandbox_id) == []
    # The saved copy verifies later with the proxy's own verifier, when it is built.
    proxy = os.path.join(BUILD, "egress-proxy", "egress-proxy")
    if os.path.exists(proxy):
        run = subprocess.run([proxy, "log", "verify", "--pubkey", str(tmp_path / "saved.jsonl.pub"), str(saved)],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr


def test_gc_save_logs_keeps_each_verified_log_before_removing(cluster, tmp_path):
    kube = cluster
    saved, kept = (create(kube, tmp_path, {"template": "alpine:3"})[0] for _ in range(2))
    for sandbox_id in (saved, kept):
        kube.set_pod_state(f"osf-sandbox-{sandbox_id}", "terminated", exitCode=0)
    kube.wait_for(lambda: all(kube.kubectl_json("get", "pod", f"osf-sandbox-{i}")["status"]["phase"] == "Succeeded"
                              for i in (saved, kept)), what="both sandbox pods to end")
    set_log(kube, EGRESS_LOG)
    logs = tmp_path / "logs"
    try:
        result = adapter(kube, "gc", "--save-logs", str(logs), check=2)
        assert result.stderr == f"sandbox-kubernetes: --save-logs: {logs} is not a directory\n"
        logs.mkdir()
        adapter(kube, "gc", "--dry-run", "--save-logs", str(logs), check=0)
        assert list(logs.iterdir()) == []
        # A log already saved for `kept` is never overwritten: that sandbox stays.
        (logs / f"{kept}.jsonl").write_text("saved before")
        result = adapter(kube, "gc", "--save-logs", str(logs), check=1)
        assert f"{saved} sandbox pod osf-sandbox-{saved} Succeeded" in result.stdout.splitlines()
        assert kept not in result.stdout
        assert f"{logs}/{saved}.jsonl: verified: 7 lines" in result.stderr
        assert (f"sandbox-kubernetes: {kept} not removed: {logs}/{kept}.jsonl already exists "
                "(a saved log is never overwritten)") in result.stderr
        assert (logs / f"{saved}.jsonl").read_text() == EGRESS_LOG
        assert (logs / f"{saved}.jsonl.pub").read_text() == LOG.public_pem
        assert (logs / f"{kept}.jsonl").read_text() == "saved before"
        assert not (logs / f"{kept}.jsonl.pub").exists()
        kube.wait_for(lambda: labelled(kube, saved) == [], what=f"{saved} removed")
        assert labelled(kube, kept) != []
    finally:
        adapter(kube, "destroy", kept)
        adapter(kube, "destroy", saved)


# -- Pod Security: root mode under baseline, non-root mode under restricted ---------------------

def psa_namespace(kube, name, level):
    """A namespace whose Pod Security admission enforces `level` (the test server enforces it)."""
    if kube.kubectl("get", "namespace", name).returncode != 0:
        kube.kubectl("create", "namespace", name, check=True)
    kube.kubectl("label", "--overwrite", "namespace", name, f"pod-security.kubernetes.io/enforce={level}",
                 check=True)
    return {"OSF_SANDBOX_NAMESPACE": name}


HARDENED_SPEC = {"template": "node:24-alpine", "user": {"uid": 1000, "gid": 1000}, "readOnlyRoot": True,
                 "storage": "3Gi", "env": {"CI": "1"}}


def sandbox_pod_of(kube, ns, sandbox_id):
    return kube.kubectl_json("get", "pod", "-n", ns, f"osf-sandbox-{sandbox_id}")


def test_the_test_server_enforces_pod_security(cluster):
    kube = cluster
    psa_namespace(kube, "psa-check", "restricted")
    root_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "root", "namespace": "psa-check"},
                "spec": {"containers": [{"name": "c", "image": "alpine:3"}]}}
    result = kube.kubectl("create", "-f", "-", input=json.dumps(root_pod))
    assert result.returncode == 1
    assert 'pods "root" is forbidden: violates PodSecurity "restricted:latest"' in result.stderr
    assert "runAsNonRoot != true" in result.stderr


def test_root_mode_is_admitted_under_baseline(cluster, tmp_path):
    kube = cluster
    env = psa_namespace(kube, "psa-baseline", "baseline")
    sandbox_id, result = create(kube, tmp_path, {"template": "node:24-alpine", "storage": "2Gi"}, env=env)
    assert "warning" not in result.stderr  # this machine's sh and tar
    pod = sandbox_pod_of(kube, "psa-baseline", sandbox_id)  # admitted for real by the server
    assert pod_security.violations(pod, "baseline") == []
    assert pod_security.violations(pod, "restricted") != []  # root mode is not restricted
    c = pod["spec"]["containers"][0]
    assert c["securityContext"]["capabilities"] == {
        "drop": ["ALL"], "add": ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"]}
    assert c["resources"]["limits"]["ephemeral-storage"] == "2Gi"
    assert {"name": "workspace", "emptyDir": {"sizeLimit": "2Gi"}} in pod["spec"]["volumes"]
    egress = kube.kubectl_json("get", "pod", "-n", "psa-baseline", f"osf-sandbox-{sandbox_id}-egress")
    assert pod_security.violations(egress, "restricted") == []
    adapter(kube, "destroy", sandbox_id, env=env, check=0)


def test_non_root_mode_is_admitted_under_restricted(cluster, tmp_path):
    kube = cluster
    env = psa_namespace(kube, "psa-restricted", "restricted")
    sandbox_id, _ = create(kube, tmp_path, HARDENED_SPEC, env=env)
    pod = sandbox_pod_of(kube, "psa-restricted", sandbox_id)
    assert pod_security.violations(pod, "restricted") == []
    spec = pod["spec"]
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert (spec["securityContext"]["runAsUser"], spec["securityContext"]["runAsGroup"],
            spec["securityContext"]["fsGroup"]) == (1000, 1000, 1000)
    c = spec["containers"][0]
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert {"name": "osf-tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "256Mi"}} in spec["volumes"]
    assert {"name": "workspace", "emptyDir": {"sizeLimit": "3Gi"}} in spec["volumes"]
    # The egress pod is admitted under restricted too (the server refused nothing).
    egress = kube.kubectl_json("get", "pod", "-n", "psa-restricted", f"osf-sandbox-{sandbox_id}-egress")
    assert pod_security.violations(egress, "restricted") == []
    # The writable places: HOME is its own directory, /workspace the working directory.
    out = adapter(kube, "exec", sandbox_id, "--", "sh", "-c", "echo $HOME; pwd; touch $HOME/x /workspace/y",
                  env=env, check=0).stdout
    assert out == "/home/sandbox\n/workspace\n"
    adapter(kube, "destroy", sandbox_id, env=env, check=0)


def test_root_mode_in_a_restricted_namespace_fails_fast_and_cleans_up(cluster, tmp_path):
    kube = cluster
    env = psa_namespace(kube, "psa-restricted", "restricted")
    env["OSF_SANDBOX_START_TIMEOUT"] = "60"
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "node:24-alpine"}), env=env, check=1)
    # The level and the fields as admission named them, and the hint: the refusal is about root.
    assert 'refuses the sandbox\'s pod: Pod Security "restricted:latest" forbids ' in result.stderr
    assert "runAsNonRoot" in result.stderr
    assert "without \"user\" in its spec a sandbox runs in root mode" in result.stderr
    assert kube.kubectl("get", ALL_KINDS, "-n", "psa-restricted", "-l", "app.kubernetes.io/managed-by",
                        "-o", "name", check=True).stdout == ""
    assert labelled_by_manager(kube) == before


def test_hardened_named_template_keeps_its_hardening(cluster, tmp_path):
    kube = cluster
    env = psa_namespace(kube, "psa-restricted", "restricted")
    hardened = {
        "apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxTemplate",
        "metadata": {"name": "hardened-dev", "namespace": "psa-restricted"},
        "spec": {"podTemplate": {"spec": {
            "securityContext": {"runAsNonRoot": True, "runAsUser": 2000, "runAsGroup": 2000},
            "containers": [{"name": "dev", "image": "node:24-alpine", "command": ["sleep", "infinity"],
                            "securityContext": {"capabilities": {"drop": ["ALL"]},
                                                "readOnlyRootFilesystem": True}}]}}}}
    kube.kubectl("create", "-f", "-", input=json.dumps(hardened), check=True)
    # No user in the spec: the template's non-root identity stays, nothing is added back.
    sandbox_id, _ = create(kube, tmp_path, {"template": "hardened-dev"}, env=env)
    pod = sandbox_pod_of(kube, "psa-restricted", sandbox_id)
    assert pod_security.violations(pod, "restricted") == []
    c = pod["spec"]["containers"][0]
    assert c["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["runAsNonRoot"] is True
    assert pod["spec"]["securityContext"]["runAsUser"] == 2000
    adapter(kube, "destroy", sandbox_id, env=env, check=0)
    kube.kubectl("delete", "-n", "psa-restricted", "sandboxtemplates.extensions.agents.x-k8s.io", "hardened-dev",
                 check=True)


def test_a_snapshot_claim_that_never_binds_is_named_with_its_failed_binding_event(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    # A cluster without a default StorageClass: the snapshot's claim, naming none, never binds,
    # and the volume controller says why only in a Normal event.
    kube.configure(defaultStorageClass=None)
    result = adapter(kube, "snapshot", sandbox_id, env={"OSF_SANDBOX_START_TIMEOUT": "4"}, check=1)
    assert "(OSF_SANDBOX_START_TIMEOUT)" in result.stderr, result.stderr
    assert re.search(rf"PersistentVolumeClaim osf-snapshot-{sandbox_id}-\d{{14}} is Pending: FailedBinding: "
                     r"no persistent volumes available for this claim and no storage class is set",
                     result.stderr), result.stderr
    # The half-made snapshot went; the sandbox stays.
    assert not [o for o in labelled_by_manager(kube) if o["metadata"]["name"].startswith(f"osf-snapshot-{sandbox_id}")]
    adapter(kube, "destroy", sandbox_id, check=0)


def test_snapshot_of_a_hardened_sandbox_carries_files_not_environment(cluster, tmp_path):
    kube = cluster
    env = psa_namespace(kube, "psa-restricted", "restricted")
    env["OSF_SECRET_LINEAR_TOKEN"] = SECRET_VALUE
    spec = {**HARDENED_SPEC, "env": {"ONLY_OLD": "1"}, "secrets": {"LINEAR_TOKEN": "ref:env/LINEAR_TOKEN"}}
    source, _ = create(kube, tmp_path, spec, env=env)
    adapter(kube, "exec", source, "--", "sh", "-c", "echo kept > /workspace/file.txt", env=env, check=0)
    name = adapter(kube, "snapshot", source, env=env, check=0).stdout.strip()
    template = kube.kubectl_json("get", "-n", "psa-restricted", "sandboxtemplates.extensions.agents.x-k8s.io", name)
    pod_spec = template["spec"]["podTemplate"]["spec"]
    names = {e["name"] for e in pod_spec["containers"][0].get("env", [])}
    assert "ONLY_OLD" not in names and "LINEAR_TOKEN" not in names
    # The snapshot's pods run as the sandbox did: admitted under restricted.
    assert pod_security.violations(template["spec"]["podTemplate"], "restricted") == []
    adapter(kube, "destroy", source, env=env, check=0)

    restored, _ = create(kube, tmp_path, {"template": name, "env": {"ONLY_NEW": "1"}}, env=env)
    pod = sandbox_pod_of(kube, "psa-restricted", restored)
    assert pod_security.violations(pod, "restricted") == []
    restored_env = env_map(pod["spec"]["containers"][0])
    assert restored_env["ONLY_NEW"] == "1"
    assert "ONLY_OLD" not in restored_env and "LINEAR_TOKEN" not in restored_env
    assert pod["spec"]["securityContext"]["runAsUser"] == 1000  # still non-root
    out = adapter(kube, "exec", restored, "--", "cat", "/workspace/file.txt", env=env, check=0).stdout
    assert out == "kept\n"
    adapter(kube, "destroy", restored, env=env, check=0)
    kube.kubectl("delete", "-n", "psa-restricted", "sandboxtemplates.extensions.agents.x-k8s.io,pvc", "-l",
                 f"osf.snapshot.of={source}", check=True)


@pytest.mark.parametrize("source_persistent, persistent, hardened", [
    (False, True, False), (True, True, False), (True, False, False), (True, True, True)])
def test_snapshot_restores_into_the_workspace_the_new_sandbox_sees(cluster, tmp_path, source_persistent,
                                                                   persistent, hardened):
    """A snapshot with or without `persistence` on either side, as root and as a spec user: the
    files are in /workspace of the new sandbox (with persistence they went to the claim's root)."""
    kube = cluster
    base = dict(HARDENED_SPEC) if hardened else {"template": "alpine:3"}
    env = psa_namespace(kube, "psa-restricted", "restricted") if hardened else {}
    ns = "psa-restricted" if hardened else "default"
    persistence = {"persistence": {"size": "1Gi"}}
    source, _ = create(kube, tmp_path, {**base, **(persistence if source_persistent else {})}, env=env)
    adapter(kube, "exec", source, "--", "sh", "-c", "mkdir -p d && echo kept > d/file.txt", env=env, check=0)
    name = adapter(kube, "snapshot", source, env=env, check=0).stdout.strip()
    adapter(kube, "destroy", source, env=env, check=0)
    spec = {"template": name, **(persistence if persistent else {})}
    if hardened:
        spec["user"] = HARDENED_SPEC["user"]
    restored, _ = create(kube, tmp_path, spec, env=env)
    try:
        out = adapter(kube, "exec", restored, "--", "cat", "/workspace/d/file.txt", env=env, check=0).stdout
        assert out == "kept\n"
        # The restore ran as the sandbox does (the test server runs every process as the caller).
        pod = sandbox_pod_of(kube, ns, restored)
        restore = next(c for c in pod["spec"]["initContainers"] if c["name"] == "osf-restore-workspace")
        assert restore["securityContext"] == pod["spec"]["containers"][0]["securityContext"]
        if hardened:
            assert restore["securityContext"]["runAsUser"] == 1000
    finally:
        adapter(kube, "destroy", restored, env=env, check=0)
        kube.kubectl("delete", "-n", ns, "sandboxtemplates.extensions.agents.x-k8s.io,pvc", "-l",
                     f"osf.snapshot.of={source}")


def test_a_root_snapshot_restores_into_a_non_root_sandbox(cluster, tmp_path):
    """The restore runs as the new sandbox's user, into a root-owned emptyDir it may write in but
    whose times it may not set: it copies the snapshot's entries, never the directory itself."""
    kube = cluster
    source, _ = create(kube, tmp_path, {"template": "alpine:3"})
    adapter(kube, "exec", source, "--", "sh", "-c", "mkdir -p d && echo kept > d/file.txt && echo dot > .hidden",
            check=0)
    name = adapter(kube, "snapshot", source, check=0).stdout.strip()
    adapter(kube, "destroy", source, check=0)
    restored, _ = create(kube, tmp_path, {"template": name, "user": HARDENED_SPEC["user"]})
    try:
        out = adapter(kube, "exec", restored, "--", "sh", "-c", "id -u; cat d/file.txt .hidden; stat -c %u .",
                      check=0).stdout
        assert out == f"{HARDENED_SPEC['user']['uid']}\nkept\ndot\n0\n"
    finally:
        adapter(kube, "destroy", restored)
        kube.kubectl("delete", "sandboxtemplates.extensions.agents.x-k8s.io,pvc", "-l", f"osf.snapshot.of={source}")


# -- images, variables, messages -------------------------------------------------------------------

def test_allowed_images_and_host_aliases_are_checked_before_anything_starts(cluster, tmp_path):
    kube = cluster
    before = labelled_by_manager(kube)
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}),
                     env={"OSF_SANDBOX_ALLOWED_IMAGES": "ghcr.io/acme/*,node:24-*"}, check=2)
    assert result.stderr == ("sandbox-kubernetes: image 'alpine:3' is not allowed: OSF_SANDBOX_ALLOWED_IMAGES "
                             "allows ghcr.io/acme/*, node:24-*\n")
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}),
                     env={"OSF_SANDBOX_HOST_ALIASES": "api.test=10.0.0.1,broken"}, check=2)
    assert result.stderr == 'sandbox-kubernetes: OSF_SANDBOX_HOST_ALIASES: bad entry "broken": expected host=ip\n'
    assert labelled_by_manager(kube) == before
    sandbox_id, _ = create(kube, tmp_path, {"template": "node:24-alpine"},
                           env={"OSF_SANDBOX_ALLOWED_IMAGES": "node:24-*", "OSF_SANDBOX_IMAGE_PULL_POLICY": "Always"})
    pod = get(kube, "pod", f"osf-sandbox-{sandbox_id}")
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == "Always"
    adapter(kube, "destroy", sandbox_id, check=0)


def test_create_fails_when_the_image_lacks_a_tool_and_removes_the_sandbox(cluster, tmp_path):
    kube = cluster
    # The test server runs this machine's programs; the image's missing tools are canned answers.
    kube.set_exec(handlers=EXEC_HANDLERS + [
        {"image": "example.com/no-tar:*", "command": ["sh", "-c"], "stdout": "tar\n"},
        {"image": "example.com/no-sh:*", "command": ["sh"], "exitCode": 127,
         "stderr": 'exec: "sh": executable file not found in $PATH\n'}])
    try:
        before = labelled_by_manager(kube)
        result = adapter(kube, "create", write_spec(tmp_path, {"template": "example.com/no-tar:1"}), check=1)
        assert "sandbox-kubernetes: the image has no tar (copy and snapshot); use an image that has them" \
            in result.stderr
        assert result.stdout == ""
        result = adapter(kube, "create", write_spec(tmp_path, {"template": "example.com/no-sh:1"}), check=1)
        assert "the image has no sh" in result.stderr
        # A tool the operator requires, missing from this machine's programs (which the server runs).
        result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3"}),
                         env={"OSF_SANDBOX_REQUIRED_TOOLS": "cat,no-such-tool-here"}, check=1)
        assert "the image has no no-such-tool-here (OSF_SANDBOX_REQUIRED_TOOLS)" in result.stderr
        kube.wait_for(lambda: labelled_by_manager(kube) == before, what="the failed sandboxes to go")
    finally:
        kube.set_exec(handlers=EXEC_HANDLERS)


def test_help_and_usage(cluster):
    kube = cluster
    for sub in ("create", "exec", "copy", "snapshot", "destroy", "list", "egress-log", "extend", "gc", "suspend",
                "resume", "allow", "revoke"):
        result = adapter(kube, sub, "--help", check=0)
        assert sub in result.stdout
    for args in ((), ("nonsense",), ("create",), ("create", "a", "b"), ("list", "--bogus"), ("exec",)):
        result = adapter(kube, *args, check=2)
        lines = result.stderr.splitlines()
        assert lines and all(line.startswith("sandbox-kubernetes: ") for line in lines), result.stderr
        assert len(lines) == 1, result.stderr
    assert "unknown command 'nonsense'" in adapter(kube, "nonsense", check=2).stderr
    assert re.match(r"^sandbox-kubernetes \d+\.\d+\.\d+\n$", adapter(kube, "--version", check=0).stdout)
