"""The master's Kubernetes resource manager end to end, against the project's fake API server
(tests/fake_kube: its pods run as local processes, so experiments really train): every task becomes a
batch/v1 Job of pods the master watches; a gang's Job is created only once all of its pods fit, so two
distributed jobs never deadlock; kill deletes the Job; a master SIGKILL re-adopts the running Jobs.

With DET_K8S_REAL=1, the tests run against the real cluster KUBECONFIG names instead (docs/kubernetes.md,
"Testing against a real cluster"): its nodes must reach this machine's master at DET_K8S_MASTER_HOST, and its
task image must hold our binaries; the tests that need the fake's topology or request log skip. That profile
cannot run here: no Kubernetes API server can be installed on these machines."""
import contextlib
import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import pytest
import yaml

from conftest import BIN, REPO, ConfigFileCluster, log_texts, open_notebook, stepper, steps_printed, wait_for

sys.path.insert(0, str(pathlib.Path(os.environ.get("DET_FAKE_KUBE_DIR", REPO / "tests")).resolve()))
from fake_kube.fixture import running_fake_apiserver  # noqa: E402

NAMESPACE = "default"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class KubeCluster(ConfigFileCluster):
    """A master on the Kubernetes resource manager, and the (fake) API server it drives."""

    def __init__(self, data_dir, kube, master_config):
        self.kube = kube
        super().__init__(data_dir, master_config)

    def jobs(self):
        return self.kube.get(f"/apis/batch/v1/namespaces/{NAMESPACE}/jobs")["items"]

    def pods(self, selector=""):
        return self.kube.get(f"/api/v1/namespaces/{NAMESPACE}/pods" + (f"?labelSelector={selector}" if selector else ""))["items"]



REAL = os.environ.get("DET_K8S_REAL") == "1"


class RealKube:
    """The same handle as the fake's, on the real cluster KUBECONFIG names (kubectl --raw)."""

    def __init__(self):
        self.kubeconfig = os.environ["KUBECONFIG"]

    def kubectl(self, *args, input=None):
        return subprocess.run(["kubectl", *args], capture_output=True, text=True, timeout=120, check=True,
                              input=input).stdout

    def get(self, path):
        return json.loads(self.kubectl("get", "--raw", path))

    def post(self, path, body):
        return json.loads(self.kubectl("create", "--raw", path, "-f", "-", input=json.dumps(body)))

    def delete(self, path):
        self.kubectl("delete", "--raw", path)

    def requests_log(self):
        return None  # a real API server keeps no log of its requests for us


@contextlib.contextmanager
def kube_api(tmp_path, nodes, pod_env):
    if REAL:
        yield RealKube()
    else:
        with running_fake_apiserver(tmp_path / "kube", nodes=nodes, env=pod_env) as kube:
            yield kube


@contextlib.contextmanager
def kube_cluster(tmp_path, nodes, max_slots_per_pod=1, additional=False):
    """A master whose resource manager is Kubernetes; with `additional`, the agents' manager is the main one
    and Kubernetes an additional_resource_managers entry (cluster_name k8s, pool k8s-pool)."""
    pod_env = {"PATH": f"{BIN.resolve()}:/usr/bin:/bin"}
    with kube_api(tmp_path, nodes, pod_env) as kube:
        port = free_port()
        data_dir = tmp_path / "master"
        data_dir.mkdir()
        kubernetes = {"type": "kubernetes", "default_namespace": NAMESPACE, "max_slots_per_pod": max_slots_per_pod,
                      "slot_type": "cuda", "determined_master_host": os.environ.get("DET_K8S_MASTER_HOST", "127.0.0.1"),
                      "determined_master_port": port, "kubeconfig_path": str(kube.kubeconfig)}
        config = {"port": port, "host": "127.0.0.1", "data_dir": str(data_dir),
                  "checkpoint_storage": {"type": "shared_fs", "host_path": str(tmp_path / "checkpoints")}}
        if additional:
            config["additional_resource_managers"] = [{"resource_manager": dict(kubernetes, cluster_name="k8s"),
                                                        "resource_pools": [{"pool_name": "k8s-pool"}]}]
        else:
            config["resource_manager"] = kubernetes
        config = yaml.safe_dump(config)
        cluster = KubeCluster(data_dir, kube, config)
        try:
            yield cluster
        finally:
            cluster.stop()


def job_creations(cluster, task_ids):
    """The Job creations the API server received for these tasks."""
    return [r for r in cluster.kube.requests_log() if r["method"] == "POST" and r["path"].endswith("/jobs")
            and r["body"]["metadata"].get("labels", {}).get("determined.ai/task_id") in task_ids]


@pytest.fixture(scope="module")
def two_gpu_nodes(tmp_path_factory):
    with kube_cluster(tmp_path_factory.mktemp("k8s"), ["node-a:cpu=8,gpu=2", "node-b:cpu=8,gpu=2"]) as c:
        yield c


DIGITS = REPO / "examples" / "digits"


def test_digits_trains_in_a_job_and_its_pod_log_reaches_the_trial_log(two_gpu_nodes):
    cluster = two_gpu_nodes
    exp_id = cluster.create_experiment(DIGITS / "const.yaml", DIGITS)
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    job = wait_for(lambda: next(iter(cluster.jobs()), None), "the trial's Job")
    labels = job["spec"]["template"]["metadata"]["labels"]
    assert labels["determined.ai/task_type"] == "TRIAL", labels
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["name"] == "determined-container"
    assert container["resources"]["limits"]["nvidia.com/gpu"] in (1, "1"), container["resources"]
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(trial_id)
    logs = cluster.trial_logs(trial_id)
    assert "validation" in logs.lower() or "accuracy" in logs, logs
    validations = cluster.metrics(trial_id, "validation")
    assert validations and validations[-1]["metrics"]["accuracy"] > 0.8, validations
    # Done: its Job and ConfigMap are deleted (leave_kubernetes_resources is false).
    wait_for(lambda: not cluster.jobs(), "the Job to be deleted")
    wait_for(lambda: not cluster.kube.get(f"/api/v1/namespaces/{NAMESPACE}/configmaps")["items"], "the ConfigMap to go")


def test_nodes_are_agents_and_their_gpus_slots(two_gpu_nodes):
    if REAL:
        pytest.skip("the fake cluster's nodes")
    agents = json.loads(two_gpu_nodes.det("agent", "list", "--json").stdout)
    assert sorted(a["id"] for a in agents) == ["node-a", "node-b"], agents
    slots = two_gpu_nodes.det("slot", "list").stdout
    assert slots.count("node-a") == 2 and slots.count("node-b") == 2, slots


def test_a_four_trial_adaptive_search_completes(two_gpu_nodes, tmp_path):
    config = (DIGITS / "adaptive.yaml").read_text().replace("max_trials: 16", "max_trials: 4")
    (tmp_path / "adaptive.yaml").write_text(config)
    exp_id = two_gpu_nodes.create_experiment(tmp_path / "adaptive.yaml", DIGITS)
    assert two_gpu_nodes.wait_for_experiment(exp_id, timeout=900) == "STATE_COMPLETED"
    trials = two_gpu_nodes.trials(exp_id)
    assert len(trials) == 4 and all(t["state"] == "STATE_COMPLETED" for t in trials), trials


def test_kill_deletes_the_job(two_gpu_nodes):
    cluster = two_gpu_nodes
    out = cluster.det("command", "run", "-d", "sleep", "600").stdout
    task_id = out.strip().split()[-1] if out.strip() else None
    cmd = wait_for(lambda: next((c for c in cluster.get("/api/v1/commands")["commands"]), None), "the command")
    wait_for(lambda: any(p["status"].get("phase") == "Running" for p in cluster.pods()), "its pod to run")
    cluster.det("command", "kill", cmd["id"])
    wait_for(lambda: not cluster.jobs(), "the Job to be deleted")
    wait_for(lambda: not cluster.pods(), "its pod to go")
    if cluster.kube.requests_log() is not None:
        deletes = [r for r in cluster.kube.requests_log() if r["method"] == "DELETE" and "/jobs/" in r["path"]]
        assert deletes and all((r["body"] or {}).get("propagationPolicy") == "Background" for r in deletes), deletes
    wait_for(lambda: cluster.get(f"/api/v1/commands/{cmd['id']}")["command"]["state"] == "STATE_TERMINATED", "terminated")
    del task_id


def test_a_notebook_opens_through_the_proxy(two_gpu_nodes):
    if not os.path.exists("/usr/bin/jupyter-notebook"):
        pytest.skip("jupyter-notebook is not installed (scripts/install-deps.sh installs it)")
    cluster = two_gpu_nodes
    nid = open_notebook(cluster)
    pods = cluster.pods(f"determined.ai/task_id={nid}")
    assert pods and pods[0]["metadata"]["labels"]["determined.ai/task_type"] == "NOTEBOOK", pods
    cluster.det("notebook", "kill", nid)
    wait_for(lambda: not cluster.pods(f"determined.ai/task_id={nid}"), "the notebook's pod to go")


def test_a_pods_pending_reason_reaches_the_task_log(two_gpu_nodes):
    cluster = two_gpu_nodes
    out = cluster.det("command", "run", "-d", "--config", "environment.image=registry.example/does-not-exist:1",
                      "true").stdout
    cmd = wait_for(lambda: next((c for c in cluster.get("/api/v1/commands")["commands"]
                                 if c["state"] not in ("STATE_TERMINATED",)), None), "the command")
    logs = wait_for(lambda: (lambda l: l if "ErrImagePull" in l or "ImagePullBackOff" in l else None)(
        cluster.task_logs(cmd["id"])), "the image pull failure in the task log", timeout=60)
    assert "does-not-exist" in logs, logs
    cluster.det("command", "kill", cmd["id"])
    wait_for(lambda: not cluster.jobs(), "the Job to be deleted")
    del out


def test_a_master_sigkill_readopts_the_running_job_and_its_log(two_gpu_nodes, tmp_path):
    cluster = two_gpu_nodes
    exp_id, trial_id = cluster.run_script(tmp_path, "steps", steps_printed(60))
    wait_for(lambda: "step 5\n" in cluster.trial_logs(trial_id), "the trial to run")
    pods = cluster.pods("determined.ai/task_type=TRIAL")
    assert len(pods) == 1, pods
    uid = pods[0]["metadata"]["uid"]
    selector = f"determined.ai/task_id={pods[0]['metadata']['labels']['determined.ai/task_id']}"
    cluster.kill_master()
    time.sleep(1)  # the pod prints while no master follows its log
    cluster.start_master(cluster.data_dir)
    assert [p["metadata"]["uid"] for p in cluster.pods(selector)] == [uid], "the same pod runs on"
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(trial_id)
    # Pod output lands within moments of the trial's end.
    lines = wait_for(lambda: (lambda ls: ls if "step 59" in ls else None)(
        [l.strip() for l in log_texts(cluster.trial_logs(trial_id))]), "the last line", timeout=10)
    for step in range(60):  # every line once: none lost while the master was away, none read twice
        assert lines.count(f"step {step}") == 1, (step, lines)
    trial = cluster.get(f"/api/v1/trials/{trial_id}")["trial"]
    assert trial["restarts"] == 0, trial
    if cluster.kube.requests_log() is not None:
        assert len(job_creations(cluster, {cluster.trials(exp_id)[0]["taskId"]})) == 1  # made before the restart


@pytest.fixture(scope="module")
def four_one_gpu_nodes(tmp_path_factory):
    if REAL:
        pytest.skip("needs four one-GPU nodes and nothing else on them: the fake cluster's topology")
    nodes = [f"node-{i}:cpu=4,gpu=1" for i in range(4)]
    with kube_cluster(tmp_path_factory.mktemp("k8s-gang"), nodes) as c:
        yield c


def distributed_config(tmp_path, name, slots):
    config = (DIGITS / "distributed.yaml").read_text().replace("slots_per_trial: 2", f"slots_per_trial: {slots}")
    config = config.replace("epochs: 3", "epochs: 1").replace("name: digits-distributed", f"name: {name}")
    path = tmp_path / f"{name}.yaml"
    path.write_text(config)
    return path


def test_a_two_pod_trial_starts_only_when_both_pods_fit(four_one_gpu_nodes, tmp_path):
    cluster = four_one_gpu_nodes
    # Someone else's Job holds three of the four GPUs.
    theirs = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "theirs", "namespace": "other"},
              "spec": {"parallelism": 3, "completions": 3, "template": {"spec": {
                  "restartPolicy": "Never",
                  "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "600"],
                                  "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}
    cluster.kube.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    cluster.kube.post("/apis/batch/v1/namespaces/other/jobs", theirs)
    wait_for(lambda: len([p for p in cluster.kube.get("/api/v1/namespaces/other/pods")["items"]
                          if p["status"].get("phase") == "Running"]) == 3, "their pods to run")
    exp_id = cluster.create_experiment(distributed_config(tmp_path, "two-pods", 2), DIGITS)
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    wait_for(lambda: "Waiting for 2 slot(s)" in cluster.trial_logs(trial_id), "the trial to say it waits")
    time.sleep(1)
    assert not cluster.jobs(), "no Job (so no pod holding a GPU) while only one of its two pods fits"
    cluster.kube.delete("/apis/batch/v1/namespaces/other/jobs/theirs?propagationPolicy=Background")
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(trial_id)
    logs = cluster.trial_logs(trial_id)
    assert "[rank=0]" in logs and "[rank=1]" in logs, logs


def test_two_three_pod_experiments_on_room_for_four_never_deadlock(four_one_gpu_nodes, tmp_path):
    cluster = four_one_gpu_nodes
    first = cluster.create_experiment(distributed_config(tmp_path, "gang-a", 3), DIGITS)
    second = cluster.create_experiment(distributed_config(tmp_path, "gang-b", 3), DIGITS)
    assert cluster.wait_for_experiment(first, timeout=600) == "STATE_COMPLETED"
    assert cluster.wait_for_experiment(second, timeout=600) == "STATE_COMPLETED"
    logs = [cluster.trial_logs(cluster.trials(e)[0]["id"]) for e in (first, second)]
    assert any("Waiting for 3 slot(s)" in l for l in logs), logs  # one waited, whole, for the other
    assert len(job_creations(cluster, {cluster.trials(e)[0]["taskId"] for e in (first, second)})) == 2


def test_the_master_rides_out_dropped_watches_expired_versions_and_api_errors(two_gpu_nodes, tmp_path):
    cluster = two_gpu_nodes
    if cluster.kube.requests_log() is None:
        pytest.skip("failure injection is the fake API server's")
    exp_id, trial_id = cluster.run_script(tmp_path, "stepper", stepper(40))
    wait_for(lambda: "running from step 0" in cluster.trial_logs(trial_id), "the trial to run")
    cluster.kube.post("/fake/fail", {"status": 500, "count": 3, "path_prefix": "/api/v1/pods"})
    cluster.kube.post("/fake/compact")  # resuming from an old resourceVersion now gets 410: list again
    cluster.kube.post("/fake/drop-watches")
    cluster.kube.post("/fake/fail", {"status": 429, "count": 2, "path_prefix": "/apis/batch/v1"})
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(trial_id)
    # The next task's Job is made through the 429s (the client honours Retry-After).
    again = cluster.create_experiment(DIGITS / "const.yaml", DIGITS)
    assert cluster.wait_for_experiment(again) == "STATE_COMPLETED"


def test_an_additional_kubernetes_manager_runs_its_pools_tasks_beside_the_agents(tmp_path):
    if REAL:
        pytest.skip("the fake cluster's nodes")
    with kube_cluster(tmp_path, ["node-x:cpu=8,gpu=1"], additional=True) as cluster:
        pools = {p["name"]: p for p in cluster.get("/api/v1/resource-pools")["resourcePools"]}
        assert set(pools) == {"default", "k8s-pool"}, pools
        cluster.det("command", "run", "-d", "--config", "resources.resource_pool=k8s-pool", "--config",
                    "resources.slots=1", "echo", "hello from k8s")
        cmd = wait_for(lambda: next(iter(cluster.get("/api/v1/commands")["commands"]), None), "the command")
        wait_for(lambda: cluster.get(f"/api/v1/commands/{cmd['id']}")["command"]["state"] == "STATE_TERMINATED",
                 "the command to end", timeout=60)
        # Pod output is written as it is followed, beside the master's own lines: it lands within moments.
        wait_for(lambda: "hello from k8s" in cluster.task_logs(cmd["id"]), "the command's output", timeout=10)
        assert job_creations(cluster, {cmd["id"]}), "it ran as a Job of the additional manager's cluster"
