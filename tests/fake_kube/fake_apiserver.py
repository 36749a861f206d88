#!/usr/bin/env python3
"""A fake Kubernetes API server for tests: the real wire format over HTTP, with a scheduler and a kubelet that
runs containers as local processes.

Run it:
    /usr/bin/python3 tests/fake_kube/fake_apiserver.py --port 0 --port-file PORT --state-dir DIR \
        --node gpu-1:cpu=8,gpu=4,memory=32Gi --kubeconfig-out kubeconfig
or start it in-process with FakeApiServer(...).start(). tests/fake_kube/fixture.py starts it as a subprocess.

Options:
    --port N               port to listen on, 0 for any free one (127.0.0.1 only)
    --port-file PATH       written (atomically) with the bound port once everything is ready
    --state-dir DIR        pods' scratch directories (DIR/pods/<ns>/<pod>/) and logs (DIR/logs/<ns>/<pod>/<c>.log)
    --node SPEC            NAME:cpu=8,gpu=4,memory=32Gi[,pods=110][,<resource>=N][,label=k=v][,unschedulable=true],
                           repeatable; gpu is nvidia.com/gpu; kubernetes.io/hostname=NAME is added. Default: one
                           node "fake-node" with cpu=8,memory=32Gi.
    --kubeconfig-out PATH  a kubeconfig for kubectl and client libraries (server http://127.0.0.1:PORT, a bearer
                           token, current-context set, namespace default)
    --watch-history N      changes kept for resuming watches (default 1000); older resourceVersions get 410
    --bad-image SUBSTRING  images whose name contains it never pull (repeatable; "does-not-exist" always does)
    --verbose              log every request to stderr
SIGTERM or SIGINT kills every pod's process group and exits.

What it serves: core/v1 pods (+ /log, /status, /eviction), configmaps, secrets, services, events,
resourcequotas, nodes, namespaces; batch/v1 jobs; scheduling.k8s.io/v1 priorityclasses. Verbs: get, list
(label and field selectors, limit/continue), watch (resourceVersion semantics, bookmarks, 410 Expired after
compaction, selector transitions as ADDED/DELETED), create (generateName, dryRun=All), update, patch (merge,
strategic merge subset, JSON patch), delete (propagationPolicy, gracePeriodSeconds, preconditions),
deletecollection. Legacy discovery documents, /version, the Table format kubectl prints, OpenAPI v3 paths
without schemas (what kubectl apply's validation check needs: openapi.py), and protobuf request bodies of the
kinds kubectl create sends (protobuf.py; responses are always JSON).
Controllers: Job controller (jobs.py), scheduler (scheduler.py), kubelet (kubelet.py), garbage collector and
namespace deletion (garbage_collector.py).

Containers are local processes, not containers: no image is pulled, there is no chroot and no network
namespace (every pod's IP is 127.0.0.1, so two pods cannot listen on one port). Paths inside a pod live under
its scratch directory: workingDir /run/x is <state-dir>/pods/<ns>/<pod>/run/x, configMap and secret volumes
are written there at their mountPath and emptyDir volumes created there; other volume types are accepted and
ignored. Processes inherit the server's environment (so PATH, PYTHONPATH... reach them) plus the container's
env, KUBERNETES_SERVICE_HOST/PORT (this server, plain HTTP, no service account token), HOSTNAME and
FAKE_KUBE_POD_ROOT (the scratch directory).

Not implemented: authentication and RBAC (any token is accepted), admission beyond the defaults in
defaults.py, managedFields and server-side apply, OpenAPI schemas and /openapi/v2, aggregated discovery
(kubectl falls back to the legacy documents), protobuf responses, exec/attach/port-forward, immutability checks
on update, taints and tolerations, preemption, probes (a running container is ready), the Job controller's pod
finalizers, watch-cache consistency for LIST with resourceVersion (a LIST always reads the current state).
A server killed with SIGKILL leaves its pods' grandchildren running (direct children die with it); the process
groups are listed in <state-dir>/process-groups/, which fixture.py uses to clean up.

Failure injection, JSON bodies (query parameters work too); each answers JSON:
    POST   /fake/drop-watches   {"abrupt": false}  end every open watch now (abrupt: cut the connection
                                mid-stream instead of ending the chunked body)
    POST   /fake/fail           {"status": 429|500|503|504, "count": N, "path_prefix": "/api/v1/...",
                                "method": "GET"}  the next N matching API requests fail with that Status
                                (429 carries Retry-After: 1); DELETE /fake/fail clears the rules
    POST   /fake/latency        {"ms": N}  delay every API request by N ms (0 to stop)
    POST   /fake/compact        forget the watch history: resuming a watch from an older resourceVersion gets
                                the 410 Expired ERROR event
    POST   /fake/nodes          {"spec": "NAME:cpu=8,gpu=4"}  add a node (same syntax as --node)
    DELETE /fake/nodes/NAME     remove a node; pods bound to it are deleted at once, their processes killed
    GET    /fake/requests       {"requests": [{"method", "path", "query", "body", "accept", "content_type",
                                "time"}]}: every API request received (bodies parsed when JSON, else null);
                                DELETE /fake/requests clears it
"""
import argparse
import json
import os
import pathlib
import platform
import signal
import sys
import threading
import time

if __package__ in (None, ""):
    # Run as a script: import the package from its parent directory, and keep this directory off sys.path so
    # that no module here shadows a standard one.
    sys.path[0] = str(pathlib.Path(__file__).resolve().parent.parent)

from fake_kube import apierrors  # noqa: E402
from fake_kube import controllers  # noqa: E402
from fake_kube import events  # noqa: E402
from fake_kube import garbage_collector  # noqa: E402
from fake_kube import http_api  # noqa: E402
from fake_kube import jobs  # noqa: E402
from fake_kube import kinds  # noqa: E402
from fake_kube import kubelet  # noqa: E402
from fake_kube import quantity  # noqa: E402
from fake_kube import registry  # noqa: E402
from fake_kube import scheduler  # noqa: E402
from fake_kube import selection  # noqa: E402
from fake_kube import store  # noqa: E402

DEFAULT_NODE = "fake-node:cpu=8,memory=32Gi"
ALWAYS_BAD_IMAGE = "does-not-exist"
_REQUEST_LOG_LIMIT = 20000
_NODES = kinds.BY_PLURAL["nodes"]
_RESOURCE_ALIASES = {"gpu": "nvidia.com/gpu"}


def parse_node_spec(text):
    """A Node object from "NAME:cpu=8,gpu=4,memory=32Gi,label=k=v"; raises ValueError naming the bad part."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"node spec {text!r}: expected NAME:cpu=8,gpu=4,memory=32Gi")
    capacity = {"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64"}
    unschedulable = False
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"node spec {text!r}: {item!r} is not key=value")
        if key == "label":
            label_key, sep, label_value = value.partition("=")
            if not sep:
                raise ValueError(f"node spec {text!r}: label {value!r} is not k=v")
            labels[label_key] = label_value
        elif key == "unschedulable":
            unschedulable = value.lower() in ("true", "1", "yes")
        else:
            quantity.parse_quantity(value)  # raises ValueError on a bad amount
            capacity[_RESOURCE_ALIASES.get(key, key)] = value
    node = {"metadata": {"name": name, "labels": labels, "annotations": {}},
            "spec": {"unschedulable": True} if unschedulable else {},
            "status": {"capacity": dict(capacity), "allocatable": dict(capacity),
                       "conditions": _node_conditions(),
                       "addresses": [{"type": "InternalIP", "address": "127.0.0.1"},
                                     {"type": "Hostname", "address": name}],
                       "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                       "nodeInfo": {"machineID": name, "systemUUID": name, "bootID": name,
                                    "kernelVersion": platform.release(),
                                    "osImage": "Fake Kubernetes node (containers are local processes)",
                                    "containerRuntimeVersion": "fake://1.0", "kubeletVersion": "v1.32.0",
                                    "kubeProxyVersion": "v1.32.0", "operatingSystem": "linux",
                                    "architecture": "amd64"}}}
    return node


def _node_conditions():
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    conditions = []
    for kind, status, reason, message in (
            ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "True", "KubeletReady", "kubelet is posting ready status")):
        conditions.append({"type": kind, "status": status, "reason": reason, "message": message,
                           "lastHeartbeatTime": now, "lastTransitionTime": now})
    return conditions


class FakeApiServer:
    """The fake API server with its controllers. start() listens and runs; stop() kills every pod process.

    Thread-safe: HTTP requests, controllers and pod runners share one Store (and its lock).
    """

    def __init__(self, state_dir, nodes=(DEFAULT_NODE,), port=0, host="127.0.0.1", watch_history=1000,
                 bad_images=(), env=None, verbose=False):
        self.state_dir = pathlib.Path(state_dir)
        self.verbose = verbose
        self._node_specs = list(nodes)
        self._address = (host, port)
        self.store = store.Store(watch_history)
        self.registry = registry.Registry(self.store)
        self.recorder = events.EventRecorder(self.registry)
        base_env = dict(os.environ)
        base_env.update(env or {})
        self.kubelet = kubelet.Kubelet(self.registry, self.recorder, self.state_dir,
                                       (ALWAYS_BAD_IMAGE,) + tuple(bad_images), base_env, self._wake)
        self.jobs = jobs.JobController(self.registry, self.recorder)
        self.scheduler = scheduler.Scheduler(self.registry, self.recorder)
        self.gc = garbage_collector.GarbageCollector(self.registry)
        self.controllers = controllers.ControllerLoop(
            [self.gc.run_once, self.jobs.run_once, self.scheduler.run_once, self.kubelet.run_once])
        self.store.add_listener(self.jobs.on_event)
        self.store.add_listener(self.controllers.wake)
        self._lock = threading.Lock()
        self._requests = []
        self._failures = []
        self._latency_s = 0.0
        self._httpd = None

    def _wake(self):
        self.controllers.wake()

    # Lifecycle.

    def start(self):
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self._bootstrap()
        self._httpd = http_api.ApiHttpServer(self._address, self)
        self.kubelet.api_port = self.port
        threading.Thread(target=self._httpd.serve_forever, daemon=True, name="http").start()
        self.controllers.start()
        return self

    def _bootstrap(self):
        for name in registry.SYSTEM_NAMESPACES:
            self.registry.create(kinds.BY_PLURAL["namespaces"], "", {"metadata": {"name": name}})
        for name, value in (("system-cluster-critical", 2000000000), ("system-node-critical", 2000001000)):
            self.registry.create(kinds.BY_PLURAL["priorityclasses"], "", {
                "metadata": {"name": name}, "value": value,
                "description": "Used for system critical pods that must run in the cluster, but can be moved to "
                               "another node if necessary."})
        for spec in self._node_specs:
            self.add_node(spec)

    @property
    def port(self):
        return self._httpd.server_address[1]

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        """Kills every pod process group, ends the streams and closes the socket."""
        self.controllers.stop()
        self.kubelet.stop_all()
        self.store.drop_watches()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def write_kubeconfig(self, path):
        """A kubeconfig (JSON, which is YAML) for kubectl, client-go and python3-kubernetes."""
        config = {"apiVersion": "v1", "kind": "Config", "preferences": {},
                  "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
                  "users": [{"name": "fake", "user": {"token": "fake-token"}}],
                  "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake",
                                                            "namespace": "default"}}],
                  "current-context": "fake"}
        _write_atomically(path, json.dumps(config, indent=2) + "\n")

    # Nodes.

    def add_node(self, spec):
        try:
            node = parse_node_spec(spec)
        except ValueError as e:
            raise apierrors.bad_request(str(e))
        return self.registry.create(_NODES, "", node)

    def remove_node(self, name):
        return self.registry.delete(_NODES, "", name, {})

    # Request log, latency and injected failures (the HTTP layer calls these for every API request).

    def record_request(self, method, path, query, body, accept="", content_type=""):
        try:
            parsed = json.loads(body) if body and len(body) < 65536 else None
        except (ValueError, UnicodeDecodeError):
            parsed = None
        with self._lock:
            self._requests.append({"method": method, "path": path, "query": query, "body": parsed,
                                   "accept": accept, "content_type": content_type, "time": time.time()})
            del self._requests[:-_REQUEST_LOG_LIMIT]

    def delay(self):
        with self._lock:
            latency = self._latency_s
        if latency:
            time.sleep(latency)

    def take_failure(self, method, path):
        """The ApiError to answer with when a /fake/fail rule matches this request (using up one count)."""
        with self._lock:
            for rule in self._failures:
                if rule["count"] <= 0 or not path.startswith(rule["path_prefix"]):
                    continue
                if rule["method"] and rule["method"] != method:
                    continue
                rule["count"] -= 1
                return apierrors.injected(rule["status"])
            return None

    # The /fake/ admin API.

    def admin(self, method, path, query, body):
        try:
            params = json.loads(body) if body else {}
        except ValueError as e:
            raise apierrors.bad_request(f"admin body is not JSON: {e}")
        params = {**query, **(params if isinstance(params, dict) else {})}
        route = (method, path.rstrip("/"))
        if route == ("POST", "/fake/drop-watches"):
            abrupt = params.get("abrupt") is True or selection.parse_bool(params.get("abrupt"))
            return {"dropped": self.store.drop_watches(abrupt)}
        if route == ("POST", "/fake/fail"):
            return self._add_failure(params)
        if route == ("DELETE", "/fake/fail"):
            with self._lock:
                self._failures.clear()
            return {"rules": []}
        if route == ("POST", "/fake/latency"):
            with self._lock:
                self._latency_s = float(params.get("ms", 0)) / 1000.0
            return {"ms": self._latency_s * 1000.0}
        if route == ("POST", "/fake/compact"):
            return {"resourceVersion": str(self.store.compact())}
        if route == ("POST", "/fake/nodes"):
            return self.add_node(params.get("spec", ""))
        if method == "DELETE" and path.startswith("/fake/nodes/"):
            return self.remove_node(path[len("/fake/nodes/"):])
        if route == ("GET", "/fake/requests"):
            with self._lock:
                return {"requests": list(self._requests)}
        if route == ("DELETE", "/fake/requests"):
            with self._lock:
                self._requests.clear()
            return {"requests": []}
        raise apierrors.ApiError(404, "NotFound", f"no admin endpoint {method} {path}; see fake_apiserver.py")

    def _add_failure(self, params):
        try:
            rule = {"status": int(params.get("status", 500)), "count": int(params.get("count", 1)),
                    "path_prefix": params.get("path_prefix", "/"),
                    "method": (params.get("method") or "").upper() or None}
        except (TypeError, ValueError) as e:
            raise apierrors.bad_request(f"/fake/fail: {e}")
        with self._lock:
            self._failures.append(rule)
            return {"rules": [dict(r) for r in self._failures]}


def _write_atomically(path, text):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--node", action="append", default=[])
    parser.add_argument("--kubeconfig-out")
    parser.add_argument("--watch-history", type=int, default=1000)
    parser.add_argument("--bad-image", action="append", default=[])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    for spec in args.node:
        try:
            parse_node_spec(spec)
        except ValueError as e:
            parser.error(str(e))
    server = FakeApiServer(args.state_dir, args.node or [DEFAULT_NODE], args.port,
                           watch_history=args.watch_history, bad_images=args.bad_image, verbose=args.verbose)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    server.start()
    if args.kubeconfig_out:
        server.write_kubeconfig(args.kubeconfig_out)
    if args.port_file:
        _write_atomically(args.port_file, f"{server.port}\n")
    print(f"fake-kube-apiserver: listening on {server.url}", flush=True)
    while not stopping.wait(0.5):
        pass
    server.stop()
    print("fake-kube-apiserver: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
