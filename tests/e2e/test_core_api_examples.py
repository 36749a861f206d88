"""The Core API tutorial examples (examples/core_api) end to end on a real local cluster: each stage's
experiment completes with the metrics, checkpoints and hyperparameters it is meant to show; stage 2
resumes from its checkpoint after a pause."""
import json
import pathlib
import re

from conftest import REPO, wait_for

EXAMPLES = REPO / "examples/core_api"
STEPS = 100  # every example trains 100 steps unless its searcher sets max_time


def run(cluster, name):
    """Creates examples/core_api/NAME.yaml; returns the experiment id."""
    return cluster.create_experiment(EXAMPLES / f"{name}.yaml", EXAMPLES)


def x_by_step(reports):
    """{steps: x} of metric reports."""
    return {m["totalBatches"]: m["metrics"]["x"] for m in reports}


def test_0_start_runs_the_loop_and_reports_nothing(cluster):
    exp_id = run(cluster, "0_start")
    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    [trial] = cluster.trials(exp_id)
    assert trial["state"] == "STATE_COMPLETED"
    logs = cluster.trial_logs(trial["id"])
    assert "step 100: x is now 100" in logs, logs[-2000:]
    assert "done: x=100" in logs
    assert cluster.metrics(trial["id"], "training") == []
    assert cluster.metrics(trial["id"], "validation") == []
    assert cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"] == []


def test_1_metrics_reports_training_and_validation_metrics(cluster):
    exp_id = run(cluster, "1_metrics")
    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    [trial] = cluster.trials(exp_id)
    assert x_by_step(cluster.metrics(trial["id"], "training")) == {s: s for s in range(10, STEPS + 1, 10)}
    assert x_by_step(cluster.metrics(trial["id"], "validation")) == {STEPS: STEPS}
    # The validation carries the searcher metric (searcher.metric: x).
    assert trial["latestValidation"]["metrics"]["avgMetrics"]["x"] == STEPS
    assert trial["searcherMetricValue"] == STEPS
    assert trial["totalBatchesProcessed"] == STEPS


def checkpoints(cluster, exp_id):
    return cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]


def checkpoint_dir(cluster, exp_id, uuid):
    storage = cluster.get(f"/api/v1/experiments/{exp_id}")["config"]["checkpoint_storage"]
    assert storage["type"] == "shared_fs", storage
    return pathlib.Path(storage["host_path"]) / (storage.get("storage_path") or "") / uuid


def test_2_checkpoints_pauses_after_a_checkpoint_and_resumes_from_it(cluster):
    exp_id = run(cluster, "2_checkpoints")
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    wait_for(lambda: checkpoints(cluster, exp_id), "the first checkpoint", timeout=120)
    cluster.det("experiment", "pause", str(exp_id))
    logs = wait_for(lambda: (lambda t: "preempted at step" in t and t)(cluster.trial_logs(trial_id)),
                    "the trial to stop at a checkpoint", timeout=120)
    stopped = int(re.search(r"preempted at step (\d+)", logs).group(1))
    assert stopped < STEPS, "the trial finished before the pause reached it"
    wait_for(lambda: cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_PAUSED",
             "the experiment to be paused")

    # The checkpoint it stopped at: reported with steps_completed, its state on shared_fs.
    latest = checkpoints(cluster, exp_id)[-1]
    assert latest["state"] == "STATE_COMPLETED"
    assert latest["metadata"]["steps_completed"] == stopped, latest
    state = json.loads((checkpoint_dir(cluster, exp_id, latest["uuid"]) / "state.json").read_text())
    assert state == {"x": stopped, "steps_completed": stopped}
    for ckpt in checkpoints(cluster, exp_id):
        assert ckpt["metadata"]["steps_completed"] % 10 == 0, ckpt

    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    logs = cluster.trial_logs(trial_id)
    assert f"resuming from checkpoint {latest['uuid']} at step {stopped} (x={stopped})" in logs, logs[-3000:]
    assert logs.count("starting from step 0") == 1, "the second run started over instead of resuming"
    assert "done: x=100" in logs
    # Each 10 steps reported once: the second run went on from the checkpoint, with x restored.
    steps = [m["totalBatches"] for m in cluster.metrics(trial_id, "training")]
    assert steps == list(range(10, STEPS + 1, 10)), steps
    assert x_by_step(cluster.metrics(trial_id, "training")) == {s: s for s in steps}
    assert x_by_step(cluster.metrics(trial_id, "validation")) == {STEPS: STEPS}
    assert checkpoints(cluster, exp_id)[-1]["metadata"]["steps_completed"] == STEPS
    assert cluster.trials(exp_id)[0]["restarts"] == 0


def assert_trial_used_its_hparams(cluster, trial):
    """Every report of the trial has x = increment_by * steps, with the trial's own increment_by."""
    inc = trial["hparams"]["increment_by"]
    validations = cluster.metrics(trial["id"], "validation")
    assert validations, trial
    for m in validations:
        assert m["metrics"]["x"] == inc * m["totalBatches"], (inc, m)
        assert m["metrics"]["batches"] == m["totalBatches"]
    for m in cluster.metrics(trial["id"], "training"):
        assert m["metrics"]["x"] == inc * m["totalBatches"], (inc, m)
    return validations


def test_3_hpsearch_grid_gives_each_trial_its_own_increment(cluster):
    exp_id = run(cluster, "3_hpsearch")
    assert cluster.wait_for_experiment(exp_id, timeout=600) == "STATE_COMPLETED"
    trials = cluster.trials(exp_id)
    assert sorted(t["hparams"]["increment_by"] for t in trials) == [1, 2, 3]
    for trial in trials:
        assert trial["state"] == "STATE_COMPLETED"
        validations = assert_trial_used_its_hparams(cluster, trial)
        inc = trial["hparams"]["increment_by"]
        assert [m["totalBatches"] for m in validations] == list(range(10, STEPS + 1, 10))
        assert trial["searcherMetricValue"] == inc * STEPS
        assert f"training {STEPS} steps with increment_by={inc}" in cluster.trial_logs(trial["id"])


def test_3_hpsearch_asha_trains_for_the_searchers_max_time(cluster):
    exp_id = run(cluster, "3_hpsearch_asha")
    assert cluster.wait_for_experiment(exp_id, timeout=600) == "STATE_COMPLETED"
    trials = cluster.trials(exp_id)
    assert len(trials) == 3
    max_time = 60
    for trial in trials:
        assert trial["state"] == "STATE_COMPLETED"
        assert 1 <= trial["hparams"]["increment_by"] <= 8
        validations = assert_trial_used_its_hparams(cluster, trial)
        assert max(m["totalBatches"] for m in validations) <= max_time
        logs = cluster.trial_logs(trial["id"])
        assert f"training {max_time} steps" in logs, logs[-2000:]
    # The best trial trained the whole budget.
    assert max(t["totalBatchesProcessed"] for t in trials) == max_time
