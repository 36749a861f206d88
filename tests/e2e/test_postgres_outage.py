"""PostgreSQL stopped under a running cluster (`det deploy local cluster-up --db postgres`): the master
refuses changes with a 503 that says the database is unreachable (nothing half-written: a refused
experiment does not exist), the trial keeps training and its reports are retried, and when the
server is back the master carries on by itself: every metric arrives once and the trial completes."""
import glob
import json
import subprocess
import time

import pytest

from conftest import local_cluster, wait_for

STEPS = 200

STEPPER = f"""
import time
import determined as det

with det.core.init() as ctx:
    for step in range(1, {STEPS} + 1):
        time.sleep(0.05)
        if step % 20 == 0:
            ctx.train.report_training_metrics(steps_completed=step, metrics={{"loss": 1.0 / step}})
            print("reported step", step, flush=True)
    print("finished", flush=True)
"""


def pg_ctl(postgres_dir, *args):
    """Runs the server's pg_ctl as the postgres user (as det deploy local started it)."""
    pg_ctl_bin = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]
    command = " ".join([pg_ctl_bin, "-D", f"{postgres_dir}/data", *args])
    subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", command], check=True, timeout=60,
                   capture_output=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("pg_outage"), slots=1, db="postgres") as c:
        yield c


def test_a_stopped_database_refuses_changes_loses_nothing_and_recovers(cluster, tmp_path):
    record = json.loads((cluster.data_dir / "cluster.json").read_text())
    postgres_dir = record["postgres_dir"]
    flags = record["master_db_flags"]
    port = flags[flags.index("--db-port") + 1]
    exp_id, trial_id = cluster.run_script(tmp_path, "stepper", STEPPER)
    wait_for(lambda: cluster.metrics(trial_id, "training"), "the first report", timeout=120)

    pg_ctl(postgres_dir, "-m", "fast", "-w", "stop")
    try:
        patched = cluster.session.patch(f"{cluster.master_url}/api/v1/experiments/{exp_id}", json={"notes": "x"},
                                        timeout=30)
        assert patched.status_code == 503, patched.text
        assert "database is unreachable" in patched.json()["error"]["error"]
        refused = cluster.det("experiment", "create", str(tmp_path / "stepper.yaml"), str(tmp_path), check=False)
        assert refused.returncode != 0
        assert "database is unreachable" in refused.stdout + refused.stderr
        health = cluster.session.get(f"{cluster.master_url}/health", timeout=10)
        assert health.status_code == 503 and health.json()["database"] == "down", health.text
        time.sleep(3)  # training goes on; its reports wait for the database
    finally:
        pg_ctl(postgres_dir, "-l", f"{postgres_dir}/postgres.log", "-o",
               f"'-p {port} -k {postgres_dir} -c listen_addresses=127.0.0.1'", "-w", "start")

    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    assert cluster.session.get(f"{cluster.master_url}/health", timeout=10).json()["database"] == "up"
    steps = [m["totalBatches"] for m in cluster.metrics(trial_id, "training")]
    assert steps == list(range(20, STEPS + 1, 20)), "every report arrived, none twice"
    assert cluster.trials(exp_id)[0]["restarts"] == 0
    listed = cluster.get("/api/v1/experiments")
    assert [e["id"] for e in listed["experiments"]] == [exp_id], "the refused experiment left nothing behind"
    assert cluster.create_experiment(tmp_path / "stepper.yaml", tmp_path) > exp_id


def test_a_trial_that_fails_while_the_database_is_down_restarts_once_it_is_back(cluster, tmp_path):
    """The restart's rows (the trial's restarts, its new allocation) wait behind the loop while the
    database is down, and nothing starts a process that could not authenticate: the second run begins
    once the database took them."""
    record = json.loads((cluster.data_dir / "cluster.json").read_text())
    postgres_dir = record["postgres_dir"]
    flags = record["master_db_flags"]
    port = flags[flags.index("--db-port") + 1]
    (tmp_path / "crasher.py").write_text(f"""
import os, pathlib, time
import determined as det

run = os.environ["DET_TRIAL_RUN_ID"]
pathlib.Path("{tmp_path}", "run-" + run).touch()
with det.core.init() as ctx:
    if run == "1":
        ctx.train.report_training_metrics(steps_completed=1, metrics={{"loss": 1.0}})
        while not pathlib.Path("{tmp_path}", "crash").exists():
            time.sleep(0.05)
        os._exit(3)
    ctx.train.report_training_metrics(steps_completed=2, metrics={{"loss": 0.5}})
""")
    (tmp_path / "crasher.yaml").write_text(
        "name: crasher\nentrypoint: python3 crasher.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 1\n")
    exp_id = cluster.create_experiment(tmp_path / "crasher.yaml", tmp_path)
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    wait_for(lambda: cluster.metrics(trial_id, "training"), "the first report", timeout=120)

    pg_ctl(postgres_dir, "-m", "fast", "-w", "stop")
    try:
        (tmp_path / "crash").touch()
        time.sleep(4)
        assert not (tmp_path / "run-2").exists(), "no run starts while the database is down"
    finally:
        pg_ctl(postgres_dir, "-l", f"{postgres_dir}/postgres.log", "-o",
               f"'-p {port} -k {postgres_dir} -c listen_addresses=127.0.0.1'", "-w", "start")

    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    assert (tmp_path / "run-2").exists()
    trial = cluster.trials(exp_id)[0]
    assert trial["restarts"] == 1
    assert [m["totalBatches"] for m in cluster.metrics(trial_id, "training")] == [1, 2]
