"""A local cluster for benchmarks: `det deploy local cluster-up` in a temporary directory, a logged-in
requests session, and `cluster-down` on exit."""
import contextlib
import json
import os
import pathlib
import re
import subprocess
import tempfile
import time
from typing import Iterator, NamedTuple

import requests


class LocalCluster(NamedTuple):
    master: str  # the master's URL
    master_pid: int
    session: requests.Session  # logged in as "determined"
    env: dict  # for `det` subprocesses: DET_MASTER and DET_AUTH_FILE set
    data_dir: pathlib.Path


@contextlib.contextmanager
def local_cluster(det_bin: str, agents: int = 1, slots: int = 1, tmp_root=None) -> Iterator[LocalCluster]:
    with tempfile.TemporaryDirectory(dir=tmp_root) as tmp:
        env = dict(os.environ, DET_AUTH_FILE=os.path.join(tmp, "auth.json"))
        subprocess.run([det_bin, "deploy", "local", "cluster-up", "--agents", str(agents), "--slots", str(slots),
                        "--master-port", "0", "--data-dir", tmp], check=True, env=env, capture_output=True)
        try:
            record = json.loads(pathlib.Path(tmp, "cluster.json").read_text())
            env["DET_MASTER"] = record["master_url"]
            session = requests.Session()
            token = session.post(f"{record['master_url']}/api/v1/auth/login",
                                 json={"username": "determined", "password": ""}).json()["token"]
            session.headers["Authorization"] = f"Bearer {token}"
            yield LocalCluster(record["master_url"], record["master_pid"], session, env, pathlib.Path(tmp))
        finally:
            subprocess.run([det_bin, "deploy", "local", "cluster-down", "--data-dir", tmp], env=env,
                           capture_output=True)


def run_experiment(cluster: LocalCluster, det_bin: str, config: pathlib.Path, model_dir: pathlib.Path,
                   poll_seconds: float = 0.5):
    """`det experiment create CONFIG MODEL_DIR`, then waits for the experiment to end; returns
    (experiment id, its final state, its first trial's id, that trial's logs)."""
    out = subprocess.run([det_bin, "experiment", "create", str(config), str(model_dir)], check=True, env=cluster.env,
                         capture_output=True, text=True).stdout
    exp_id = int(re.search(r"Created experiment (\d+)", out).group(1))
    while (state := cluster.session.get(f"{cluster.master}/api/v1/experiments/{exp_id}").json()["experiment"]["state"]) \
            not in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"):
        time.sleep(poll_seconds)
    trial_id = cluster.session.get(f"{cluster.master}/api/v1/experiments/{exp_id}/trials").json()["trials"][0]["id"]
    logs = subprocess.run([det_bin, "trial", "logs", str(trial_id)], check=True, env=cluster.env,
                          capture_output=True, text=True).stdout
    return exp_id, state, trial_id, logs
