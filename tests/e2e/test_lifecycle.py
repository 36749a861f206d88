"""Pause, activate, kill and cancel through `det` on a real cluster with real trial processes."""
import re

from conftest import stepper, wait_for




def start(cluster, tmp_path, name):
    """Creates the stepper experiment and waits for its trial to run; returns (experiment, trial) ids."""
    (tmp_path / "stepper.py").write_text(stepper(60))
    (tmp_path / "stepper.yaml").write_text(
        f"name: {name}\nentrypoint: python3 stepper.py\nsearcher: {{name: single, metric: loss}}\nmax_restarts: 0\n")
    exp_id = cluster.create_experiment(tmp_path / "stepper.yaml", tmp_path)
    trial = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")
    wait_for(lambda: "running from step 0" in cluster.trial_logs(trial["id"]), "the trial to start")
    return exp_id, trial["id"]


def test_pause_checkpoints_and_activate_resumes(cluster, tmp_path):
    exp_id, trial_id = start(cluster, tmp_path, "pause-me")
    cluster.det("experiment", "pause", str(exp_id))
    wait_for(lambda: "is paused" in cluster.trial_logs(trial_id), "the trial to pause")
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_PAUSED"
    stopped = int(re.search(r"stopped at step (\d+)", cluster.trial_logs(trial_id)).group(1))
    assert stopped < 59

    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    text = cluster.trial_logs(trial_id)
    assert f"resumed at step {stopped}" in text
    assert "finished" in text
    assert cluster.trials(exp_id)[0]["restarts"] == 0


def test_kill_ends_the_experiment_canceled(cluster, tmp_path):
    exp_id, trial_id = start(cluster, tmp_path, "kill-me")
    cluster.det("experiment", "kill", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_CANCELED"
    assert cluster.trials(exp_id)[0]["state"] == "STATE_CANCELED"
    assert "finished" not in cluster.trial_logs(trial_id)
    # Finished experiments cannot be paused; the error names the state.
    paused = cluster.det("experiment", "pause", str(exp_id), check=False)
    assert paused.returncode != 0
    assert "STATE_CANCELED" in paused.stderr


def test_cancel_stops_gracefully(cluster, tmp_path):
    exp_id, trial_id = start(cluster, tmp_path, "cancel-me")
    cluster.det("experiment", "cancel", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_CANCELED"
    assert "stopped at step" in cluster.trial_logs(trial_id)


TO_LENGTH = """
import determined as det

info = det.get_cluster_info()
start = 0
with det.core.init() as ctx:
    if info.latest_checkpoint:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            start = int((path / "step").read_text())
    for op in ctx.searcher.operations():
        for step in range(start + 1, op.length + 1):
            ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
        ctx.train.report_validation_metrics(steps_completed=op.length, metrics={"loss": 1.0 / op.length})
        with ctx.checkpoint.store_path({"steps_completed": op.length}) as (path, uuid):
            (path / "step").write_text(str(op.length))
        op.report_completed(1.0 / op.length)
        print(f"trained from step {start} to {op.length}", flush=True)
"""


def test_continue_trains_the_finished_trial_further_from_its_checkpoint(cluster, tmp_path):
    (tmp_path / "to_length.py").write_text(TO_LENGTH)
    (tmp_path / "short.yaml").write_text(
        "name: short\nentrypoint: python3 to_length.py\nmax_restarts: 0\n"
        "searcher: {name: single, metric: loss, max_length: {batches: 3}}\n")
    exp_id = cluster.create_experiment(tmp_path / "short.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    [trial] = cluster.trials(exp_id)

    (tmp_path / "longer.yaml").write_text("searcher:\n  max_length:\n    batches: 5\n")
    out = cluster.det("experiment", "continue", str(exp_id), "--config-file", str(tmp_path / "longer.yaml"),
                      "--config", "searcher.max_length.batches=6").stdout
    assert f"Continued experiment {exp_id}" in out, out
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    assert [t["id"] for t in cluster.trials(exp_id)] == [trial["id"]], "the same trial, no new one"
    logs = cluster.trial_logs(trial["id"])
    assert "trained from step 0 to 3" in logs and "trained from step 3 to 6" in logs, logs
    steps = [m["totalBatches"] for m in cluster.metrics(trial["id"], "training")]
    assert steps == [1, 2, 3, 4, 5, 6], steps
    config = cluster.get(f"/api/v1/experiments/{exp_id}")["config"]
    assert config["searcher"]["max_length"] == {"batches": 6}, config["searcher"]

    # What cannot continue says why.
    live, _ = start(cluster, tmp_path, "still-running")
    running = cluster.det("experiment", "continue", str(live), check=False)
    assert running.returncode != 0 and "only a COMPLETED, CANCELED or ERROR experiment" in running.stderr, running
    cluster.det("experiment", "kill", str(live))
    changed = cluster.det("experiment", "continue", str(exp_id), "--config", "hyperparameters.x=1", check=False)
    assert changed.returncode != 0 and "hyperparameters" in changed.stderr, changed
    missing = cluster.det("experiment", "continue", "999999", check=False)
    assert missing.returncode != 0 and "999999" in missing.stderr, missing
