"""The master's Slurm resource manager end to end, against a real one-node Slurm 22.05 (scripts/local-slurm.sh:
munge, slurmctld, slurmd, partitions cpu and gpu, 4 fake GPUs): partitions are the pools, every allocation one
sbatch job whose srun step runs determined-pod-runner; experiments train, a two-task trial rendezvous, refusals
carry upstream's messages, kill cancels the job, a master SIGKILL re-attaches, and a full partition's pending
reason shows in the job queue.

Skipped (ctest "Skipped") where Slurm or munge is not installed."""
import contextlib
import json
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import yaml

from conftest import REPO, ConfigFileCluster, log_texts, open_notebook, steps_printed, wait_for

for tool in ("slurmctld", "slurmd", "munged", "sbatch", "squeue", "scancel", "sinfo", "scontrol", "srun"):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (scripts/install-deps.sh installs slurm and munge)",
                    allow_module_level=True)

SCRIPT = REPO / "scripts" / "local-slurm.sh"
DIGITS = REPO / "examples" / "digits"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def local_slurm():
    # munged wants every directory above its socket searchable by all (pytest's temp dirs are 0700).
    dir_ = pathlib.Path(tempfile.mkdtemp(prefix="det-e2e-slurm-"))
    dir_.chmod(0o755)
    r = subprocess.run(["bash", str(SCRIPT), "start", str(dir_)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"local-slurm start failed:\n{r.stdout}\n{r.stderr}"
    env = dict(os.environ)
    for line in r.stdout.splitlines():
        k, _, v = line.partition("=")
        env[k] = v
    try:
        yield env
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", str(dir_)], capture_output=True, text=True, timeout=120)
        shutil.rmtree(dir_, ignore_errors=True)


class SlurmCluster(ConfigFileCluster):
    """A master on the Slurm resource manager, and the Slurm it submits to."""

    def __init__(self, data_dir, slurm_env, master_config):
        self.slurm_env = slurm_env
        super().__init__(data_dir, master_config, env=slurm_env)

    def slurm(self, *args):
        return subprocess.run(list(args), capture_output=True, text=True, timeout=60, env=self.slurm_env,
                              check=True).stdout

    def slurm_jobs(self):
        """Every job slurmctld still knows (22.05 keeps ended ones for MinJobAge)."""
        return json.loads(self.slurm("squeue", "--json"))["jobs"]

    def node_cpus(self):
        return json.loads(self.slurm("sinfo", "--json"))["nodes"][0]["cpus"]

    def our_live_jobs(self):
        return [j for j in self.slurm_jobs() if j["name"].startswith("det-")
                and j["job_state"] in ("PENDING", "RUNNING", "COMPLETING", "CONFIGURING")]


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("slurm")
    with local_slurm() as slurm_env:
        port = free_port()
        data_dir = root / "master"
        data_dir.mkdir()
        config = {"port": port, "host": "127.0.0.1", "data_dir": str(data_dir),
                  "checkpoint_storage": {"type": "shared_fs", "host_path": str(root / "checkpoints")},
                  "resource_manager": {"type": "slurm", "master_host": "127.0.0.1",
                                       "job_storage_root": str(root / "jobs"),
                                       "partition_overrides": {"cpu": {"slot_type": "cpu"}}}}
        cluster = SlurmCluster(data_dir, slurm_env, yaml.safe_dump(config))
        try:
            yield cluster
        finally:
            cluster.stop()


def quick_config(tmp_path, source, name, **replace):
    text = (DIGITS / source).read_text()
    for old, new in replace.items():
        text = text.replace(old.replace("__", " "), new)
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


def test_partitions_are_pools_and_the_node_an_agent(slurm_cluster):
    pools = {p["name"]: p for p in slurm_cluster.get("/api/v1/resource-pools")["resourcePools"]}
    assert set(pools) == {"cpu", "gpu"}, pools
    assert pools["gpu"]["slotsAvailable"] == 4 and pools["gpu"]["slotType"] == "TYPE_CUDA", pools["gpu"]
    assert pools["cpu"]["slotsAvailable"] == slurm_cluster.node_cpus() and pools["cpu"]["slotType"] == "TYPE_CPU", pools["cpu"]
    assert pools["cpu"]["defaultComputePool"] and pools["cpu"]["defaultAuxPool"], "Slurm's default partition"
    agents = json.loads(slurm_cluster.det("agent", "list", "--json").stdout)
    assert [a["id"] for a in agents] == [socket.gethostname().split(".")[0]], agents


def test_digits_trains_as_a_slurm_job(slurm_cluster, tmp_path):
    cluster = slurm_cluster
    exp_id = cluster.create_experiment(quick_config(tmp_path, "const.yaml", "const", **{"epochs: 5": "epochs: 2"}),
                                       DIGITS)
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(trial_id)
    logs = cluster.trial_logs(trial_id)
    assert "Slurm job" in logs and "submitted to partition cpu" in logs, logs
    validations = cluster.metrics(trial_id, "validation")
    assert validations and validations[-1]["metrics"]["accuracy"] > 0.8, validations
    assert not cluster.our_live_jobs()


def test_a_four_trial_search_completes(slurm_cluster, tmp_path):
    config = quick_config(tmp_path, "adaptive.yaml", "adaptive", **{"max_trials: 16": "max_trials: 4"})
    exp_id = slurm_cluster.create_experiment(config, DIGITS)
    assert slurm_cluster.wait_for_experiment(exp_id, timeout=900) == "STATE_COMPLETED"
    trials = slurm_cluster.trials(exp_id)
    assert len(trials) == 4 and all(t["state"] == "STATE_COMPLETED" for t in trials), trials


def test_a_two_task_distributed_trial_rendezvous(slurm_cluster, tmp_path):
    # Two tasks of one GPU each (slots_per_node 1), which Slurm places on its one node: "two nodes" in one.
    config = quick_config(tmp_path, "distributed.yaml", "dist", **{"epochs: 3": "epochs: 1",
                                                                  "slots_per_trial: 2": "slots_per_trial: 2\n  resource_pool: gpu"})
    config.write_text(config.read_text() + "slurm:\n  slots_per_node: 1\n")
    exp_id = slurm_cluster.create_experiment(config, DIGITS)
    trial_id = wait_for(lambda: (slurm_cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    assert slurm_cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", slurm_cluster.trial_logs(trial_id)
    logs = slurm_cluster.trial_logs(trial_id)
    assert "[rank=0]" in logs and "[rank=1]" in logs, logs
    assert "--nnodes 2" in logs, "torch_distributed saw two processes"


@pytest.mark.parametrize("slurm_section, message", [
    ({"sbatch_args": ["-G7"]}, "slurm option -G is not configurable"),
    ({"sbatch_args": ["--error=xxx"]}, "slurm option --error is not configurable"),
    ({"sbatch_args": ["--no-such-option"]}, "sbatch: unrecognized option"),
    ({"gpu_type": "h200"}, "Requested node configuration is not available"),
])
def test_refused_jobs_carry_upstreams_messages_and_leave_nothing_queued(slurm_cluster, tmp_path, slurm_section,
                                                                        message):
    config = yaml.safe_load((DIGITS / "const.yaml").read_text())
    config["resources"] = {"slots_per_trial": 1, "resource_pool": "gpu"}
    config["slurm"] = slurm_section
    path = tmp_path / "refused.yaml"
    path.write_text(yaml.safe_dump(config))
    exp_id = slurm_cluster.create_experiment(path, DIGITS)
    assert slurm_cluster.wait_for_experiment(exp_id) == "STATE_ERROR"
    trial_id = slurm_cluster.trials(exp_id)[0]["id"]
    assert message in slurm_cluster.trial_logs(trial_id), slurm_cluster.trial_logs(trial_id)
    assert not slurm_cluster.our_live_jobs()


def test_kill_cancels_the_slurm_job(slurm_cluster):
    cluster = slurm_cluster
    cluster.det("command", "run", "-d", "sleep", "600")
    cmd = wait_for(lambda: next((c for c in cluster.get("/api/v1/commands")["commands"]
                                 if c["state"] != "STATE_TERMINATED"), None), "the command")
    job = wait_for(lambda: next((j for j in cluster.our_live_jobs() if j["job_state"] == "RUNNING"), None),
                   "its Slurm job to run")
    cluster.det("command", "kill", cmd["id"])
    wait_for(lambda: cluster.get(f"/api/v1/commands/{cmd['id']}")["command"]["state"] == "STATE_TERMINATED",
             "the command to end")
    wait_for(lambda: not any(j["job_id"] == job["job_id"] for j in cluster.our_live_jobs()),
             "squeue to show the job no more")


def test_a_master_sigkill_reattaches_the_running_job(slurm_cluster, tmp_path):
    cluster = slurm_cluster
    exp_id, trial_id = cluster.run_script(tmp_path, "steps", steps_printed(40))
    wait_for(lambda: "step 3\n" in cluster.trial_logs(trial_id), "the trial to run")
    [job] = [j for j in cluster.our_live_jobs() if j["job_state"] == "RUNNING"]
    cluster.kill_master()
    time.sleep(1)  # the job prints while no master listens
    cluster.start_master(cluster.data_dir)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(trial_id)
    lines = wait_for(lambda: (lambda ls: ls if "step 39" in ls else None)(
        [l.strip() for l in log_texts(cluster.trial_logs(trial_id))]), "the last line", timeout=10)
    for step in range(40):  # the runner held its lines while the master was away
        assert lines.count(f"step {step}") == 1, (step, lines)
    trial = cluster.get(f"/api/v1/trials/{trial_id}")["trial"]
    assert trial["restarts"] == 0, trial
    ours = [j for j in cluster.slurm_jobs() if j["name"] == job["name"]]
    assert [j["job_id"] for j in ours] == [job["job_id"]], "one job, not submitted again"


def test_the_job_queue_shows_why_a_job_waits_on_a_full_partition(slurm_cluster):
    cluster = slurm_cluster
    blocker = cluster.slurm("sbatch", "--parsable", "-p", "cpu", f"--cpus-per-task={cluster.node_cpus()}",
                            "-J", "someone-else", "--wrap", "sleep 600").strip()
    try:
        wait_for(lambda: any(str(j["job_id"]) == blocker and j["job_state"] == "RUNNING"
                             for j in cluster.slurm_jobs()), "their job to run")
        cluster.det("command", "run", "-d", "echo", "finally")
        cmd = wait_for(lambda: next((c for c in cluster.get("/api/v1/commands")["commands"]
                                     if c["state"] != "STATE_TERMINATED"), None), "the command")
        job = wait_for(lambda: next((j for j in cluster.get("/api/v1/job-queues")["jobs"]
                                     if j.get("pendingReason")), None), "a pending reason in the job queue")
        assert job["summary"]["state"] == "STATE_QUEUED" and "pending: " in job["pendingReason"], job
        listed = cluster.det("job", "list").stdout
        assert "pending: " in listed, listed
        assert "is pending: " in cluster.task_logs(cmd["id"])
    finally:
        cluster.slurm("scancel", blocker)
    wait_for(lambda: cluster.get(f"/api/v1/commands/{cmd['id']}")["command"]["state"] == "STATE_TERMINATED",
             "the command to run once room was made")
    assert "finally" in cluster.task_logs(cmd["id"])


def test_a_notebook_opens_through_the_proxy(slurm_cluster):
    if not os.path.exists("/usr/bin/jupyter-notebook"):
        pytest.skip("jupyter-notebook is not installed (scripts/install-deps.sh installs it)")
    cluster = slurm_cluster
    nid = open_notebook(cluster)
    cluster.det("notebook", "kill", nid)
    wait_for(lambda: not cluster.our_live_jobs(), "the notebook's job to end")
