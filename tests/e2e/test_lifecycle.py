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
