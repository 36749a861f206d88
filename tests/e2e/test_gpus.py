"""GPUs without a GPU: agents find them through nvidia-smi (tests/e2e/fake_gpu/nvidia-smi answers as a real
NVIDIA H200 machine did, with DET_FAKE_GPUS of them), offer each as a cuda slot with its brand and uuid,
and every task sees exactly its own devices in CUDA_VISIBLE_DEVICES: two 2-slot trials at once get disjoint
pairs, a zero-slot command none, a 5-slot trial is refused, a restarted agent adopts its running trial on
the same devices, --visible-gpus limits what an agent offers, and an agent of CPU slots may not join a pool of GPUs."""
import contextlib
import json
import os
import pathlib
import re
import signal
import subprocess

import pytest

from conftest import BIN, local_cluster, login, restart_master, wait_for

FAKE_GPU_DIR = pathlib.Path(__file__).resolve().parent / "fake_gpu"
H200_UUID = "GPU-703306b3-2fac-7329-2445-8eeb1fd75108"


def uuid(i):
    return H200_UUID if i == 0 else H200_UUID[:-2] + f"{i:02d}"


@contextlib.contextmanager
def gpu_machine(count):
    """The environment of a machine whose nvidia-smi shows `count` H200s, for the processes started in it."""
    saved = {k: os.environ.get(k) for k in ("PATH", "DET_FAKE_GPUS")}
    os.environ["PATH"] = f"{FAKE_GPU_DIR}:{os.environ['PATH']}"
    os.environ["DET_FAKE_GPUS"] = str(count)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "resource_pools:\n  - pool_name: default\n    agent_reconnect_wait: 60s\n"
    with gpu_machine(4), local_cluster(tmp_path_factory.mktemp("gpus"), agents=1, master_config=config) as c:
        yield c


# Prints its devices, then waits for the test's go-ahead file (so that two of them run at once).
TRIAL = r"""
import os, pathlib, time
import determined as det

info = det.get_cluster_info()
print("CUDA_VISIBLE_DEVICES=" + os.environ["CUDA_VISIBLE_DEVICES"], flush=True)
print("gpu_uuids=" + ",".join(info.gpu_uuids), flush=True)
go = pathlib.Path(info.trial.hparams["go"])
with det.core.init() as ctx:
    deadline = time.time() + 120
    while not go.exists() and time.time() < deadline:
        time.sleep(0.1)
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
"""


def submit(cluster, model_dir, name, slots, go):
    (model_dir / "trial.py").write_text(TRIAL)
    (model_dir / f"{name}.yaml").write_text(
        f"name: {name}\nentrypoint: python3 trial.py\nsearcher: {{name: single, metric: loss}}\n"
        f"resources: {{slots_per_trial: {slots}}}\nhyperparameters: {{go: {go}}}\nmax_restarts: 0\n")
    return cluster.det("experiment", "create", str(model_dir / f"{name}.yaml"), str(model_dir), check=False)


def visible_devices(cluster, exp_id):
    trials = cluster.trials(exp_id)
    if not trials:
        return None
    m = re.search(r"CUDA_VISIBLE_DEVICES=(\S*)", cluster.trial_logs(trials[0]["id"]))
    return m and m.group(1).split(",")


def used_gpus(cluster):
    return sorted(s["device"]["uuid"] for a in cluster.get("/api/v1/agents")["agents"]
                  for s in a["slots"].values() if s["container"])


def test_the_agent_offers_each_gpu_as_a_cuda_slot(cluster):
    slots = [s for a in cluster.get("/api/v1/agents")["agents"] for s in a["slots"].values()]
    assert sorted((s["device"]["id"], s["device"]["type"], s["device"]["brand"], s["device"]["uuid"])
                  for s in slots) == [(i, "TYPE_CUDA", "NVIDIA H200", uuid(i)) for i in range(4)]
    rows = [[c.strip() for c in line.split("|")] for line in cluster.det("slot", "list").stdout.splitlines()[2:]]
    assert [(r[2], r[7], r[8], r[9]) for r in rows] == [(str(i), "TYPE_CUDA", "NVIDIA H200", uuid(i)) for i in range(4)]
    upstream_rows = stock_slot_list(cluster)
    if upstream_rows is not None:  # Determined 0.38.1's own det shows them too
        assert all("cuda" in r and "NVIDIA H200" in r for r in upstream_rows), upstream_rows


def stock_slot_list(cluster):
    """The rows of upstream's own `det slot list`, where its client is installed (tests/e2e/upstream.py)."""
    import upstream
    if not upstream.installed():
        return None
    out = upstream.stock_det(cluster.master_url, "slot", "list").stdout
    return out.splitlines()[2:]


def test_two_trials_get_disjoint_gpus_and_a_cpu_command_none(cluster, tmp_path):
    go = tmp_path / "go"
    first = int(re.search(r"Created experiment (\d+)", submit(cluster, tmp_path, "a", 2, go).stdout).group(1))
    second = int(re.search(r"Created experiment (\d+)", submit(cluster, tmp_path, "b", 2, go).stdout).group(1))
    a = wait_for(lambda: visible_devices(cluster, first), "the first trial's devices", 120)
    b = wait_for(lambda: visible_devices(cluster, second), "the second trial's devices", 120)
    assert len(a) == 2 and len(b) == 2 and not set(a) & set(b), (a, b)
    assert set(a) | set(b) == {uuid(i) for i in range(4)}
    logs = cluster.trial_logs(cluster.trials(first)[0]["id"])
    assert f"gpu_uuids={','.join(a)}" in logs, logs

    out = cluster.det("cmd", "run", "--config", "resources.slots=0", "echo visible=[$CUDA_VISIBLE_DEVICES]").stdout
    assert "visible=[]" in out, out
    zero = re.search(r"Command ([0-9a-f-]{36})", out).group(1)
    assert cluster.get(f"/api/v1/commands/{zero}")["command"]["container"]["devices"] == []
    go.touch()
    assert cluster.wait_for_experiment(first) == "STATE_COMPLETED"
    assert cluster.wait_for_experiment(second) == "STATE_COMPLETED"


def test_a_gpu_commands_container_shows_its_device(cluster):
    out = cluster.det("cmd", "run", "-d", "--config", "resources.slots=1", "sleep 30").stdout.strip()
    command = re.search(r"[0-9a-f-]{36}", out).group(0)
    try:
        container = wait_for(lambda: cluster.get(f"/api/v1/commands/{command}")["command"]["container"],
                             "the command's container", 60)
        (device,) = container["devices"]
        assert device["type"] == "TYPE_CUDA" and device["brand"] == "NVIDIA H200", device
        assert device["uuid"] == uuid(device["id"]), device
    finally:
        cluster.det("cmd", "kill", command)


def test_a_trial_no_agent_can_hold_is_refused(cluster, tmp_path):
    refused = submit(cluster, tmp_path, "too-big", 5, tmp_path / "never")
    assert refused.returncode != 0
    assert "5 slots requested but pool \"default\" can hold at most 4" in refused.stdout + refused.stderr


def test_a_restarted_agent_adopts_its_trial_on_the_same_gpus(cluster, tmp_path):
    go = tmp_path / "go"
    exp_id = int(re.search(r"Created experiment (\d+)", submit(cluster, tmp_path, "adopted", 3, go).stdout).group(1))
    before = wait_for(lambda: visible_devices(cluster, exp_id), "the trial's devices", 120)
    used_before = wait_for(lambda: used_gpus(cluster) or None, "the trial's GPUs in use", 60)

    record = json.loads((cluster.data_dir / "cluster.json").read_text())
    agent_pid = record["agent_pids"][0]
    cmdline = pathlib.Path(f"/proc/{agent_pid}/cmdline").read_bytes().split(b"\0")[:-1]
    os.kill(agent_pid, signal.SIGKILL)
    with gpu_machine(4):
        agent = subprocess.Popen([c.decode() for c in cmdline], stdout=open(cluster.data_dir / "agent-again.log", "w"),
                                 stderr=subprocess.STDOUT, start_new_session=True)
    record["agent_pids"] = [agent.pid]  # so that cluster-down stops the new agent
    (cluster.data_dir / "cluster.json").write_text(json.dumps(record))
    wait_for(lambda: "adopted the task left running" in (cluster.data_dir / "agent-again.log").read_text(),
             "the new agent to adopt the trial", 60)
    used_after = wait_for(lambda: used_gpus(cluster) or None, "the adopted trial's slots", 60)
    assert used_after == used_before == sorted(before), (used_before, used_after, before)
    go.touch()
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    logs = cluster.trial_logs(cluster.trials(exp_id)[0]["id"])
    assert logs.count("CUDA_VISIBLE_DEVICES=") == 1, "one process, never restarted"


def test_a_restarted_master_keeps_a_running_trials_gpus(cluster, tmp_path):
    go = tmp_path / "go"
    exp_id = int(re.search(r"Created experiment (\d+)", submit(cluster, tmp_path, "kept", 2, go).stdout).group(1))
    before = wait_for(lambda: visible_devices(cluster, exp_id), "the trial's devices", 120)
    wait_for(lambda: used_gpus(cluster) == sorted(before), "the master to show the trial's GPUs in use", 60)
    restart_master(cluster)
    cluster.session = login(cluster, "determined")
    after = wait_for(lambda: used_gpus(cluster) or None, "the agent to report back", 120)
    assert after == sorted(before), (before, after)
    go.touch()
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    logs = cluster.trial_logs(cluster.trials(exp_id)[0]["id"])
    assert logs.count("CUDA_VISIBLE_DEVICES=") == 1, "one process, never restarted:\n" + logs


def test_visible_gpus_limit_what_an_agent_offers(cluster, tmp_path):
    env = dict(os.environ, PATH=f"{FAKE_GPU_DIR}:{os.environ['PATH']}", DET_FAKE_GPUS="4", DET_VISIBLE_GPUS="1,3")
    agent = subprocess.Popen([str(BIN / "determined-agent"), "--master-url", cluster.master_url, "--id", "partial",
                              "--work-dir", str(tmp_path / "partial")],
                             stdout=open(tmp_path / "partial.log", "w"), stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
    try:
        agent_json = wait_for(lambda: [a for a in cluster.get("/api/v1/agents")["agents"] if a["id"] == "partial"],
                              "the partial agent", 60)[0]
        assert sorted(s["device"]["uuid"] for s in agent_json["slots"].values()) == [uuid(1), uuid(3)]
        cuda = subprocess.run([str(BIN / "determined-agent"), "--master-url", cluster.master_url, "--id", "none",
                               "--slot-type", "cuda", "--work-dir", str(tmp_path / "none")],
                              capture_output=True, text=True, timeout=30,
                              env={k: v for k, v in env.items() if k != "DET_FAKE_GPUS"} | {"PATH": "/usr/bin:/bin"})
        assert cuda.returncode != 0 and "slot_type cuda: no CUDA GPU found: nvidia-smi is not on PATH" in cuda.stdout + cuda.stderr
        # A pool's slots are of one type: an agent of CPU slots may not join the pool of GPUs.
        cpu = subprocess.run([str(BIN / "determined-agent"), "--master-url", cluster.master_url, "--id", "cpu",
                              "--slot-type", "cpu", "--work-dir", str(tmp_path / "cpu")],
                             capture_output=True, text=True, timeout=60, env=env)
        assert cpu.returncode == 3, cpu.stdout + cpu.stderr
        assert 'agent cpu offers cpu slots but resource pool "default" has cuda slots' in cpu.stdout + cpu.stderr
        assert "cpu" not in [a["id"] for a in cluster.get("/api/v1/agents")["agents"]]
    finally:
        agent.terminate()
        agent.wait(timeout=30)


WORKER = r"""
import os
import torch
import torch.distributed as dist
import determined as det

# No real GPU here: torch cannot use CUDA, so the workers' group is gloo (nccl where torch sees the GPUs).
dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
print("worker", os.environ["LOCAL_RANK"], "of", os.environ["WORLD_SIZE"], "sees", os.environ["CUDA_VISIBLE_DEVICES"],
      "NCCL_DEBUG=" + os.environ.get("NCCL_DEBUG", "<unset>"), "backend", dist.get_backend(), flush=True)
with det.core.init(distributed=det.core.DistributedContext.from_torch_distributed()) as ctx:
    if ctx.distributed.rank == 0:
        ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
"""


def test_torch_distributed_starts_one_worker_per_gpu_with_its_devices_and_nccl_variables(cluster, tmp_path):
    (tmp_path / "worker.py").write_text(WORKER)
    (tmp_path / "dist.yaml").write_text(
        "name: dist\nentrypoint: python3 -m determined.launch.torch_distributed -- python3 worker.py\n"
        "searcher: {name: single, metric: loss}\nresources: {slots_per_trial: 2}\nmax_restarts: 0\n"
        "environment: {environment_variables: [NCCL_DEBUG=INFO]}\n")
    exp_id = cluster.create_experiment(tmp_path / "dist.yaml", tmp_path)
    logs = lambda: cluster.trial_logs(cluster.trials(exp_id)[0]["id"])  # noqa: E731
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", logs()
    workers = re.findall(r"worker (\d) of (\d) sees (\S+) NCCL_DEBUG=(\S+) backend (\w+)", logs())
    assert sorted(w[0] for w in workers) == ["0", "1"], logs()
    devices = {w[2] for w in workers}
    assert len(devices) == 1 and len(devices.pop().split(",")) == 2, workers  # the trial's two GPUs, in order
    assert all(w[1] == "2" and w[3] == "INFO" and w[4] == "gloo" for w in workers), workers


PROFILED = r"""
import time
import determined as det

with det.core.init() as ctx:
    time.sleep(2.5)  # two or three NVML samples, reported when the context closes
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
"""


def test_a_profiled_trial_reports_its_gpus_figures_and_without_nvml_nothing(cluster, tmp_path):
    (tmp_path / "profiled.py").write_text(PROFILED)
    fake_nvml = (BIN.parent / "tests" / "fake-nvml").resolve()
    assert (fake_nvml / "libnvidia-ml.so.1").exists(), "the build makes the fake NVML library"
    config = ("entrypoint: python3 profiled.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 0\n"
              "resources: {slots_per_trial: 2}\nprofiling: {enabled: true}\n")
    (tmp_path / "nvml.yaml").write_text(
        f"name: nvml\n{config}environment: {{environment_variables: [LD_LIBRARY_PATH={fake_nvml}, "
        "DET_FAKE_GPUS=4, DET_FAKE_GPU_UTIL=37]}\n")
    (tmp_path / "no-nvml.yaml").write_text(f"name: no-nvml\n{config}")
    with_nvml = cluster.create_experiment(tmp_path / "nvml.yaml", tmp_path)
    without = cluster.create_experiment(tmp_path / "no-nvml.yaml", tmp_path)
    assert cluster.wait_for_experiment(with_nvml) == "STATE_COMPLETED"
    assert cluster.wait_for_experiment(without) == "STATE_COMPLETED"

    trial = cluster.trials(with_nvml)[0]["id"]
    reports = cluster.metrics(trial, "gpu")
    assert reports, "a gpu group report"
    figures = reports[-1]["metrics"]
    assert list(figures) == ["agent-0"], figures
    per_gpu = figures["agent-0"]
    assert len(per_gpu) == 2 and all(g.startswith("GPU-") for g in per_gpu), per_gpu  # the trial's two GPUs
    assert all(v == {"gpu_util": 37, "gpu_free_memory": 150109880320} for v in per_gpu.values()), per_gpu
    assert cluster.metrics(cluster.trials(without)[0]["id"], "gpu") == []
