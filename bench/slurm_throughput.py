#!/usr/bin/python3
"""Trivial commands through Slurm, end to end, against raw sbatch, in one run on one one-node Slurm 22.05
(scripts/local-slurm.sh, partition cpu with this machine's CPUs):

  1. raw: N `sbatch -p cpu --wrap true` submitted at once; seconds until squeue shows none of them pending or
     running (Slurm's own cost: scheduling, launch, epilog);
  2. det: N commands (`true`) POSTed to a master on the Slurm resource manager (16 client threads); seconds until
     the job queue is empty, every command checked to have exited 0. Each is one sbatch job whose srun step runs
     determined-pod-runner (context download, log shipping, exit status file).

Reports jobs/s of both and the manager's overhead (det seconds per job minus raw seconds per job).

    /usr/bin/python3 bench/slurm_throughput.py [--commands 500]

Anchor (issue 43): raw sbatch completes 2.1 jobs/s on this machine type."""
import argparse
import concurrent.futures
import contextlib
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import requests

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))
SCRIPT = REPO / "scripts" / "local-slurm.sh"
ANCHOR_JOBS_PER_SECOND = 2.1


@contextlib.contextmanager
def local_slurm():
    dir_ = pathlib.Path(tempfile.mkdtemp(prefix="det-bench-slurm-"))
    dir_.chmod(0o755)  # munged wants the directories above its socket searchable by all
    out = subprocess.run(["bash", str(SCRIPT), "start", str(dir_)], capture_output=True, text=True, check=True).stdout
    env = dict(os.environ)
    for line in out.splitlines():
        k, _, v = line.partition("=")
        env[k] = v
    try:
        yield dir_, env
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", str(dir_)], capture_output=True, text=True)
        shutil.rmtree(dir_, ignore_errors=True)


def live_jobs(env, name):
    jobs = json.loads(subprocess.run(["squeue", "--json"], capture_output=True, text=True, env=env,
                                     check=True).stdout)["jobs"]
    return [j for j in jobs if j["name"].startswith(name) and j["job_state"] in
            ("PENDING", "RUNNING", "COMPLETING", "CONFIGURING")]


def raw_sbatch(env, n):
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda i: subprocess.run(["sbatch", "-p", "cpu", "-J", "raw-bench", "-o", "/dev/null",
                                                 "--wrap", "true"], capture_output=True, env=env, check=True),
                      range(n)))
    while live_jobs(env, "raw-bench"):
        time.sleep(0.2)
    return time.monotonic() - start


@contextlib.contextmanager
def slurm_master(root, env):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = root / "master.yaml"
    config.write_text(json.dumps({
        "port": port, "host": "127.0.0.1", "data_dir": str(root / "data"),
        "checkpoint_storage": {"type": "shared_fs", "host_path": str(root / "checkpoints")},
        "resource_manager": {"type": "slurm", "master_host": "127.0.0.1", "job_storage_root": str(root / "jobs"),
                             "partition_overrides": {"cpu": {"slot_type": "cpu"}}}}))
    with open(root / "master.log", "wb") as log:
        master = subprocess.Popen([str(BIN / "determined-master"), "--config-file", str(config)], stdout=log,
                                  stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        session = requests.Session()
        for _ in range(100):
            try:
                token = session.post(f"{url}/api/v1/auth/login", json={"username": "determined", "password": ""},
                                     timeout=5).json()["token"]
                break
            except requests.RequestException:
                time.sleep(0.1)
        session.headers["Authorization"] = f"Bearer {token}"
        yield url, session
    finally:
        os.killpg(master.pid, signal.SIGTERM)
        master.wait(timeout=30)


def det_commands(url, session, n):
    start = time.monotonic()

    def one(_):
        resp = session.post(f"{url}/api/v1/commands", json={"config": {"entrypoint": ["true"]}}, timeout=120)
        resp.raise_for_status()
        return resp.json()["command"]["id"]

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        ids = list(pool.map(one, range(n)))
    while session.get(f"{url}/api/v1/job-queues", params={"limit": 1}, timeout=60).json()["pagination"]["total"]:
        time.sleep(0.2)
    elapsed = time.monotonic() - start
    commands = {c["id"]: c for c in session.get(f"{url}/api/v1/commands", params={"limit": 0}, timeout=300).json()["commands"]}
    failed = [i for i in ids if commands.get(i, {}).get("exitCode") != 0]
    if failed:
        raise SystemExit(f"{len(failed)} of {n} commands did not exit 0, e.g. {commands.get(failed[0])}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=500)
    args = parser.parse_args()
    n = args.commands
    with local_slurm() as (root, env):
        raw = raw_sbatch(env, n)
        with slurm_master(root, env) as (url, session):
            ours = det_commands(url, session, n)
    print(f"machine: {os.cpu_count()} CPUs; Slurm partition cpu runs {os.cpu_count()} one-CPU jobs at a time")
    print(f"raw sbatch --wrap true: {n} jobs in {raw:.1f} s = {n / raw:.2f} jobs/s (anchor {ANCHOR_JOBS_PER_SECOND})")
    print(f"det commands on Slurm:  {n} jobs in {ours:.1f} s = {n / ours:.2f} jobs/s")
    print(f"ratio det/raw: {(n / ours) / (n / raw):.2f}; overhead per job: {(ours - raw) / n * 1000:.0f} ms")


if __name__ == "__main__":
    main()
