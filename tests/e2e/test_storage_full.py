"""The master's disk fills up under a running trial: the master refuses changes with a clear 503
(nothing half-written: a refused experiment does not exist), the trial keeps training and its reports
are retried, and once space is freed the master goes on: every metric arrives and the trial completes.

The database lives on a 64 MiB tmpfs mounted in a mount namespace of the master's own (unshare -rm),
which the test fills through /proc/PID/root: a real ENOSPC, no fault injection."""
import errno
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import time

import pytest

from conftest import BIN, Cluster, wait_for

STEPS = 200

STEPPER = f"""
import time
import determined as det

with det.core.init() as ctx:
    print("running", flush=True)
    for step in range(1, {STEPS} + 1):
        time.sleep(0.05)
        if step % 20 == 0:
            ctx.train.report_training_metrics(steps_completed=step, metrics={{"loss": 1.0 / step}})
            print("reported step", step, flush=True)
    ctx.train.report_validation_metrics(steps_completed={STEPS}, metrics={{"loss": 0.5}})
    print("finished", flush=True)
"""


# Reports once, then ends while the disk is full: the master must save its end once there is room.
SHORT = """
import time
import determined as det

with det.core.init() as ctx:
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
    ctx.train.report_validation_metrics(steps_completed=1, metrics={"loss": 1.0})
    print("reported", flush=True)
    time.sleep(4)
    print("done", flush=True)
"""


def namespaces_work():
    return shutil.which("unshare") and subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs none /mnt"], capture_output=True).returncode == 0


pytestmark = pytest.mark.skipif(not namespaces_work(), reason="unprivileged mount namespaces (unshare -rm) are "
                                "unavailable here, so no private tmpfs can be filled")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    data = tmp_path_factory.mktemp("storage_full")
    db_dir = data / "db"
    db_dir.mkdir()
    port_file = data / "port"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
    script = 'mount -t tmpfs -o size=64m tmpfs "$1" && exec "$2" --data-dir "$3" --db-path "$1/determined.db" ' \
             '--port 0 --port-file "$4"'
    master = subprocess.Popen(["unshare", "-rm", "sh", "-c", script, "sh", str(db_dir), str(BIN / "determined-master"),
                               str(data), str(port_file)],
                              stdout=open(data / "master.log", "w"), stderr=subprocess.STDOUT, env=env,
                              start_new_session=True)
    agent = None
    try:
        port = wait_for(lambda: port_file.exists() and port_file.read_text().strip(), "the master's port", timeout=30)
        url = f"http://127.0.0.1:{port}"
        (data / "cluster.json").write_text(json.dumps({"master_url": url}))
        agent = subprocess.Popen([str(BIN / "determined-agent"), "--master-url", url, "--id", "agent-0", "--slots", "1",
                                  "--work-dir", str(data / "agent-work")],
                                 stdout=open(data / "agent.log", "w"), stderr=subprocess.STDOUT, env=env,
                                 start_new_session=True)
        cluster = Cluster(data, data / "auth.json")
        wait_for(lambda: cluster.get("/api/v1/agents")["agents"], "the agent to register")
        # The tmpfs as the master sees it.
        yield cluster, pathlib.Path(f"/proc/{master.pid}/root{db_dir}"), data / "agent.log"
    finally:
        for p in (agent, master):
            if p is not None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()


def fill(directory):
    """Writes `directory`/filler until the file system has no room left."""
    with open(directory / "filler", "wb", buffering=0) as f:
        for chunk in (1 << 20, 4096):
            try:
                while True:
                    f.write(b"\0" * chunk)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e


def test_a_full_disk_refuses_changes_loses_nothing_and_recovers(setup, tmp_path):
    cluster, db_dir, _ = setup
    exp_id, trial_id = cluster.run_script(tmp_path, "stepper", STEPPER)
    wait_for(lambda: cluster.metrics(trial_id, "training"), "the first report", timeout=120)

    fill(db_dir)
    refused = cluster.det("experiment", "create", str(tmp_path / "stepper.yaml"), str(tmp_path), check=False)
    assert refused.returncode != 0
    message = refused.stdout + refused.stderr
    assert "cannot write its database" in message and "full" in message, message
    patched = cluster.session.patch(f"{cluster.master_url}/api/v1/experiments/{exp_id}", json={"notes": "x"},
                                    timeout=30)
    assert patched.status_code == 503, patched.text
    assert "cannot write its database" in patched.json()["error"]["error"]
    listed = cluster.get("/api/v1/experiments")
    assert [e["id"] for e in listed["experiments"]] == [exp_id], "the refused experiment left nothing behind"
    time.sleep(3)  # training goes on; its reports wait for the master
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_RUNNING"

    (db_dir / "filler").unlink()
    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    steps = [m["totalBatches"] for m in cluster.metrics(trial_id, "training")]
    assert steps == list(range(20, STEPS + 1, 20)), "every report arrived, none twice"
    assert cluster.trials(exp_id)[0]["restarts"] == 0
    assert "can be written again" in (cluster.data_dir / "master.log").read_text()
    again = cluster.create_experiment(tmp_path / "stepper.yaml", tmp_path)
    assert again > exp_id


def stored_states(db_dir, exp_id, scratch):
    """The experiment's, its trials' and their allocations' states as saved in the database (read from a
    copy: the full tmpfs has no room for a reader's files)."""
    scratch.mkdir(exist_ok=True)
    for name in ("determined.db", "determined.db-wal"):
        shutil.copyfile(db_dir / name, scratch / name)
    db = sqlite3.connect(scratch / "determined.db")
    try:
        exp = db.execute("SELECT state FROM experiments WHERE id = ?", (exp_id,)).fetchone()[0]
        trials = [r[0] for r in db.execute("SELECT state FROM trials WHERE experiment_id = ?", (exp_id,))]
        allocations = [r[0] for r in db.execute(
            "SELECT a.state FROM allocations a JOIN trials t ON a.task_id = t.task_id WHERE t.experiment_id = ?",
            (exp_id,))]
        return exp, trials, allocations
    finally:
        db.close()


def test_what_happens_during_the_outage_is_saved_after_it(setup, tmp_path):
    cluster, db_dir, agent_log = setup
    exp_id, trial_id = cluster.run_script(tmp_path, "short", SHORT)
    wait_for(lambda: cluster.metrics(trial_id, "validation"), "the reports", timeout=120)

    allocation = cluster.get(f"/api/v1/experiments/{exp_id}/trials")["trials"][0]["taskId"]
    fill(db_dir)
    wait_for(lambda: f"{allocation}.1: exited with code 0" in agent_log.read_text(), "the trial to end", timeout=60)
    wait_for(lambda: f"trial {trial_id}: not saved" in (cluster.data_dir / "master.log").read_text(),
             "the master to keep the trial's end for later", timeout=30)
    scratch = tmp_path / "copy"
    assert stored_states(db_dir, exp_id, scratch)[0] == "ACTIVE", "the disk was full: the end is not saved yet"

    (db_dir / "filler").unlink()
    assert cluster.wait_for_experiment(exp_id, timeout=60) == "STATE_COMPLETED"
    wait_for(lambda: stored_states(db_dir, exp_id, scratch) == ("COMPLETED", ["COMPLETED"], ["TERMINATED"]),
             "the database to catch up with the master", timeout=30)
