"""The Kubernetes manifests (deploy/kubernetes, a kustomize base) render, hang together and are accepted.

Rendered with `kubectl kustomize` (kustomize v5 inside kubectl), then checked: the objects present, the
master's Deployment against its ConfigMap, Secret, Services and ServiceAccount, the master.yaml inside
against the PostgreSQL objects, the permissions against exactly what the Kubernetes resource manager
calls, every field against the Kubernetes API types (python3-kubernetes' models), `kubectl apply
--dry-run=client` against a stand-in API server that only answers discovery (kubectl needs a server
to map kinds to resources even for a client dry run; nothing is created), and master.yaml against our
master's own config parser when a built determined-master is at $DET_BIN_DIR.

Run: /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider tests/deploy/test_kubernetes_manifests.py
"""
import base64
import http.server
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import threading

import pytest
import yaml

REPO = pathlib.Path(os.environ.get("DET_REPO_ROOT", pathlib.Path(__file__).resolve().parents[2]))
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))
BASE = REPO / "deploy" / "kubernetes"
KUBECTL = os.environ.get("KUBECTL") or shutil.which("kubectl")

NAMESPACE = "determined"
PART_OF = ("app.kubernetes.io/part-of", "determined")

# kind -> (API group, version, plural, namespaced): the kinds the base may contain, as an API server's
# discovery documents describe them.
KINDS = {
    "Namespace": ("", "v1", "namespaces", False),
    "ServiceAccount": ("", "v1", "serviceaccounts", True),
    "ConfigMap": ("", "v1", "configmaps", True),
    "Secret": ("", "v1", "secrets", True),
    "Service": ("", "v1", "services", True),
    "PersistentVolumeClaim": ("", "v1", "persistentvolumeclaims", True),
    "Deployment": ("apps", "v1", "deployments", True),
    "StatefulSet": ("apps", "v1", "statefulsets", True),
    "Role": ("rbac.authorization.k8s.io", "v1", "roles", True),
    "RoleBinding": ("rbac.authorization.k8s.io", "v1", "rolebindings", True),
    "ClusterRole": ("rbac.authorization.k8s.io", "v1", "clusterroles", False),
    "ClusterRoleBinding": ("rbac.authorization.k8s.io", "v1", "clusterrolebindings", False),
}

# What the master's Kubernetes resource manager calls, and so exactly what its ServiceAccount may do.
# (API group, resource) -> verbs.
TASK_NAMESPACE_RIGHTS = {
    ("batch", "jobs"): {"create", "get", "delete"},
    ("", "pods/log"): {"get"},
    ("", "configmaps"): {"create", "delete"},
    ("", "events"): {"list", "watch"},
}
# Every pod of the cluster is watched: others' pods use the nodes' GPUs too.
CLUSTER_RIGHTS = {
    ("", "nodes"): {"list", "watch"},
    ("", "pods"): {"list", "watch"},
    ("scheduling.k8s.io", "priorityclasses"): {"create", "delete"},
}

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


def kubectl(*args, **kwargs):
    proc = subprocess.run([KUBECTL, *args], capture_output=True, text=True, timeout=120, **kwargs)
    assert proc.returncode == 0, f"kubectl {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def rendered():
    return kubectl("kustomize", str(BASE))


@pytest.fixture(scope="module")
def objects(rendered):
    return [o for o in yaml.safe_load_all(rendered) if o]


def only(objects, kind, name=None):
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {[o['metadata']['name'] for o in found]}"
    return found[0]


def pod_spec(workload):
    return workload["spec"]["template"]["spec"]


def container(workload, name=None):
    containers = pod_spec(workload)["containers"]
    if name is None:
        assert len(containers) == 1, [c["name"] for c in containers]
        return containers[0]
    return next(c for c in containers if c["name"] == name)


def env_value_from(c, var):
    entry = next((e for e in c.get("env", []) if e["name"] == var), None)
    assert entry is not None, f"container {c['name']} has no {var}"
    return entry["valueFrom"]["secretKeyRef"]


def selected_by(service, workload):
    """Whether the Service's selector picks the workload's pods."""
    selector = service["spec"].get("selector") or {}
    labels = workload["spec"]["template"]["metadata"].get("labels", {})
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


@pytest.fixture(scope="module")
def master(objects):
    return only(objects, "Deployment")


@pytest.fixture(scope="module")
def db(objects):
    return only(objects, "StatefulSet")


@pytest.fixture(scope="module")
def config_map(objects, master):
    """The ConfigMap the master's --config-file lives in."""
    c = container(master)
    argv = c.get("command", []) + c.get("args", [])
    path = pathlib.PurePosixPath(argv[argv.index("--config-file") + 1])
    mount = next((m for m in c["volumeMounts"] if path.parent == pathlib.PurePosixPath(m["mountPath"])), None)
    assert mount is not None, f"no volume is mounted at {path.parent} in {c['volumeMounts']}"
    volume = next(v for v in pod_spec(master)["volumes"] if v["name"] == mount["name"])
    assert "configMap" in volume, f"{path.parent} is not mounted from a ConfigMap: {volume}"
    cm = only(objects, "ConfigMap", volume["configMap"]["name"])
    assert path.name in cm["data"], f"ConfigMap {cm['metadata']['name']} has no {path.name}"
    return cm, path.name


@pytest.fixture(scope="module")
def master_yaml(config_map):
    cm, key = config_map
    cfg = yaml.safe_load(cm["data"][key])
    assert isinstance(cfg, dict), cfg
    return cfg


def test_the_base_renders_the_master_its_database_and_permissions(objects):
    kinds = sorted(o["kind"] for o in objects)
    assert kinds == sorted(["Namespace", "ServiceAccount", "Role", "RoleBinding", "ClusterRole",
                            "ClusterRoleBinding", "ConfigMap", "Secret", "Service", "Service", "Deployment",
                            "StatefulSet"])
    assert {o["kind"] for o in objects} <= set(KINDS)


def test_the_namespace_and_labels_are_applied_to_every_object(objects):
    only(objects, "Namespace", NAMESPACE)
    for o in objects:
        meta = o["metadata"]
        what = f"{o['kind']} {meta['name']}"
        if KINDS[o["kind"]][3]:
            assert meta.get("namespace") == NAMESPACE, what
        else:
            assert "namespace" not in meta, what
        assert meta.get("labels", {}).get(PART_OF[0]) == PART_OF[1], what
        if o["kind"] in ("Deployment", "StatefulSet"):
            assert o["spec"]["template"]["metadata"]["labels"].get(PART_OF[0]) == PART_OF[1], what
        for subject in o.get("subjects", []):
            assert subject.get("namespace") == NAMESPACE, f"{what}: {subject}"


def test_the_master_runs_determined_master_with_the_mounted_config(objects, master, config_map, master_yaml):
    spec = master["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"]["type"] == "Recreate"  # never two masters on one database
    c = container(master)
    argv = c.get("command", []) + c.get("args", [])
    assert argv[0] == "determined-master"
    assert argv[1:] == ["--config-file", f"/etc/determined/{config_map[1]}"]
    # The image is the one users set with `kustomize edit set image determined-master=...`.
    kustomization = yaml.safe_load((BASE / "kustomization.yaml").read_text())
    image = next(i for i in kustomization["images"] if i["name"] == "determined-master")
    assert c["image"] == f"{image['newName']}:{image['newTag']}"
    # The ServiceAccount the permissions are bound to.
    assert pod_spec(master)["serviceAccountName"] == only(objects, "ServiceAccount")["metadata"]["name"]
    # The config's port is the container's, and the probes ask for it.
    port = next(p for p in c["ports"] if p["name"] == "http")
    assert port["containerPort"] == master_yaml["port"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert c[probe]["httpGet"] == {"path": "/api/v1/master", "port": "http"}, probe
    assert c["resources"]["requests"]["cpu"] and c["resources"]["requests"]["memory"]


def test_the_probe_path_is_served_without_a_login():
    handlers = "".join(p.read_text() for p in (REPO / "src" / "master" / "handlers").glob("*.cc"))
    assert re.search(r'router\.Add\("GET",\s*"/api/v1/master",\s*Access::kPublic', handlers), \
        "the probes' GET /api/v1/master is no longer a public route"


def test_the_master_service_is_the_one_master_yaml_names(objects, master, master_yaml):
    rm = master_yaml["resource_manager"]
    service = only(objects, "Service", rm["master_service_name"])
    assert service["metadata"]["name"] == "determined-master-service"
    assert selected_by(service, master)
    assert [p["port"] for p in service["spec"]["ports"]] == [master_yaml["port"]] == [8080]


def test_master_yaml_uses_kubernetes_and_the_postgres_service(objects, master, db, master_yaml):
    rm = master_yaml["resource_manager"]
    assert rm["type"] == "kubernetes"
    # Task pods run in the namespace where the master has its rights (the Role's), its own.
    assert rm["default_namespace"] == NAMESPACE
    assert rm["max_slots_per_pod"] >= 1 and rm["slot_type"] in ("cuda", "rocm", "cpu")

    cfg_db = master_yaml["db"]
    assert cfg_db["type"] == "postgres"
    service = only(objects, "Service", cfg_db["host"])
    assert service["metadata"]["name"] == "determined-db-service"
    assert selected_by(service, db)
    assert cfg_db["port"] in [p["port"] for p in service["spec"]["ports"]]
    assert db["spec"]["serviceName"] == cfg_db["host"]

    postgres = container(db)
    env = {e["name"]: e.get("value") for e in postgres["env"]}
    assert env["POSTGRES_USER"] == cfg_db["user"]
    assert env["POSTGRES_DB"] == cfg_db["name"]
    # One password, in the generated Secret: PostgreSQL's and the master's (DET_DB_PASSWORD overrides
    # db.password), never in the ConfigMap.
    assert "password" not in cfg_db
    secret = only(objects, "Secret")
    assert secret["metadata"]["name"].startswith("determined-db-credentials-")  # secretGenerator's hash
    assert env_value_from(postgres, "POSTGRES_PASSWORD") == env_value_from(container(master), "DET_DB_PASSWORD")
    ref = env_value_from(postgres, "POSTGRES_PASSWORD")
    assert ref["name"] == secret["metadata"]["name"]
    assert base64.b64decode(secret["data"][ref["key"]]).decode()
    # The master waits for the database instead of crash-looping while it initialises.
    wait = pod_spec(master)["initContainers"][0]
    assert cfg_db["host"] in " ".join(wait["command"])


def test_postgres_keeps_its_data_on_a_claim(db):
    assert db["spec"]["replicas"] == 1
    postgres = container(db)
    assert postgres["image"] == "postgres:15"
    claims = {t["metadata"]["name"]: t for t in db["spec"]["volumeClaimTemplates"]}
    mounts = {m["name"]: m["mountPath"] for m in postgres["volumeMounts"]}
    assert set(claims) <= set(mounts), (claims, mounts)
    pgdata = next(e["value"] for e in postgres["env"] if e["name"] == "PGDATA")
    assert any(pgdata.startswith(mounts[name] + "/") for name in claims), pgdata
    for claim in claims.values():
        assert claim["spec"]["resources"]["requests"]["storage"]


def rules_of(role):
    out = {}
    for rule in role.get("rules", []):
        assert not rule.get("nonResourceURLs") and not rule.get("resourceNames"), rule
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                assert "*" not in (group, resource) and "*" not in rule["verbs"], rule
                out.setdefault((group, resource), set()).update(rule["verbs"])
    return out


def test_the_master_may_do_exactly_what_the_kubernetes_resource_manager_does(objects, master, master_yaml):
    account = pod_spec(master)["serviceAccountName"]
    task_namespace = master_yaml["resource_manager"]["default_namespace"]

    def bound(binding):
        return any(s["kind"] == "ServiceAccount" and s["name"] == account and s["namespace"] == NAMESPACE
                   for s in binding.get("subjects", []))

    def role(ref, namespace):
        kind = ref["kind"]
        found = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == ref["name"]
                 and (kind == "ClusterRole" or o["metadata"]["namespace"] == namespace)]
        assert len(found) == 1, f"the binding's {kind} {ref['name']} is not in the base"
        return found[0]

    in_namespace, cluster_wide = {}, {}
    for binding in (o for o in objects if o["kind"] in ("RoleBinding", "ClusterRoleBinding") and bound(o)):
        scope = binding["metadata"].get("namespace")
        grants = rules_of(role(binding["roleRef"], scope))
        target = in_namespace.setdefault(scope, {}) if scope else cluster_wide
        for key, verbs in grants.items():
            target.setdefault(key, set()).update(verbs)

    everything = {}
    for grants in [cluster_wide, *in_namespace.values()]:
        for key, verbs in grants.items():
            everything.setdefault(key, set()).update(verbs)
    assert everything == {**TASK_NAMESPACE_RIGHTS, **CLUSTER_RIGHTS}
    # Cluster-scoped resources work only through a ClusterRoleBinding.
    for key, verbs in CLUSTER_RIGHTS.items():
        assert cluster_wide.get(key) == verbs, key
    # The namespaced ones must hold in the namespace the tasks run in.
    for key, verbs in TASK_NAMESPACE_RIGHTS.items():
        assert verbs <= in_namespace.get(task_namespace, {}).get(key, set()) | cluster_wide.get(key, set()), key


def check_fields(value, type_name, path, errors):
    """Every field of `value` exists in the Kubernetes API type `type_name` with a fitting type (the
    strict field validation an API server does; --validate=false skips it, and it needs no server)."""
    from kubernetes.client import models
    if value is None:
        return
    if m := re.fullmatch(r"list\[(.+)\]", type_name):
        if not isinstance(value, list):
            errors.append(f"{path}: expected a list, got {value!r}")
            return
        for i, v in enumerate(value):
            check_fields(v, m.group(1), f"{path}[{i}]", errors)
        return
    if m := re.fullmatch(r"dict\(str, (.+)\)", type_name):
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a mapping, got {value!r}")
            return
        for k, v in value.items():
            check_fields(v, m.group(1), f"{path}.{k}", errors)
        return
    scalars = {"str": (str,), "int": (int,), "bool": (bool,), "float": (int, float)}
    if type_name in scalars:
        if not isinstance(value, scalars[type_name]) or (type_name == "int" and isinstance(value, bool)):
            errors.append(f"{path}: expected {type_name}, got {value!r}")
        return
    if type_name in ("object", "datetime", "date"):  # int-or-string, quantities, free-form
        return
    cls = getattr(models, type_name)
    if not isinstance(value, dict):
        errors.append(f"{path}: expected a {type_name} mapping, got {value!r}")
        return
    attribute_of = {json_name: attr for attr, json_name in cls.attribute_map.items()}
    for k, v in value.items():
        if k not in attribute_of:
            errors.append(f"{path}.{k}: not a field of {type_name}")
        else:
            check_fields(v, cls.openapi_types[attribute_of[k]], f"{path}.{k}", errors)


def test_every_field_is_one_of_the_kubernetes_api(objects):
    kubernetes = pytest.importorskip("kubernetes", reason="python3-kubernetes is not installed")
    client = kubernetes.client.ApiClient()

    class Response:
        def __init__(self, obj):
            self.data = json.dumps(obj)

    errors = []
    for o in objects:
        type_name = o["apiVersion"].split("/")[-1].capitalize() + o["kind"]  # V1Deployment
        check_fields(o, type_name, f"{o['kind']} {o['metadata']['name']}", errors)
        client.deserialize(Response(o), type_name)  # raises on a missing required field
    assert not errors, "\n".join(errors)


class DiscoveryOnlyServer:
    """Stands in for an API server for `kubectl apply --dry-run=client`: it answers the discovery
    documents for KINDS and 404 to every GET of an object (none exists), and records every request.
    Anything but GET is refused: a client dry run must not write."""

    def __init__(self):
        self.requests = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                server.requests.append(("GET", self.path))
                code, body = server.answer(self.path.split("?")[0])
                self.reply(code, body)

            def refuse(self):
                server.requests.append((self.command, self.path))
                self.reply(405, status(405, "MethodNotAllowed", "this stand-in accepts no writes"))

            do_POST = do_PUT = do_PATCH = do_DELETE = refuse

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def answer(self, path):
        groups = {}
        for kind, (group, version, plural, namespaced) in KINDS.items():
            groups.setdefault((group, version), []).append(
                {"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
                 "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]})
        if path == "/api":
            return 200, {"kind": "APIVersions", "versions": ["v1"],
                         "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}
        if path == "/apis":
            return 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v}],
                 "preferredVersion": {"groupVersion": f"{g}/{v}", "version": v}} for g, v in groups if g]}
        for (g, v), resources in groups.items():
            if path == (f"/apis/{g}/{v}" if g else f"/api/{v}"):
                return 200, {"kind": "APIResourceList", "apiVersion": "v1",
                             "groupVersion": f"{g}/{v}" if g else v, "resources": resources}
        return 404, status(404, "NotFound", f"{path} not found")

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def status(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": reason,
            "code": code, "message": message}


def test_kubectl_apply_accepts_them_in_a_client_dry_run(rendered, objects, tmp_path):
    server = DiscoveryOnlyServer()
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "stand-in",
            "clusters": [{"name": "stand-in", "cluster": {"server": server.url}}],
            "users": [{"name": "stand-in", "user": {}}],
            "contexts": [{"name": "stand-in", "context": {"cluster": "stand-in", "user": "stand-in"}}]}))
        env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
        env.update(KUBECONFIG=str(kubeconfig), HOME=str(tmp_path))
        out = kubectl("apply", "--dry-run=client", "--validate=false", "--cache-dir", str(tmp_path / "cache"),
                      "-f", "-", input=rendered, env=env)
    finally:
        server.close()
    assert [m for m, _ in server.requests if m != "GET"] == []
    # One "KIND[.GROUP]/NAME created (dry run)" line per object.
    created = sorted(line.split(" ")[0] for line in out.splitlines() if line.endswith(" created (dry run)"))
    expected = sorted(f"{o['kind'].lower()}{'.' + KINDS[o['kind']][0] if KINDS[o['kind']][0] else ''}/"
                      f"{o['metadata']['name']}" for o in objects)
    assert created == expected, out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_our_master_accepts_master_yaml(objects, master, master_yaml, tmp_path):
    """determined-master has no flag that only checks its config, but it reads and checks the whole
    config before anything else and exits 2 when it is invalid; only then does it open the database.
    So the Deployment's own command runs with the database pointed at a closed local port: exiting on
    the unreachable database means the config was accepted."""
    binary = BIN / container(master)["command"][0]
    if not binary.exists():
        pytest.skip(f"no built {binary} (set DET_BIN_DIR)")
    cfg = json.loads(json.dumps(master_yaml))
    if cfg.get("checkpoint_storage", {}).get("type") == "shared_fs":
        cfg["checkpoint_storage"]["host_path"] = str(tmp_path / "checkpoints")  # not the node's path
    config_file = tmp_path / "master.yaml"
    config_file.write_text(yaml.safe_dump(cfg))
    c = container(master)
    argv = c["command"][1:] + c.get("args", [])
    argv[argv.index("--config-file") + 1] = str(config_file)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
    env["DET_DB_PASSWORD"] = "from-the-secret"  # as the Deployment passes it
    proc = subprocess.run([str(binary), *argv, "--data-dir", str(tmp_path / "data"), "--db-host", "127.0.0.1",
                           "--db-port", str(free_port())], capture_output=True, text=True, env=env, timeout=60)
    out = proc.stdout + proc.stderr
    if proc.returncode == 2 and re.search(r'resource_manager\.type: "kubernetes" is not supported', out):
        pytest.skip("this determined-master does not support resource_manager.type: kubernetes yet")
    assert proc.returncode != 2, f"determined-master rejected master.yaml:\n{out}"
    assert proc.returncode == 1 and re.search(r"database .*unreachable", out), \
        f"expected the master to accept the config and stop at the unreachable database ({proc.returncode}):\n{out}"
