"""The digits MLP as a PyTorchTrial (examples/digits_trial) on a real cluster: the legacy entrypoint
`model_def:DigitsTrial` runs in the harness with the Trainer; const, adaptive ASHA and 2-slot
distributed configs complete; a paused trial resumes without repeating a batch; a checkpoint loads
with `load_trial_from_checkpoint_path` and predicts; `det experiment create --local --test` checks one
batch of it without a master."""
import os
import re
import sys

import pytest

from conftest import REPO, det, wait_for

EXAMPLE = REPO / "examples/digits_trial"
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(EXAMPLE))


def validations(cluster, trial_id):
    return [(m["totalBatches"], m["metrics"]) for m in cluster.metrics(trial_id, "validation")]


def test_const_trains_validates_checkpoints_and_the_checkpoint_predicts(cluster, tmp_path):
    exp_id = cluster.create_experiment(EXAMPLE / "const.yaml", EXAMPLE, "--config", "reproducibility.experiment_seed=7")
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    trial = cluster.trials(exp_id)[0]
    reports = validations(cluster, trial["id"])
    assert [batches for batches, _ in reports] == [45, 90, 135, 180, 225]
    assert reports[-1][1]["accuracy"] >= 0.85, reports[-1]
    assert trial["totalBatchesProcessed"] == 225
    training = [m["totalBatches"] for m in cluster.metrics(trial["id"], "training")]
    assert training and training == sorted(set(training)) and training[-1] == 225

    latest = cluster.get(f"/api/v1/trials/{trial['id']}/checkpoints",
                         params={"sortByAttr": "SORT_BY_BATCH_NUMBER", "orderBy": "ORDER_BY_DESC"})["checkpoints"][0]
    assert latest["metadata"]["steps_completed"] == 225
    cluster.det("checkpoint", "download", latest["uuid"], "-o", str(tmp_path / "ckpt"))
    assert (tmp_path / "ckpt" / "state_dict.pth").exists()

    import torch
    import model_def
    from determined import pytorch

    trial_object = pytorch.load_trial_from_checkpoint_path(str(tmp_path / "ckpt"))
    assert isinstance(trial_object, model_def.DigitsTrial)
    _, _, x_val, y_val = model_def.load_data()
    trial_object.model.eval()
    with torch.no_grad():
        accuracy = (trial_object.model(x_val).argmax(dim=1) == y_val).float().mean().item()
    # The reported accuracy is the mean of the batches' (the last batch is smaller): close, not equal.
    assert accuracy == pytest.approx(reports[-1][1]["accuracy"], abs=0.01)


def test_pause_then_activate_resumes_without_repeating_batches(cluster):
    exp_id = cluster.create_experiment(EXAMPLE / "const.yaml", EXAMPLE, "--config", "searcher.max_length.batches=900",
                                       "--config", "min_checkpoint_period.batches=15",
                                       "--config", "min_validation_period.batches=15")
    trial = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")
    wait_for(lambda: cluster.get(f"/api/v1/trials/{trial['id']}/checkpoints")["checkpoints"], "a checkpoint")
    cluster.det("experiment", "pause", str(exp_id))
    text = wait_for(lambda: (lambda t: "is paused" in t and t)(cluster.trial_logs(trial["id"])), "the pause")
    stopped = int(re.search(r"preempted after batch (\d+)", text).group(1))
    assert stopped < 900

    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    assert "restoring trial from checkpoint" in cluster.trial_logs(trial["id"])
    batches = [b for b, _ in validations(cluster, trial["id"])]
    assert batches == sorted(set(batches)) and batches[-1] == 900, batches  # strictly increasing, none twice
    training = [m["totalBatches"] for m in cluster.metrics(trial["id"], "training")]
    assert training == sorted(set(training)), training
    assert cluster.trials(exp_id)[0]["restarts"] == 0


def test_adaptive_asha_stops_some_trials_early_and_completes(cluster):
    exp_id = cluster.create_experiment(EXAMPLE / "adaptive.yaml", EXAMPLE)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    trials = cluster.trials(exp_id)
    assert len(trials) == 8
    lengths = sorted(t["totalBatchesProcessed"] for t in trials)
    assert lengths[-1] == 400 and lengths[0] < 400, lengths
    assert all(t["state"] == "STATE_COMPLETED" for t in trials), [t["state"] for t in trials]


def test_distributed_trains_on_two_slots_and_the_chief_reports(cluster):
    exp_id = cluster.create_experiment(EXAMPLE / "distributed.yaml", EXAMPLE)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    trial = cluster.trials(exp_id)[0]
    logs = cluster.trial_logs(trial["id"])
    assert "[rank=0]" in logs and "[rank=1]" in logs, logs[-2000:]  # one harness per slot
    assert [b for b, _ in validations(cluster, trial["id"])] == [45, 90, 135], "one report per validation, the chief's"
    assert len(cluster.get(f"/api/v1/trials/{trial['id']}/checkpoints")["checkpoints"]) >= 1


def test_local_test_mode_checks_one_batch_without_a_master(tmp_path):
    # No DET_MASTER, no login: the trial runs in a local Python process.
    env = {"DET_MASTER": "http://127.0.0.1:1", "XDG_DATA_HOME": str(tmp_path / "xdg"),
           "PATH": f"/usr/bin:{os.environ['PATH']}"}
    ok = det("experiment", "create", "--local", "--test", str(EXAMPLE / "const.yaml"), str(EXAMPLE),
             "--config", "hyperparameters.hidden_size=24", env=env, timeout=300)
    assert "'hidden_size': 24" in ok.stderr, ok.stderr
    assert re.search(r"report_validation_metrics\(steps_completed=1, metrics=\{.*'accuracy'", ok.stderr), ok.stderr
    assert "its code runs" in ok.stderr
    assert not (tmp_path / "xdg").exists(), "the test's checkpoint is not kept"

    (tmp_path / "model_def.py").write_text((EXAMPLE / "model_def.py").read_text().replace(
        "def train_batch(self", "def train_batch(self, *args, **kwargs):\n        raise ValueError('bad shapes')\n\n    def _unused(self"))
    failed = det("e", "create", "--local", "--test", str(EXAMPLE / "const.yaml"), str(tmp_path), env=env,
                 check=False, timeout=300)
    assert failed.returncode == 1 and "ValueError: bad shapes" in failed.stderr, failed.stderr

    training = det("e", "create", "--local", str(EXAMPLE / "const.yaml"), str(EXAMPLE), env=env, check=False)
    assert training.returncode != 0 and "--local without --test is not supported" in training.stderr, training.stderr
    script = tmp_path / "script.yaml"
    script.write_text("entrypoint: python3 train.py\nsearcher: {name: single, metric: loss, max_length: 1}\n")
    refused = det("e", "create", "--local", "--test", str(script), str(tmp_path), env=env, check=False)
    assert refused.returncode != 0 and "Trial classes only" in refused.stderr, refused.stderr
