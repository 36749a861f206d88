"""scripts/local-slurm.sh against the real Slurm 22.05 clients (sinfo, sbatch, squeue, scontrol, scancel, srun).

The module's Slurm runs in a temp dir (scripts/local-slurm.sh start/stop). What the clients print is kept as the
C++ Slurm client's fixtures: with DET_SLURM_CAPTURE=DIR set, the outputs are written to DIR (tests/slurm/testdata
holds the committed ones; see its README); otherwise to the temp dir, where they are only read by these tests.

Skipped (ctest "Skipped") where Slurm or munge is not installed.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(os.environ.get("DET_REPO_ROOT", Path(__file__).resolve().parents[2]))
SCRIPT = REPO / "scripts" / "local-slurm.sh"

for tool in ("slurmctld", "slurmd", "munged", "sbatch", "squeue", "sinfo", "scancel", "scontrol", "srun"):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (scripts/install-deps.sh installs slurm and munge)",
                    allow_module_level=True)


def start(dir_):
    t0 = time.monotonic()
    r = subprocess.run(["bash", str(SCRIPT), "start", str(dir_)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"start failed:\n{r.stdout}\n{r.stderr}"
    env = dict(os.environ)
    for line in r.stdout.splitlines():
        k, _, v = line.partition("=")
        env[k] = v
    assert env["SLURM_CONF"] == str(dir_ / "slurm.conf")
    print(f"start: {time.monotonic() - t0:.1f}s; {r.stderr.strip()}")
    return env


def stop(dir_):
    t0 = time.monotonic()
    r = subprocess.run(["bash", str(SCRIPT), "stop", str(dir_)], capture_output=True, text=True, timeout=120)
    print(f"stop: {time.monotonic() - t0:.1f}s; {r.stderr.strip()}")
    assert r.returncode == 0, f"stop failed:\n{r.stdout}\n{r.stderr}"


def processes_of(dir_):
    """Every live process whose command line or environment names dir_ (daemons, slurmstepd, jobs)."""
    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == os.getpid():
            continue
        try:
            cmd = (p / "cmdline").read_bytes()
            environ = (p / "environ").read_bytes()
            stat = (p / "stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            continue
        if (str(dir_).encode() in cmd
                or f"SLURM_CONF={dir_}/slurm.conf".encode() in environ.split(b"\0")
                and (b"slurmstepd" in cmd or b"SLURM_JOB_ID=" in environ)):
            found.append(p.name + " " + cmd.replace(b"\0", b" ").decode(errors="replace"))
    return found


@pytest.fixture(scope="module")
def slurm():
    dir_ = Path(tempfile.mkdtemp(prefix="local-slurm-"))
    try:
        env = start(dir_)
        capture = Path(os.environ.get("DET_SLURM_CAPTURE", dir_ / "capture"))
        capture.mkdir(parents=True, exist_ok=True)
        yield {"dir": dir_, "env": env, "capture": capture}
    finally:
        stop(dir_)
        left = processes_of(dir_)
        shutil.rmtree(dir_, ignore_errors=True)
        assert not left, f"left running after stop: {left}"


def run(s, *args, check=True, timeout=60):
    r = subprocess.run(list(args), env=s["env"], cwd=s["dir"], capture_output=True, text=True, timeout=timeout)
    if check:
        assert r.returncode == 0, f"{args}: rc={r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


def save(s, name, text):
    (s["capture"] / name).write_text(text)


def sbatch(s, *args):
    return run(s, "sbatch", "--parsable", f"--output={s['dir']}/job-%j.out", *args).stdout.strip().split(";")[0]


def squeue_jobs(s, *job_ids):
    return json.loads(run(s, "squeue", "--json", "-j", ",".join(job_ids)).stdout)["jobs"]


def wait_state(s, job_id, states, timeout=30):
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        jobs = [j for j in squeue_jobs(s, job_id) if str(j["job_id"]) == job_id]
        state = jobs[0]["job_state"] if jobs else None
        if state in states:
            return jobs[0]
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} is {state}, not in {states}, after {timeout}s")


def wait_done(s, job_id, timeout=30):
    """Waits for the job to end and returns its output. squeue --json keeps listing ended jobs (for MinJobAge)."""
    job = wait_state(s, job_id, {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"},
                     timeout)
    out = s["dir"] / f"job-{job_id}.out"
    return job, out.read_text() if out.exists() else ""


def test_sinfo_json_shows_both_partitions_and_the_fake_gpus(slurm):
    r = run(slurm, "sinfo", "--json")
    save(slurm, "sinfo.json", r.stdout)
    doc = json.loads(r.stdout)
    nodes = doc["nodes"]
    assert len(nodes) == 1
    node = nodes[0]
    print("sinfo --json top-level keys:", sorted(doc))
    print("node keys:", sorted(node))
    assert node["name"] == os.uname().nodename.split(".")[0]
    assert node["gres"] == "gpu:4"
    assert sorted(node["partitions"]) == ["cpu", "gpu"]
    assert node["cpus"] == os.cpu_count()
    save(slurm, "sinfo.txt", run(slurm, "sinfo").stdout)
    save(slurm, "scontrol_show_partition.txt", run(slurm, "scontrol", "show", "partition", "-o").stdout)
    save(slurm, "scontrol_show_node.txt", run(slurm, "scontrol", "show", "node", "-o").stdout)


def test_sbatch_on_cpu_runs_and_writes_its_output(slurm):
    job_id = sbatch(slurm, "-p", "cpu", "--wrap", "echo hi")
    assert job_id.isdigit()
    job, out = wait_done(slurm, job_id)
    assert job["job_state"] == "COMPLETED", job
    assert out.strip() == "hi"
    save(slurm, "squeue_completed.json", run(slurm, "squeue", "--json", "-j", job_id).stdout)
    save(slurm, "scontrol_show_job_completed.txt", run(slurm, "scontrol", "show", "job", "-o", job_id).stdout)


@pytest.mark.parametrize("request_args", [["--gres=gpu:2"], ["--gpus-per-node=2"]])
def test_gpu_jobs_see_their_fake_gpus(slurm, request_args):
    job_id = sbatch(slurm, "-p", "gpu", *request_args, "--wrap",
                    "echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; echo SLURM_JOB_GPUS=$SLURM_JOB_GPUS;"
                    " echo SLURM_GPUS_ON_NODE=$SLURM_GPUS_ON_NODE")
    job, out = wait_done(slurm, job_id)
    print(request_args, "->", out.strip().replace("\n", "  "))
    assert job["job_state"] == "COMPLETED", job
    seen = dict(line.split("=", 1) for line in out.split())
    assert len(seen["CUDA_VISIBLE_DEVICES"].split(",")) == 2, seen
    assert len(seen["SLURM_JOB_GPUS"].split(",")) == 2, seen
    assert seen["SLURM_GPUS_ON_NODE"] == "2"


def test_squeue_json_shows_a_running_gpu_jobs_gpu_indices(slurm):
    job_id = sbatch(slurm, "-p", "gpu", "--gpus-per-node=2", "--job-name=det-gpu", "--wrap", "sleep 300")
    try:
        job = wait_state(slurm, job_id, {"RUNNING"})
        save(slurm, "squeue_running_gpu.json", run(slurm, "squeue", "--json").stdout)
        save(slurm, "scontrol_show_job_running_gpu.txt",
             run(slurm, "scontrol", "show", "job", "-d", "-o", job_id).stdout)
        print("gres_detail", job["gres_detail"], "tres_per_node", job["tres_per_node"])
        assert job["gres_detail"] == ["gpu:2(IDX:0-1)"], job["gres_detail"]
    finally:
        run(slurm, "scancel", job_id)
        wait_state(slurm, job_id, {"CANCELLED", "COMPLETED", "FAILED"})


@pytest.mark.parametrize("name,request_args", [
    ("gres", ["-p", "gpu", "--gres=gpu:8"]),
    ("gpus_per_node", ["-p", "gpu", "--gpus-per-node=8"]),
    ("partition", ["-p", "nosuchpartition"]),
    ("option", ["--nosuchoption"]),
])
def test_sbatch_refuses_what_cannot_run(slurm, name, request_args):
    r = run(slurm, "sbatch", "--parsable", *request_args, "--wrap", "true", check=False)
    print(name, "rc", r.returncode, repr(r.stderr))
    save(slurm, f"sbatch_error_{name}.txt", r.stderr)
    assert r.returncode != 0
    if name in ("gres", "gpus_per_node"):
        assert r.stderr.strip() == ("sbatch: error: Batch job submission failed: "
                                    "Requested node configuration is not available")


def test_squeue_shows_running_and_pending_then_scancel_removes(slurm):
    ncpu = str(os.cpu_count())
    running = sbatch(slurm, "-p", "cpu", "-c", ncpu, "--job-name=det-running", "--wrap", "sleep 300")
    wait_state(slurm, running, {"RUNNING"})
    pending = sbatch(slurm, "-p", "cpu", "-c", ncpu, "--job-name=det-pending", "--wrap", "sleep 300")
    deadline = time.monotonic() + 20
    while True:
        jobs = {str(j["job_id"]): j for j in squeue_jobs(slurm, running, pending)}
        if jobs[pending]["state_reason"] not in ("None", ""):
            break
        assert time.monotonic() < deadline, jobs[pending]
        time.sleep(0.2)
    r = run(slurm, "squeue", "--json", "-j", f"{running},{pending}")
    save(slurm, "squeue_running_pending.json", r.stdout)
    save(slurm, "squeue.txt", run(slurm, "squeue").stdout)
    save(slurm, "scontrol_show_job_running.txt", run(slurm, "scontrol", "show", "job", "-o", running).stdout)
    save(slurm, "scontrol_show_job_pending.txt", run(slurm, "scontrol", "show", "job", "-o", pending).stdout)
    print("squeue --json job keys:", sorted(jobs[running]))
    assert jobs[running]["job_state"] == "RUNNING"
    assert jobs[running]["name"] == "det-running"
    assert jobs[pending]["job_state"] == "PENDING"
    # The main scheduler says Priority first, the backfill scheduler Resources.
    assert jobs[pending]["state_reason"] in ("Resources", "Priority"), jobs[pending]["state_reason"]
    assert jobs[pending]["partition"] == "cpu"

    # Kill as the resource manager will: TERM to every step (the batch shell too), then scancel.
    run(slurm, "scancel", "--signal=TERM", "--full", running)
    run(slurm, "scancel", pending)
    run(slurm, "scancel", running)
    for job_id in (running, pending):
        job = wait_state(slurm, job_id, {"CANCELLED", "COMPLETED", "FAILED"})
        print(job_id, job["job_state"], job["state_reason"])
    save(slurm, "squeue_cancelled.json", run(slurm, "squeue", "--json", "-j", f"{running},{pending}").stdout)
    # The plain squeue (pending/running/completing only) no longer lists them.
    deadline = time.monotonic() + 20
    while True:
        listed = run(slurm, "squeue", "-h", "-o", "%i", "-j", f"{running},{pending}", check=False).stdout.split()
        if not listed:
            break
        assert time.monotonic() < deadline, listed
        time.sleep(0.2)


def test_srun_in_sbatch_gives_each_task_its_rank(slurm):
    script = slurm["dir"] / "two_tasks.sh"
    script.write_text("#!/bin/bash\nsrun bash -c 'echo PROCID=$SLURM_PROCID NODELIST=$SLURM_NODELIST'\n")
    job_id = sbatch(slurm, "-p", "cpu", "--ntasks=2", str(script))
    job, out = wait_done(slurm, job_id)
    print(out)
    assert job["job_state"] == "COMPLETED", (job, out)
    assert sorted(line.split()[0] for line in out.splitlines() if line.startswith("PROCID=")) == \
        ["PROCID=0", "PROCID=1"]


def test_start_refuses_a_second_start_and_stop_leaves_nothing(tmp_path):
    dir_ = Path(tempfile.mkdtemp(prefix="local-slurm-2-"))
    try:
        env = start(dir_)
        again = subprocess.run(["bash", str(SCRIPT), "start", str(dir_)], capture_output=True, text=True,
                               timeout=60)
        assert again.returncode != 0
        assert "already running" in again.stderr
        env_again = subprocess.run(["bash", str(SCRIPT), "env", str(dir_)], capture_output=True, text=True,
                                   check=True).stdout
        assert env_again.strip() == f"SLURM_CONF={dir_}/slurm.conf"
        # A job still running at stop is killed with the daemons.
        subprocess.run(["sbatch", "--parsable", "-p", "cpu", "-o", "/dev/null", "--wrap", "sleep 300"], env=env,
                       check=True, capture_output=True)
        deadline = time.monotonic() + 20
        while not any("sleep 300" in p for p in processes_of(dir_)):
            assert time.monotonic() < deadline, "the sleep job never started"
            time.sleep(0.2)
    finally:
        stop(dir_)
        left = processes_of(dir_)
        shutil.rmtree(dir_, ignore_errors=True)
    assert not left, f"left running after stop: {left}"
