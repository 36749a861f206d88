"""Pause, activate, kill and cancel through `det` on a real cluster with real trial processes."""
import re
import time

STEPPER = """
import time
import determined as det

info = det.get_cluster_info()
start = 0
with det.core.init() as ctx:
    if info.latest_checkpoint:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            start = int((path / "step").read_text())
        print("resumed at step", start, flush=True)
    print("running from step", start, flush=True)
    for step in range(start, 60):
        time.sleep(0.1)
        if ctx.preempt.should_preempt():
            with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
                (path / "step").write_text(str(step))
            print("stopped at step", step, flush=True)
            break
    else:
        ctx.train.report_training_metrics(steps_completed=60, metrics={"loss": 0.0})
        print("finished", flush=True)
"""


def create(cluster, tmp_path, name):
    (tmp_path / "stepper.py").write_text(STEPPER)
    (tmp_path / "stepper.yaml").write_text(
        f"name: {name}\nentrypoint: python3 stepper.py\nsearcher: {{name: single, metric: loss}}\nmax_restarts: 0\n")
    out = cluster.det("experiment", "create", str(tmp_path / "stepper.yaml"), str(tmp_path))
    return int(re.search(r"Created experiment (\d+)", out.stdout).group(1))


def wait_for(predicate, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def trial_of(cluster, exp_id):
    trials = cluster.get(f"/api/v1/experiments/{exp_id}/trials")["trials"]
    return trials[0] if trials else None


def logs(cluster, trial_id):
    return cluster.det("trial", "logs", str(trial_id)).stdout


def test_pause_checkpoints_and_activate_resumes(cluster, tmp_path):
    exp_id = create(cluster, tmp_path, "pause-me")
    wait_for(lambda: trial_of(cluster, exp_id) and "running from step 0" in logs(cluster, trial_of(cluster, exp_id)["id"]),
             "the trial to start")
    trial_id = trial_of(cluster, exp_id)["id"]
    cluster.det("experiment", "pause", str(exp_id))
    wait_for(lambda: "is paused" in logs(cluster, trial_id), "the trial to pause")
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_PAUSED"
    stopped = int(re.search(r"stopped at step (\d+)", logs(cluster, trial_id)).group(1))
    assert stopped < 59

    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    text = logs(cluster, trial_id)
    assert f"resumed at step {stopped}" in text
    assert "finished" in text
    assert trial_of(cluster, exp_id)["restarts"] == 0


def test_kill_ends_the_experiment_canceled(cluster, tmp_path):
    exp_id = create(cluster, tmp_path, "kill-me")
    wait_for(lambda: trial_of(cluster, exp_id) and "running from step 0" in logs(cluster, trial_of(cluster, exp_id)["id"]),
             "the trial to start")
    cluster.det("experiment", "kill", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_CANCELED"
    trial = trial_of(cluster, exp_id)
    assert trial["state"] == "STATE_CANCELED"
    assert "finished" not in logs(cluster, trial["id"])
    # Finished experiments cannot be paused; the error names the state.
    paused = cluster.det("experiment", "pause", str(exp_id), check=False)
    assert paused.returncode != 0
    assert "STATE_CANCELED" in paused.stderr


def test_cancel_stops_gracefully(cluster, tmp_path):
    exp_id = create(cluster, tmp_path, "cancel-me")
    wait_for(lambda: trial_of(cluster, exp_id) and "running from step 0" in logs(cluster, trial_of(cluster, exp_id)["id"]),
             "the trial to start")
    cluster.det("experiment", "cancel", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_CANCELED"
    assert "stopped at step" in logs(cluster, trial_of(cluster, exp_id)["id"])
