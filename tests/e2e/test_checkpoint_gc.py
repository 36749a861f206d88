"""Checkpoint GC when an experiment ends (reference §9): only what save_experiment_best, save_trial_best and
save_trial_latest keep stays on disk; the rest is DELETED in the API after its files are gone."""
import pathlib

from conftest import wait_for

# Each trial validates and checkpoints at steps 1..4; its loss is lowest at step 2 and the trial with x=2
# is better than the one with x=1.
SCRIPT = """
import determined as det

info = det.get_cluster_info()
x = info.trial.hparams["x"]
with det.core.init() as ctx:
    for step in range(1, 5):
        loss = abs(step - 2) + 1.0 / x
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": loss})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "state").write_text(f"x={x} step={step}")
"""

CONFIG = """
name: gc-{name}
entrypoint: python3 train.py
hyperparameters:
  x: {{type: categorical, vals: [1, 2]}}
searcher: {{name: grid, metric: loss}}
max_restarts: 0
checkpoint_storage:
  save_experiment_best: {best}
  save_trial_best: {trial_best}
  save_trial_latest: {latest}
"""


def run(cluster, tmp_path, name, best, trial_best, latest):
    model_dir = tmp_path / name
    model_dir.mkdir()
    (model_dir / "train.py").write_text(SCRIPT)
    (model_dir / "gc.yaml").write_text(CONFIG.format(name=name, best=best, trial_best=trial_best, latest=latest))
    exp_id = cluster.create_experiment(model_dir / "gc.yaml", model_dir)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    return exp_id


def checkpoints(cluster, exp_id):
    """{uuid: (trial hparam x, steps_completed, state)} from the API."""
    listed = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    trials = {t["id"]: t["hparams"]["x"] for t in cluster.trials(exp_id)}
    return {c["uuid"]: (trials[c["training"]["trialId"]], c["metadata"]["steps_completed"], c["state"])
            for c in listed}


def on_disk(cluster):
    return {p.name for p in pathlib.Path(cluster.data_dir, "checkpoints").iterdir()}


def wait_for_gc(cluster, exp_id, deleted):
    return wait_for(lambda: (lambda c: c if sum(s == "STATE_DELETED" for _, _, s in c.values()) == deleted else None)(
        checkpoints(cluster, exp_id)), f"{deleted} deleted checkpoints of experiment {exp_id}")


def test_the_policy_keeps_each_trials_best_and_latest_and_the_experiments_best(cluster, tmp_path):
    exp_id = run(cluster, tmp_path, "policy", best=1, trial_best=1, latest=1)
    # Kept: each trial's best (step 2) and latest (step 4); the experiment's best (x=2, step 2) is among them.
    listed = wait_for_gc(cluster, exp_id, deleted=4)
    kept = {(x, step) for x, step, state in listed.values() if state == "STATE_COMPLETED"}
    assert kept == {(1, 2), (1, 4), (2, 2), (2, 4)}, listed
    disk = on_disk(cluster)
    for uuid, (_, _, state) in listed.items():
        assert (uuid in disk) == (state == "STATE_COMPLETED"), (uuid, state, disk)
    # The experiment's totals count what is left.
    experiment = cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]
    assert experiment["checkpointCount"] == 4, experiment


def test_experiment_best_alone_keeps_one_checkpoint(cluster, tmp_path):
    exp_id = run(cluster, tmp_path, "best-only", best=1, trial_best=0, latest=0)
    listed = wait_for_gc(cluster, exp_id, deleted=7)
    kept = [(x, step) for x, step, state in listed.values() if state == "STATE_COMPLETED"]
    assert kept == [(2, 2)], listed
    uuid = next(u for u, (_, _, s) in listed.items() if s == "STATE_COMPLETED")
    assert set(listed) & on_disk(cluster) == {uuid}
    # A deleted checkpoint cannot be downloaded; the kept one can.
    deleted = next(u for u, (_, _, s) in listed.items() if s == "STATE_DELETED")
    refused = cluster.det("checkpoint", "download", deleted, "-o", str(tmp_path / "gone"), check=False)
    assert refused.returncode != 0 and "deleted" in (refused.stdout + refused.stderr).lower(), refused
    cluster.det("checkpoint", "download", uuid, "-o", str(tmp_path / "kept"))
    assert (tmp_path / "kept" / "state").read_text() == "x=2 step=2"


def test_zeroes_delete_every_checkpoint(cluster, tmp_path):
    exp_id = run(cluster, tmp_path, "none", best=0, trial_best=0, latest=0)
    listed = wait_for_gc(cluster, exp_id, deleted=8)
    assert not set(listed) & on_disk(cluster)
