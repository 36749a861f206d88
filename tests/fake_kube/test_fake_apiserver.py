"""The fake Kubernetes API server driven by the real clients (kubectl 1.32 and python3-kubernetes 22.6), so the
fake cannot drift from the wire format the resource manager will meet on a real cluster.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/fake_kube/test_fake_apiserver.py
"""
import json
import os
import pathlib
import queue
import shutil
import sys
import threading
import time
import uuid

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from fake_kube.fixture import running_fake_apiserver  # noqa: E402

kubernetes = pytest.importorskip("kubernetes", reason="python3-kubernetes is not installed "
                                                      "(scripts/install-deps.sh installs it)")
if shutil.which("kubectl") is None:
    pytest.skip("kubectl is not installed", allow_module_level=True)
from kubernetes import client, config, watch  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

GPU = "nvidia.com/gpu"


# Fixtures and helpers.

@pytest.fixture(scope="module")
def kube(tmp_path_factory):
    """One server for the tests that do not depend on the cluster's shape; each test uses its own namespace."""
    with running_fake_apiserver(tmp_path_factory.mktemp("shared"),
                                nodes=["node-a:cpu=16,memory=64Gi,label=pool=main"]) as handle:
        yield handle


@pytest.fixture
def apis(kube):
    """(CoreV1Api, BatchV1Api) of python3-kubernetes configured from the server's kubeconfig."""
    return _apis(kube)


@pytest.fixture
def ns(kube):
    """A fresh namespace for one test."""
    name = "t-" + uuid.uuid4().hex[:8]
    core, _ = _apis(kube)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    return name


def _apis(handle):
    api_client = config.new_client_from_config(config_file=str(handle.kubeconfig))
    return client.CoreV1Api(api_client), client.BatchV1Api(api_client)


def wait_for(predicate, timeout=15.0, what="condition"):
    """Polls predicate() until it returns something truthy; returns that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


def kubectl_ok(handle, *args, **kwargs):
    proc = handle.kubectl(*args, **kwargs)
    assert proc.returncode == 0, f"kubectl {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def job_manifest(name, command, parallelism=None, completions=None, indexed=False, gpus=0, backoff_limit=0,
                 suspend=None, node_selector=None, env=None):
    """A batch/v1 Job as a dict (what the resource manager would submit)."""
    container = {"name": "main", "image": "busybox:1.36", "command": ["sh", "-c", command]}
    if gpus:
        container["resources"] = {"limits": {GPU: str(gpus)}}
    if env:
        container["env"] = env
    pod_spec = {"restartPolicy": "Never", "containers": [container], "terminationGracePeriodSeconds": 5}
    if node_selector:
        pod_spec["nodeSelector"] = node_selector
    spec = {"backoffLimit": backoff_limit, "template": {"spec": pod_spec}}
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if completions is not None:
        spec["completions"] = completions
    if indexed:
        spec["completionMode"] = "Indexed"
    if suspend is not None:
        spec["suspend"] = suspend
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def pods_of(core, namespace, job):
    return core.list_namespaced_pod(namespace, label_selector=f"job-name={job}").items


def pod_phase(core, namespace, name):
    return core.read_namespaced_pod(name, namespace).status.phase


def job_condition(batch, namespace, name, kind):
    status = batch.read_namespaced_job(name, namespace).status
    return any(c.type == kind and c.status == "True" for c in status.conditions or [])


def log_of(core, namespace, pod):
    """The pod's log so far; empty while its container has not started (the server answers 400 then)."""
    try:
        return core.read_namespaced_pod_log(pod, namespace)
    except ApiException as e:
        if e.status == 400:
            return ""
        raise


def read_lines(proc, count, timeout):
    """The first `count` lines a process prints, read on a thread so a silent process cannot hang the test."""
    lines = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)
    threading.Thread(target=pump, daemon=True).start()
    result, deadline = [], time.monotonic() + timeout
    while len(result) < count and time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            break
        result.append(line)
    return result


# kubectl.

JOB_YAML = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: job-config
data:
  MY_VAR: {value}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: hello
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        command: ["sh", "-c", "echo hello; echo $MY_VAR; exit 3"]
        env:
        - name: MY_VAR
          valueFrom:
            configMapKeyRef: {{name: job-config, key: MY_VAR}}
"""


def test_kubectl_apply_runs_a_job_whose_pod_fails_with_its_exit_code(kube, ns, tmp_path):
    manifest = tmp_path / "job.yaml"
    manifest.write_text(JOB_YAML.format(value="from-configmap"))
    out = kubectl_ok(kube, "apply", "-n", ns, "-f", manifest)
    assert "configmap/job-config created" in out and "job.batch/hello created" in out

    def failed_pod():
        pods = json.loads(kubectl_ok(kube, "get", "pods", "-n", ns, "-l", "job-name=hello", "-o", "json"))["items"]
        return pods if pods and pods[0]["status"]["phase"] == "Failed" else None
    pod = wait_for(failed_pod, what="the Job's pod to fail")[0]
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert terminated["exitCode"] == 3 and terminated["reason"] == "Error"
    assert pod["metadata"]["labels"]["job-name"] == "hello"
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "Job"
    assert kubectl_ok(kube, "logs", "-n", ns, pod["metadata"]["name"]).splitlines() == ["hello", "from-configmap"]
    stamped = kubectl_ok(kube, "logs", "-n", ns, "--timestamps", pod["metadata"]["name"]).splitlines()
    assert stamped[0].endswith("Z hello") and stamped[0][:4].isdigit()
    assert kubectl_ok(kube, "logs", "-n", ns, "--tail=1", pod["metadata"]["name"]) == "from-configmap\n"
    # kubectl sends sinceTime with whole seconds (metav1.Time), as the kubelet compares it.
    future = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    assert kubectl_ok(kube, "logs", "-n", ns, f"--since-time={future}", pod["metadata"]["name"]) == ""

    job = json.loads(kubectl_ok(kube, "get", "job", "hello", "-n", ns, "-o", "json"))
    assert {c["type"] for c in job["status"]["conditions"]} >= {"Failed", "FailureTarget"}
    assert job["status"]["failed"] == 1
    assert "Failed" in kubectl_ok(kube, "get", "jobs", "-n", ns)

    # apply is idempotent: the second run finds nothing to change, a changed ConfigMap is patched.
    out = kubectl_ok(kube, "apply", "-n", ns, "-f", manifest)
    assert "configmap/job-config unchanged" in out and "job.batch/hello unchanged" in out
    manifest.write_text(JOB_YAML.format(value="changed"))
    out = kubectl_ok(kube, "apply", "-n", ns, "-f", manifest)
    assert "configmap/job-config configured" in out
    assert kubectl_ok(kube, "get", "cm", "job-config", "-n", ns, "-o", "jsonpath={.data.MY_VAR}") == "changed"
    patches = [r for r in kube.requests_log() if r["method"] == "PATCH" and r["path"].endswith("/job-config")]
    assert patches and patches[-1]["body"]["data"] == {"MY_VAR": "changed"}


def test_kubectl_logs_follow_and_get_watch(kube, ns):
    command = "for i in 1 2 3; do echo tick $i; sleep 0.3; done"
    kubectl_ok(kube, "apply", "-n", ns, "-f", "-", input=json.dumps(job_manifest("ticker", command)))
    watcher = kube.kubectl_popen("get", "pods", "-n", ns, "-w")
    try:
        core, _ = _apis(kube)
        pod = wait_for(lambda: pods_of(core, ns, "ticker"), what="the pod")[0].metadata.name
        wait_for(lambda: pod_phase(core, ns, pod) != "Pending", what="the pod to start")
        follow = kube.kubectl_popen("logs", "-f", "-n", ns, pod)
        assert read_lines(follow, 3, timeout=10) == ["tick 1", "tick 2", "tick 3"]
        assert follow.wait(timeout=10) == 0  # -f ends with the container
        lines = read_lines(watcher, 2, timeout=10)
        assert lines[0].split()[:3] == ["NAME", "READY", "STATUS"]
        assert lines[1].startswith(pod)
    finally:
        watcher.kill()
        watcher.wait()


def test_kubectl_delete_foreground_stops_the_pods_first(kube, ns):
    command = "trap 'echo terminated; exit 0' TERM; echo started; sleep 30 & wait"
    kubectl_ok(kube, "apply", "-n", ns, "-f", "-", input=json.dumps(job_manifest("sleeper", command)))
    core, batch = _apis(kube)
    pod = wait_for(lambda: [p for p in pods_of(core, ns, "sleeper") if p.status.phase == "Running"],
                   what="the pod to run")[0].metadata.name
    wait_for(lambda: "started" in log_of(core, ns, pod), what="the container's first line")
    out = kubectl_ok(kube, "delete", "job", "sleeper", "-n", ns, "--cascade=foreground", timeout=30)
    assert 'job.batch "sleeper" deleted' in out
    # kubectl waited for the Job to go, which waited for its pod.
    assert batch.list_namespaced_job(ns).items == []
    assert pods_of(core, ns, "sleeper") == []
    log = (kube.state_dir / "logs" / ns / pod / "main.log").read_text()
    assert log.endswith(" terminated\n")
    deletes = [r for r in kube.requests_log() if r["method"] == "DELETE" and r["path"].endswith("/jobs/sleeper")]
    assert deletes[-1]["body"]["propagationPolicy"] == "Foreground"


def test_kubectl_discovery_falls_back_from_aggregated_to_legacy_documents(kube, tmp_path):
    """kubectl 1.32 asks for aggregated discovery (apidiscovery.k8s.io/v2) and takes the legacy documents."""
    kube.delete("/fake/requests")
    fresh = kube.kubectl("--cache-dir", tmp_path / "cache", "api-resources", "-o", "name")
    assert fresh.returncode == 0, fresh.stderr
    assert {"pods", "jobs.batch", "priorityclasses.scheduling.k8s.io", "nodes"} <= set(fresh.stdout.split())
    api = [r for r in kube.requests_log() if r["path"] == "/api"]
    assert api and "apidiscovery.k8s.io" in api[0]["accept"]
    assert any(r["path"] == "/apis/batch/v1" for r in kube.requests_log())


def test_kubectl_raw_nodes_and_get_nodes(kube):
    nodes = json.loads(kubectl_ok(kube, "get", "--raw", "/api/v1/nodes"))
    assert nodes["kind"] == "NodeList" and [n["metadata"]["name"] for n in nodes["items"]] == ["node-a"]
    node = nodes["items"][0]
    assert node["status"]["allocatable"]["cpu"] == "16"
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-a"
    table = kubectl_ok(kube, "get", "nodes").splitlines()
    assert table[0].split()[:2] == ["NAME", "STATUS"] and table[1].split()[:2] == ["node-a", "Ready"]
    assert "node-a" in kubectl_ok(kube, "get", "no", "-l", "pool=main", "-o", "name")


def test_kubectl_create_configmap_twice_reports_already_exists(kube, ns):
    kubectl_ok(kube, "create", "configmap", "twice", "-n", ns, "--from-literal=a=1")
    proc = kube.kubectl("create", "configmap", "twice", "-n", ns, "--from-literal=a=1")
    assert proc.returncode != 0
    assert 'configmaps "twice" already exists' in proc.stderr
    proc = kube.kubectl("get", "configmap", "missing", "-n", ns)
    assert 'Error from server (NotFound): configmaps "missing" not found' in proc.stderr
    # kubectl create sends protobuf bodies; a Job made that way runs like any other.
    assert json.loads(kubectl_ok(kube, "get", "cm", "twice", "-n", ns, "-o", "json"))["data"] == {"a": "1"}
    kubectl_ok(kube, "create", "job", "made", "-n", ns, "--image=busybox", "--", "sh", "-c", "echo made")
    core, batch = _apis(kube)
    wait_for(lambda: job_condition(batch, ns, "made", "Complete"), what="the Job kubectl created to complete")
    assert kubectl_ok(kube, "logs", "-n", ns, "job/made") == "made\n"


# python3-kubernetes.

def test_python_configmaps_create_list_delete_and_errors(apis, ns):
    core, _ = apis
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg", labels={"app": "x"}), data={"k": "v"})
    created = core.create_namespaced_config_map(ns, body)
    assert created.metadata.uid and int(created.metadata.resource_version) > 0
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(ns, body)
    assert e.value.status == 409 and json.loads(e.value.body)["reason"] == "AlreadyExists"
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map("nope", ns)
    assert e.value.status == 404 and json.loads(e.value.body)["details"] == {"name": "nope", "kind": "configmaps"}
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta()))
    assert e.value.status == 422
    with pytest.raises(ApiException) as e:
        core.create_namespaced_config_map("no-such-namespace", body)
    assert e.value.status == 404
    assert json.loads(e.value.body)["message"] == 'namespaces "no-such-namespace" not found'

    generated = core.create_namespaced_config_map(ns, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(generate_name="gen-", labels={"app": "y"})))
    assert generated.metadata.name.startswith("gen-") and len(generated.metadata.name) == 9
    assert [c.metadata.name for c in core.list_namespaced_config_map(ns, label_selector="app=x").items] == ["cfg"]
    assert len(core.list_namespaced_config_map(ns, label_selector="app in (x,y)").items) == 2
    assert [c.metadata.name for c in core.list_namespaced_config_map(ns, label_selector="app!=x").items] == \
        [generated.metadata.name]

    # A stale resourceVersion on replace is a 409 Conflict.
    stale = core.read_namespaced_config_map("cfg", ns)
    core.patch_namespaced_config_map("cfg", ns, {"data": {"k": "v2"}})
    stale.data = {"k": "v3"}
    with pytest.raises(ApiException) as e:
        core.replace_namespaced_config_map("cfg", ns, stale)
    assert e.value.status == 409 and json.loads(e.value.body)["reason"] == "Conflict"

    page = core.list_namespaced_config_map(ns, limit=1)
    assert len(page.items) == 1 and page.metadata._continue
    rest = core.list_namespaced_config_map(ns, limit=1, _continue=page.metadata._continue)
    assert rest.items[0].metadata.name != page.items[0].metadata.name

    core.delete_namespaced_config_map("cfg", ns)
    with pytest.raises(ApiException) as e:
        core.delete_namespaced_config_map("cfg", ns)
    assert e.value.status == 404
    core.delete_collection_namespaced_config_map(ns, label_selector="app=y")
    assert core.list_namespaced_config_map(ns).items == []


def test_python_watch_follows_a_job_pod_to_success(apis, ns):
    core, batch = apis
    rv = core.list_namespaced_pod(ns).metadata.resource_version
    batch.create_namespaced_job(ns, job_manifest("quick", "sleep 0.3; echo done"))
    seen = []
    for event in watch.Watch().stream(core.list_namespaced_pod, ns, resource_version=rv,
                                      label_selector="job-name=quick", timeout_seconds=15):
        seen.append((event["type"], event["object"].status.phase))
        if event["object"].status.phase == "Succeeded":
            break
    assert seen[0] == ("ADDED", "Pending")
    assert ("MODIFIED", "Running") in seen and seen[-1] == ("MODIFIED", "Succeeded")
    wait_for(lambda: job_condition(batch, ns, "quick", "Complete"), what="the Job to complete")
    job = batch.read_namespaced_job("quick", ns)
    assert job.status.succeeded == 1 and job.status.completion_time is not None

    running = core.list_namespaced_pod(ns, label_selector="job-name=quick", field_selector="status.phase=Running")
    assert running.items == []
    done = core.list_namespaced_pod(ns, label_selector="job-name=quick", field_selector="status.phase=Succeeded")
    assert len(done.items) == 1

    # Deleting the Job (Background) deletes its pod: the watch sees it go.
    rv = core.list_namespaced_pod(ns).metadata.resource_version
    batch.delete_namespaced_job("quick", ns, body=client.V1DeleteOptions(propagation_policy="Background"))
    event = next(watch.Watch().stream(core.list_namespaced_pod, ns, resource_version=rv, timeout_seconds=10))
    assert event["type"] == "DELETED" and event["object"].metadata.labels["job-name"] == "quick"


def test_python_list_with_label_and_field_selectors(apis, ns):
    core, batch = apis
    batch.create_namespaced_job(ns, job_manifest("runner", "sleep 30"))
    wait_for(lambda: core.list_namespaced_pod(ns, label_selector="job-name=runner",
                                              field_selector="status.phase=Running").items, what="a running pod")
    pod = pods_of(core, ns, "runner")[0]
    assert pod.spec.node_name == "node-a" and pod.status.pod_ip == "127.0.0.1"
    assert core.list_namespaced_pod(ns, field_selector="spec.nodeName=node-a").items
    assert not core.list_namespaced_pod(ns, field_selector="spec.nodeName!=node-a").items
    with pytest.raises(ApiException) as e:
        core.list_namespaced_pod(ns, field_selector="spec.bogus=1")
    assert e.value.status == 400 and "field label not supported" in e.value.body
    batch.delete_namespaced_job("runner", ns, propagation_policy="Background", grace_period_seconds=0)


def test_python_watch_after_compaction_gets_410(kube, apis, ns):
    core, _ = apis
    old_rv = core.list_namespaced_config_map(ns).metadata.resource_version
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a")))
    kube.post("/fake/compact")
    # With timeout_seconds the client does not retry: the ERROR event becomes ApiException(410).
    with pytest.raises(ApiException) as e:
        list(watch.Watch().stream(core.list_namespaced_config_map, ns, resource_version=old_rv, timeout_seconds=5))
    assert e.value.status == 410 and "Expired" in e.value.reason
    # Without it, the client retries once with the same resourceVersion, then raises.
    kube.delete("/fake/requests")
    with pytest.raises(ApiException) as e:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, ns, resource_version=old_rv):
            pass
    assert e.value.status == 410
    watches = [r for r in kube.requests_log() if "watch=true" in r["query"].lower()]
    assert len(watches) == 2 and all(f"resourceVersion={old_rv}" in r["query"] for r in watches)
    # Raw: the real server answers 200 and streams one ERROR event with a 410 Status.
    code, body = kube.request("GET", f"/api/v1/namespaces/{ns}/configmaps?watch=true&resourceVersion={old_rv}")
    event = json.loads(body) if isinstance(body, str) else body
    assert code == 200 and event["type"] == "ERROR"
    assert event["object"]["code"] == 410 and "too old resource version" in event["object"]["message"]


def test_watch_semantics_initial_events_selector_transitions_and_bookmarks(kube, apis, ns):
    core, _ = apis
    core.create_namespaced_config_map(ns, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="w", labels={"tier": "a"})))
    stream = watch.Watch().stream(core.list_namespaced_config_map, ns, label_selector="tier=a", timeout_seconds=10)
    first = next(stream)
    assert first["type"] == "ADDED" and first["object"].metadata.name == "w"  # no resourceVersion: current state
    core.patch_namespaced_config_map("w", ns, {"data": {"x": "1"}})
    assert next(stream)["type"] == "MODIFIED"
    core.patch_namespaced_config_map("w", ns, {"metadata": {"labels": {"tier": "b"}}})
    left = next(stream)
    assert left["type"] == "DELETED" and left["object"].metadata.labels == {"tier": "b"}
    stream.close()

    rv = core.list_namespaced_config_map(ns).metadata.resource_version
    start = time.monotonic()
    for event in watch.Watch().stream(core.list_namespaced_config_map, ns, resource_version=rv,
                                      allow_watch_bookmarks=True, timeout_seconds=8):
        assert event["type"] == "BOOKMARK"
        assert int(event["raw_object"]["metadata"]["resourceVersion"]) >= int(rv)
        break
    assert time.monotonic() - start < 5


# Scheduling.

@pytest.fixture
def gpu_cluster(tmp_path):
    """A cluster with one 4-GPU node and one CPU node."""
    with running_fake_apiserver(tmp_path, nodes=["gpu-node:cpu=16,gpu=4,memory=64Gi,label=pool=gpu",
                                                 "cpu-node:cpu=8,memory=32Gi,label=pool=cpu"]) as handle:
        yield handle


def test_a_pod_needing_more_gpus_than_any_node_has_stays_pending(gpu_cluster):
    core, _ = _apis(gpu_cluster)
    pod = {"metadata": {"name": "greedy"}, "spec": {"containers": [
        {"name": "c", "image": "busybox", "command": ["sleep", "30"], "resources": {"limits": {GPU: "8"}}}]}}
    core.create_namespaced_pod("default", pod)

    def unschedulable():
        conditions = core.read_namespaced_pod("greedy", "default").status.conditions or []
        return next((c for c in conditions if c.type == "PodScheduled" and c.reason == "Unschedulable"), None)
    condition = wait_for(unschedulable, what="PodScheduled=False")
    assert condition.status == "False"
    assert condition.message.startswith("0/2 nodes are available: 2 Insufficient nvidia.com/gpu.")
    events = core.list_namespaced_event("default", field_selector="involvedObject.name=greedy,reason=FailedScheduling")
    assert events.items and events.items[0].type == "Warning"
    assert events.items[0].message == condition.message and events.items[0].involved_object.kind == "Pod"
    assert core.read_namespaced_pod("greedy", "default").status.phase == "Pending"
    assert "Pending" in gpu_cluster.kubectl("get", "pod", "greedy").stdout

    # A node big enough appears: the pod is scheduled there and runs.
    gpu_cluster.post("/fake/nodes", {"spec": "big-node:cpu=32,gpu=8,memory=128Gi"})
    wait_for(lambda: core.read_namespaced_pod("greedy", "default").status.phase == "Running",
             what="the pod to run on the new node")
    assert core.read_namespaced_pod("greedy", "default").spec.node_name == "big-node"
    # The node goes away: so does the pod bound to it.
    gpu_cluster.delete("/fake/nodes/big-node")
    wait_for(lambda: not core.list_namespaced_pod("default", field_selector="metadata.name=greedy").items,
             what="the pod of the removed node to be deleted")


def test_two_jobs_share_a_gpu_node_one_after_the_other(gpu_cluster, tmp_path):
    core, batch = _apis(gpu_cluster)
    release = tmp_path / "release"
    first = job_manifest("first", f"while [ ! -e {release} ]; do sleep 0.05; done", gpus=3)
    batch.create_namespaced_job("default", first)
    wait_for(lambda: [p for p in pods_of(core, "default", "first") if p.status.phase == "Running"],
             what="the first Job to run")
    batch.create_namespaced_job("default", job_manifest("second", "echo second", gpus=3))
    pod = wait_for(lambda: pods_of(core, "default", "second"), what="the second Job's pod")[0]

    def waiting_reason():
        conditions = core.read_namespaced_pod(pod.metadata.name, "default").status.conditions or []
        return next((c.message for c in conditions if c.reason == "Unschedulable"), None)
    assert wait_for(waiting_reason, what="the second pod to wait").startswith(
        "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.")
    assert pod.spec.node_name is None
    release.touch()
    wait_for(lambda: job_condition(batch, "default", "first", "Complete"), what="the first Job to complete")
    wait_for(lambda: job_condition(batch, "default", "second", "Complete"), what="the second Job to complete")
    assert core.read_namespaced_pod(pod.metadata.name, "default").spec.node_name == "gpu-node"


def test_node_selector_is_honoured(gpu_cluster):
    core, batch = _apis(gpu_cluster)
    batch.create_namespaced_job("default", job_manifest("on-cpu", "true", node_selector={"pool": "cpu"}))
    batch.create_namespaced_job("default", job_manifest("nowhere", "true", node_selector={"pool": "tpu"}))
    wait_for(lambda: job_condition(batch, "default", "on-cpu", "Complete"), what="the Job on the cpu pool")
    assert pods_of(core, "default", "on-cpu")[0].spec.node_name == "cpu-node"
    pod = pods_of(core, "default", "nowhere")[0]
    conditions = wait_for(lambda: core.read_namespaced_pod(pod.metadata.name, "default").status.conditions,
                          what="the unschedulable condition")
    assert "2 node(s) didn't match Pod's node affinity/selector" in conditions[0].message


# Processes.

def test_indexed_job_pods_run_together_with_their_completion_index(kube, apis, ns, tmp_path):
    core, batch = apis
    marks = tmp_path / "marks"
    marks.mkdir()
    command = (f"touch {marks}/$JOB_COMPLETION_INDEX; "
               f"while [ $(ls {marks} | wc -l) -lt 2 ]; do sleep 0.05; done; echo index=$JOB_COMPLETION_INDEX")
    batch.create_namespaced_job(ns, job_manifest("idx", command, parallelism=2, completions=2, indexed=True))
    wait_for(lambda: job_condition(batch, ns, "idx", "Complete"), what="the Indexed Job to complete")
    pods = sorted(pods_of(core, ns, "idx"), key=lambda p: p.metadata.name)
    assert [p.metadata.annotations["batch.kubernetes.io/job-completion-index"] for p in pods] == ["0", "1"]
    assert [p.metadata.name.rsplit("-", 1)[0] for p in pods] == ["idx-0", "idx-1"]
    assert [core.read_namespaced_pod_log(p.metadata.name, ns) for p in pods] == ["index=0\n", "index=1\n"]
    assert batch.read_namespaced_job("idx", ns).status.completed_indexes == "0-1"


def test_deleting_a_running_pod_sends_sigterm_to_its_process(kube, apis, ns, tmp_path):
    core, _ = apis
    proof = tmp_path / "got-term"
    script = f"trap 'echo term > {proof}; exit 0' TERM; echo up; while true; do sleep 0.05; done"
    core.create_namespaced_pod(ns, {"metadata": {"name": "victim"}, "spec": {
        "terminationGracePeriodSeconds": 10, "containers": [
            {"name": "c", "image": "busybox", "command": ["sh", "-c", script], "workingDir": "/work/dir"}]}})
    wait_for(lambda: "up" in log_of(core, ns, "victim"), what="the container to start")
    assert (kube.state_dir / "pods" / ns / "victim" / "work" / "dir").is_dir()
    deleted = core.delete_namespaced_pod("victim", ns)
    assert deleted.metadata.deletion_timestamp is not None  # graceful: the pod is still there, terminating
    wait_for(proof.exists, what="the trap to run")

    def gone():
        try:
            core.read_namespaced_pod("victim", ns)
            return False
        except ApiException as e:
            return e.status == 404
    wait_for(gone, what="the pod to be removed")

    # A process that ignores SIGTERM gets SIGKILL when the grace period is over.
    core.create_namespaced_pod(ns, {"metadata": {"name": "stubborn"}, "spec": {"containers": [
        {"name": "c", "image": "busybox",
         "command": ["sh", "-c", "trap '' TERM; echo up; while true; do sleep 0.05; done"]}]}})
    wait_for(lambda: "up" in log_of(core, ns, "stubborn"), what="the container to start")
    start = time.monotonic()
    core.delete_namespaced_pod("stubborn", ns, grace_period_seconds=1)
    wait_for(lambda: not core.list_namespaced_pod(ns, field_selector="metadata.name=stubborn").items,
             what="the stubborn pod to be killed")
    assert time.monotonic() - start >= 0.9


def test_an_image_that_does_not_exist_never_starts(kube, apis, ns):
    core, _ = apis
    core.create_namespaced_pod(ns, {"metadata": {"name": "nopull"}, "spec": {"containers": [
        {"name": "c", "image": "registry.example/does-not-exist:1", "command": ["true"]}]}})

    def waiting():
        statuses = core.read_namespaced_pod("nopull", ns).status.container_statuses or []
        return statuses and statuses[0].state.waiting and statuses[0].state.waiting.reason in (
            "ErrImagePull", "ImagePullBackOff") and statuses[0].state.waiting
    assert "does-not-exist" in (wait_for(waiting, what="ErrImagePull").message or "")
    events = core.list_namespaced_event(ns, field_selector="involvedObject.name=nopull,reason=Failed").items
    assert any("registry.example/does-not-exist:1" in e.message for e in events)
    proc = kube.kubectl("logs", "-n", ns, "nopull")
    assert 'container "c" in pod "nopull" is waiting to start' in proc.stderr
    assert core.read_namespaced_pod("nopull", ns).status.phase == "Pending"


def test_a_missing_configmap_key_is_a_config_error_until_it_appears(kube, apis, ns):
    core, _ = apis
    env = [{"name": "V", "valueFrom": {"configMapKeyRef": {"name": "late", "key": "v"}}}]
    core.create_namespaced_pod(ns, {"metadata": {"name": "waits"}, "spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo V=$V"], "env": env}]}})

    def waiting_message():
        statuses = core.read_namespaced_pod("waits", ns).status.container_statuses or []
        waiting = statuses and statuses[0].state.waiting
        return waiting and waiting.reason == "CreateContainerConfigError" and waiting.message
    assert wait_for(waiting_message, what="CreateContainerConfigError") == 'configmap "late" not found'
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="late"),
                                                             data={"v": "here"}))
    wait_for(lambda: pod_phase(core, ns, "waits") == "Succeeded", what="the pod to run once the key exists")
    assert core.read_namespaced_pod_log("waits", ns) == "V=here\n"


def test_init_containers_run_first_and_logs_need_a_container_name(kube, apis, ns):
    core, _ = apis
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="files"),
                                                             data={"greeting": "hi from a volume"}))
    core.create_namespaced_pod(ns, {"metadata": {"name": "multi"}, "spec": {
        "restartPolicy": "Never",
        "volumes": [{"name": "cfg", "configMap": {"name": "files"}}, {"name": "scratch", "emptyDir": {}}],
        "initContainers": [{"name": "init", "image": "busybox", "workingDir": "/shared",
                            "command": ["sh", "-c", "echo ready > flag; echo init done"]}],
        "containers": [{"name": "a", "image": "busybox", "workingDir": "/shared", "command": ["cat", "flag"]},
                       {"name": "b", "image": "busybox", "volumeMounts": [{"name": "cfg", "mountPath": "/etc/cfg"}],
                        "command": ["sh", "-c", "echo b: $HOSTNAME; cat $FAKE_KUBE_POD_ROOT/etc/cfg/greeting"]}]}})
    wait_for(lambda: pod_phase(core, ns, "multi") == "Succeeded", what="the pod to succeed")
    pod = core.read_namespaced_pod("multi", ns)
    assert pod.status.init_container_statuses[0].state.terminated.reason == "Completed"
    assert {c.type: c.status for c in pod.status.conditions}["Initialized"] == "True"
    with pytest.raises(ApiException) as e:
        core.read_namespaced_pod_log("multi", ns)
    assert e.value.status == 400 and json.loads(e.value.body)["message"] == (
        "a container name must be specified for pod multi, choose one of: [a b] or one of the init containers: "
        "[init]")
    assert core.read_namespaced_pod_log("multi", ns, container="a") == "ready\n"
    assert core.read_namespaced_pod_log("multi", ns, container="b") == "b: multi\nhi from a volume\n"
    assert core.read_namespaced_pod_log("multi", ns, container="init") == "init done\n"


def test_restart_policy_on_failure_restarts_the_container(kube, apis, ns):
    core, _ = apis
    command = "if [ -e tried ]; then echo second; else touch tried; echo first; exit 1; fi"
    core.create_namespaced_pod(ns, {"metadata": {"name": "retry"}, "spec": {"restartPolicy": "OnFailure",
                                                                            "containers": [
        {"name": "c", "image": "busybox", "command": ["sh", "-c", command]}]}})
    wait_for(lambda: pod_phase(core, ns, "retry") == "Succeeded", what="the second run to succeed")
    status = core.read_namespaced_pod("retry", ns).status.container_statuses[0]
    assert status.restart_count == 1 and status.last_state.terminated.exit_code == 1
    assert core.read_namespaced_pod_log("retry", ns) == "first\nsecond\n"


def test_job_validation_like_the_real_server(apis, ns):
    _, batch = apis
    job = job_manifest("always", "true")
    job["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    with pytest.raises(ApiException) as e:
        batch.create_namespaced_job(ns, job)
    status = json.loads(e.value.body)
    assert e.value.status == 422 and status["reason"] == "Invalid"
    assert status["message"] == ('Job.batch "always" is invalid: spec.template.spec.restartPolicy: Unsupported value: '
                                 '"Always": supported values: "OnFailure", "Never"')
    job = job_manifest("indexed", "true", parallelism=2, indexed=True)  # completions unset: not defaulted
    with pytest.raises(ApiException) as e:
        batch.create_namespaced_job(ns, job)
    assert "spec.completions: Required value: when completion mode is Indexed" in json.loads(e.value.body)["message"]


def test_suspend_and_resume_a_job_with_a_merge_patch(kube, apis, ns):
    core, batch = apis
    batch.create_namespaced_job(ns, job_manifest("later", "sleep 30", suspend=True))
    wait_for(lambda: job_condition(batch, ns, "later", "Suspended"), what="the Suspended condition")
    assert pods_of(core, ns, "later") == []
    batch.patch_namespaced_job("later", ns, {"spec": {"suspend": False}})
    wait_for(lambda: [p for p in pods_of(core, ns, "later") if p.status.phase == "Running"], what="a running pod")
    batch.patch_namespaced_job("later", ns, {"spec": {"suspend": True}})
    wait_for(lambda: pods_of(core, ns, "later") == [], what="the suspended Job's pod to go")
    assert not batch.read_namespaced_job("later", ns).status.failed


def test_deleting_a_job_without_propagation_policy_orphans_its_pods(kube, apis, ns):
    """batch/v1's default is Orphan, as on a real cluster: the resource manager must send a policy."""
    core, batch = apis
    batch.create_namespaced_job(ns, job_manifest("orphaner", "sleep 30"))
    wait_for(lambda: pods_of(core, ns, "orphaner"), what="the pod")
    batch.delete_namespaced_job("orphaner", ns)
    time.sleep(0.3)
    pods = pods_of(core, ns, "orphaner")
    assert len(pods) == 1 and not pods[0].metadata.owner_references
    core.delete_namespaced_pod(pods[0].metadata.name, ns, grace_period_seconds=0)


def test_stopping_the_server_kills_every_pod_process(tmp_path):
    with running_fake_apiserver(tmp_path / "term", env={"FROM_FIXTURE": "inherited"}) as handle:
        core, _ = _apis(handle)
        core.create_namespaced_pod("default", {"metadata": {"name": "long"}, "spec": {"containers": [
            {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo $FROM_FIXTURE; sleep 300; echo never"]}]}})
        group = wait_for(lambda: list((handle.state_dir / "process-groups").glob("*")), what="the process")[0]
        wait_for(lambda: log_of(core, "default", "long") == "inherited\n", what="the environment to reach the pod")
        handle.stop()
        wait_for(lambda: not _group_alive(int(group.name)), timeout=5, what="the process group to be gone")

    # A server killed with SIGKILL cannot clean up; the fixture kills the process groups it recorded.
    with running_fake_apiserver(tmp_path / "kill") as handle:
        core, _ = _apis(handle)
        core.create_namespaced_pod("default", {"metadata": {"name": "long"}, "spec": {"containers": [
            {"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 300; echo never"]}]}})
        group = wait_for(lambda: list((handle.state_dir / "process-groups").glob("*")), what="the process")[0]
        handle.process.kill()
        handle.process.wait()
        handle.stop()
        wait_for(lambda: not _group_alive(int(group.name)), timeout=5, what="the process group to be gone")


def _group_alive(pgid):
    """Whether a process group still has members (zombies count until init reaps them)."""
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


# Failure injection.

def test_injected_500_reaches_both_clients(kube, apis, ns):
    core, _ = apis
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="f")))
    path = f"/api/v1/namespaces/{ns}/configmaps"
    kube.post("/fake/fail", {"status": 500, "count": 1, "path_prefix": path, "method": "GET"})
    with pytest.raises(ApiException) as e:
        core.read_namespaced_config_map("f", ns)
    assert e.value.status == 500 and json.loads(e.value.body)["reason"] == "InternalError"
    assert core.read_namespaced_config_map("f", ns).metadata.name == "f"  # only one request failed

    kube.post("/fake/fail", {"status": 500, "count": 1, "path_prefix": path})
    proc = kube.kubectl("get", "configmap", "f", "-n", ns)
    assert proc.returncode != 0 and "Error from server (InternalError)" in proc.stderr

    kube.post("/fake/latency", {"ms": 300})
    start = time.monotonic()
    core.read_namespaced_config_map("f", ns)
    assert time.monotonic() - start >= 0.3
    kube.post("/fake/latency", {"ms": 0})

    # 429 carries Retry-After, which client-go honours: kubectl retries and succeeds.
    kube.delete("/fake/requests")
    kube.post("/fake/fail", {"status": 429, "count": 1, "path_prefix": path})
    assert kubectl_ok(kube, "get", "configmap", "f", "-n", ns, "-o", "name").strip() == "configmap/f"
    assert len([r for r in kube.requests_log() if r["path"] == f"{path}/f"]) == 2


def test_drop_watches_ends_a_python_watch_stream(kube, apis, ns):
    core, _ = apis
    ended = threading.Event()
    events = []

    def consume():
        for event in watch.Watch().stream(core.list_namespaced_config_map, ns, timeout_seconds=30):
            events.append(event["type"])
        ended.set()
    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    wait_for(lambda: any("watch=true" in r["query"].lower() and ns in r["path"] for r in kube.requests_log()),
             what="the watch to open")
    time.sleep(0.1)
    assert kube.post("/fake/drop-watches")["dropped"] >= 1
    assert ended.wait(5), "the watch stream did not end"

    # Without timeout_seconds the client reconnects from the last resourceVersion it saw.
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="seen")))
    stream = watch.Watch().stream(core.list_namespaced_config_map, ns)
    first = next(stream)
    kube.delete("/fake/requests")
    kube.post("/fake/drop-watches")
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="after")))
    second = next(stream)
    assert second["type"] == "ADDED" and second["object"].metadata.name == "after"
    resumed = [r for r in kube.requests_log() if "watch=true" in r["query"].lower()]
    assert f"resourceVersion={first['object'].metadata.resource_version}" in resumed[0]["query"]
    stream.close()


def test_requests_log_records_delete_options(kube, apis, ns):
    core, batch = apis
    batch.create_namespaced_job(ns, job_manifest("bg", "sleep 30"))
    wait_for(lambda: pods_of(core, ns, "bg"), what="the pod")
    batch.delete_namespaced_job("bg", ns, body=client.V1DeleteOptions(propagation_policy="Background"))
    deletes = [r for r in kube.requests_log() if r["method"] == "DELETE" and r["path"].endswith("/jobs/bg")]
    assert deletes[-1]["body"]["propagationPolicy"] == "Background"
    wait_for(lambda: pods_of(core, ns, "bg") == [], what="the garbage collector to delete the pod")
