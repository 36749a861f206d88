"""The digits example through pause/activate and a SIGKILLed trial process: training resumes from the
latest checkpoint, without repeating finished batches, and the experiment completes."""
import os
import re
import signal

from conftest import REPO, wait_for

DIGITS = REPO / "examples/digits"
# 8 epochs of 45 batches, validating and checkpointing every 15 batches: 24 checkpoints in ~10 s.
LONGER = ("--config", "hyperparameters.epochs=8", "--config", "data.validation_period_batches=15")


def create(cluster, *extra):
    return cluster.create_experiment(DIGITS / "const.yaml", DIGITS, *LONGER, *extra)


def first_trial(cluster, exp_id):
    return wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")


def validation_batches(cluster, trial_id):
    return [m["totalBatches"] for m in cluster.metrics(trial_id, "validation")]


def test_pause_then_activate_resumes_without_repeating_batches(cluster):
    exp_id = create(cluster)
    trial = first_trial(cluster, exp_id)
    # Paused while the process still imports: training takes well under a second on a fast machine, and
    # the first should_preempt() (at batch 15) waits for the master's answer.
    wait_for(lambda: "Process started" in cluster.trial_logs(trial["id"]), "the trial's process")
    cluster.det("experiment", "pause", str(exp_id))
    text = wait_for(lambda: (lambda t: "is paused" in t and t)(cluster.trial_logs(trial["id"])), "the pause")
    stopped = int(re.search(r"preemption requested; stopping at batch (\d+)", text).group(1))
    assert stopped < 360

    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    text = cluster.trial_logs(trial["id"])
    assert re.search(rf"resumed from checkpoint \S+ at step {stopped}\b", text), text[-3000:]
    batches = validation_batches(cluster, trial["id"])
    assert batches == sorted(set(batches)), batches  # no batch was trained (and reported) twice
    assert batches[-1] == 360
    assert cluster.trials(exp_id)[0]["restarts"] == 0


def test_killed_trial_process_restarts_from_its_checkpoint(cluster):
    exp_id = create(cluster, "--config", "max_restarts=1")
    trial = first_trial(cluster, exp_id)
    text = wait_for(lambda: (lambda t: re.search(r"saved checkpoint \S+ at batch 45\b", t) and t)(
        cluster.trial_logs(trial["id"])), "batch 45")
    pid = int(re.search(r"Process started on agent \S+ \(pid (\d+)\)", text).group(1))
    os.killpg(pid, signal.SIGKILL)  # the whole process group: the trial crashes without a word

    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    after = cluster.trials(exp_id)[0]
    assert after["restarts"] == 1
    text = cluster.trial_logs(trial["id"])
    assert re.search(r"resumed from checkpoint \S+ at step \d+", text), text[-3000:]
    assert validation_batches(cluster, trial["id"])[-1] == 360
