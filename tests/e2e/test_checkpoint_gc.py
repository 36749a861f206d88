"""Checkpoint GC when an experiment ends (reference §9): only what save_experiment_best, save_trial_best and
save_trial_latest keep stays on disk; the rest is DELETED in the API after its files are gone."""
import pathlib
import sys

from conftest import REPO, stepper, wait_for

sys.path.insert(0, str(REPO / "python"))

from determined.experimental import client  # noqa: E402

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
    # Ordered by the searcher metric (loss: smaller first), each with its validation; the best completed
    # one is what the SDK's top_checkpoint() asks for.
    path = f"/api/v1/experiments/{exp_id}/checkpoints"
    best = cluster.get(path, params={"sortByAttr": "SORT_BY_SEARCHER_METRIC", "states": "STATE_COMPLETED",
                                     "limit": 1})
    assert best["pagination"]["total"] == 4 and len(best["checkpoints"]) == 1, best
    top = best["checkpoints"][0]
    assert listed[top["uuid"]] == (2, 2, "STATE_COMPLETED"), top
    assert top["training"]["searcherMetric"] == 0.5
    assert top["training"]["validationMetrics"]["avgMetrics"] == {"loss": 0.5}
    worst_first = cluster.get(path, params={"sortByMetric": "loss", "orderBy": "ORDER_BY_DESC"})["checkpoints"]
    losses = [c["training"]["searcherMetric"] for c in worst_first]
    assert len(losses) == 8 and losses == sorted(losses, reverse=True), losses
    bad = cluster.session.get(cluster.master_url + path, params={"states": "STATE_LOST"}, timeout=30)
    assert bad.status_code == 400 and "STATE_LOST" in bad.text, bad.text
    # One trial's, newest step first.
    trial_id = top["training"]["trialId"]
    own = cluster.get(f"/api/v1/trials/{trial_id}/checkpoints",
                      params={"sortByAttr": "SORT_BY_BATCH_NUMBER", "orderBy": "ORDER_BY_DESC"})["checkpoints"]
    assert [c["metadata"]["steps_completed"] for c in own] == [4, 3, 2, 1], own
    assert {c["training"]["trialId"] for c in own} == {trial_id}


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


def test_a_new_policy_collects_a_finished_experiment_again(cluster, tmp_path):
    exp_id = run(cluster, tmp_path, "repolicy", best=1, trial_best=1, latest=1)
    listed = wait_for_gc(cluster, exp_id, deleted=4)
    policy = ["--save-experiment-best", "1", "--save-trial-best", "0", "--save-trial-latest", "0"]
    # Without --yes: what would go is shown (three of the four left), and "n" changes nothing.
    preview = cluster.det("experiment", "set", "gc-policy", str(exp_id), *policy, input="n\n").stdout
    going = {u for u, (x, step, s) in listed.items() if s == "STATE_COMPLETED" and (x, step) != (2, 2)}
    assert all(u in preview for u in going) and "Aborting operations." in preview, preview
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["config"]["checkpoint_storage"][
        "save_trial_latest"] == 1
    out = cluster.det("experiment", "set", "gc-policy", str(exp_id), *policy, "--yes").stdout
    assert "Set GC policy of experiment" in out, out
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["config"]["checkpoint_storage"][
        "save_trial_latest"] == 0
    listed = wait_for_gc(cluster, exp_id, deleted=7)
    assert [(x, step) for x, step, state in listed.values() if state == "STATE_COMPLETED"] == [(2, 2)], listed
    assert len(set(listed) & on_disk(cluster)) == 1
    # A negative count is refused, naming the field.
    bad = cluster.session.patch(f"{cluster.master_url}/api/v1/experiments/{exp_id}", timeout=30,
                                json={"checkpointStorage": {"saveTrialLatest": -1}})
    assert bad.status_code == 400 and "save_trial_latest" in bad.text, bad.text


def test_det_checkpoint_delete_removes_just_the_named_checkpoints(cluster, tmp_path):
    exp_id = run(cluster, tmp_path, "named", best=1, trial_best=1, latest=1)
    listed = wait_for_gc(cluster, exp_id, deleted=4)
    doomed = sorted(u for u, (_, _, s) in listed.items() if s == "STATE_COMPLETED")[:2]
    unknown = cluster.det("checkpoint", "delete", f"{doomed[0]},no-such-checkpoint", "--yes", check=False)
    assert unknown.returncode != 0 and "no-such-checkpoint" in unknown.stderr, unknown
    # Without --yes the question is asked; "n" (or no answer) deletes nothing.
    aborted = cluster.det("checkpoint", "delete", ",".join(doomed), input="n\n")
    assert "Aborting" in aborted.stdout, aborted
    out = cluster.det("checkpoint", "delete", ",".join(doomed), "--yes").stdout
    assert "is in progress" in out, out
    listed = wait_for_gc(cluster, exp_id, deleted=6)
    for uuid in doomed:
        assert listed[uuid][2] == "STATE_DELETED" and uuid not in on_disk(cluster), (uuid, listed)
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["checkpointCount"] == 2


def test_deleting_an_experiment_deletes_its_checkpoints_from_storage(cluster, tmp_path):
    exp_id = run(cluster, tmp_path, "gone", best=1, trial_best=1, latest=1)
    listed = wait_for_gc(cluster, exp_id, deleted=4)
    assert len(set(listed) & on_disk(cluster)) == 4
    trial_ids = [t["id"] for t in cluster.trials(exp_id)]
    cluster.det("experiment", "delete", str(exp_id), "--yes")
    wait_for(lambda: cluster.session.get(f"{cluster.master_url}/api/v1/experiments/{exp_id}").status_code == 404,
             "the experiment's records to go")
    assert not set(listed) & on_disk(cluster)
    # Its ids are not given again: the next experiment and its trials get new ones.
    next_id = cluster.create_experiment(tmp_path / "gone" / "gc.yaml", tmp_path / "gone", "--paused")
    assert next_id > exp_id
    assert min(t["id"] for t in cluster.trials(next_id)) > max(trial_ids)
    cluster.det("experiment", "kill", str(next_id))


CORE_DELETE = """
import determined as det

with det.core.init() as ctx:
    uuids = []
    for step in (1, 2):
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "state").write_text(str(step))
        uuids.append(uuid)
    ctx.checkpoint.delete(uuids[0])
    print("deleted", uuids[0])
"""


def test_core_api_delete_tells_the_master(cluster, tmp_path):
    exp_id, _ = cluster.run_script(tmp_path, "core_delete", CORE_DELETE)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    states = {uuid: state for uuid, (_, _, state) in checkpoints_by_uuid(cluster, exp_id).items()}
    deleted = [u for u, s in states.items() if s == "STATE_DELETED"]
    assert len(states) == 2 and len(deleted) == 1, states
    assert deleted[0] not in on_disk(cluster)


def checkpoints_by_uuid(cluster, exp_id):
    listed = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    return {c["uuid"]: (c["training"]["trialId"], c["metadata"]["steps_completed"], c["state"]) for c in listed}


def test_a_paused_trial_whose_latest_checkpoint_is_deleted_resumes_from_the_one_before(cluster, tmp_path):
    exp_id, trial_id = cluster.run_script(tmp_path, "stepper", stepper(300))

    def pause_and_resume_count(count):
        wait_for(lambda: cluster.trial_logs(trial_id).count("running from step") == count, "the trial to run",
                 timeout=120)
        cluster.det("experiment", "pause", str(exp_id))
        wait_for(lambda: cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_PAUSED"
                 and cluster.trial_logs(trial_id).count("stopped at step") == count, "paused", timeout=120)

    pause_and_resume_count(1)
    cluster.det("experiment", "activate", str(exp_id))
    pause_and_resume_count(2)
    listed = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    by_step = sorted((c["metadata"]["steps_completed"], c["uuid"]) for c in listed)
    assert len(by_step) == 2, by_step
    (first_step, _), (_, latest) = by_step
    cluster.det("checkpoint", "delete", latest, "--yes")
    wait_for(lambda: cluster.get(f"/api/v1/checkpoints/{latest}")["checkpoint"]["state"] == "STATE_DELETED",
             "the deletion")
    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    logs = cluster.trial_logs(trial_id)
    assert logs.count(f"resumed at step {first_step}") == 2, logs[-3000:]


TWO_PARTS = """
import determined as det

with det.core.init() as ctx:
    for step in (1, 2, 3):
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "model.pt").write_text("m" * 10)
            (path / "optimizer").mkdir()
            (path / "optimizer" / "state.pt").write_text("o" * 100)
"""


def test_det_checkpoint_rm_removes_the_files_globs_name(cluster, tmp_path):
    (tmp_path / "two_parts.py").write_text(TWO_PARTS)
    (tmp_path / "two_parts.yaml").write_text(
        "name: two_parts\nentrypoint: python3 two_parts.py\nsearcher: {name: single, metric: loss}\n"
        "max_restarts: 0\ncheckpoint_storage: {save_trial_latest: 3}\n")
    exp_id = cluster.create_experiment(tmp_path / "two_parts.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    listed = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    first, second, third = sorted(listed, key=lambda c: c["metadata"]["steps_completed"])
    storage = pathlib.Path(cluster.data_dir, "checkpoints")
    size_before = int(cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["checkpointSize"])

    bad = cluster.det("checkpoint", "rm", first["uuid"], "--glob", "../x", "--yes", check=False)
    assert bad.returncode != 0 and "checkpointGlobs" in bad.stderr and "../x" in bad.stderr, bad
    missing = cluster.det("checkpoint", "rm", first["uuid"], check=False)
    assert missing.returncode != 0 and "--glob" in missing.stderr, missing

    out = cluster.det("checkpoint", "rm", first["uuid"], "--glob", "optimizer", "--yes").stdout
    assert "is in progress" in out, out
    wait_for(lambda: cluster.get(f"/api/v1/checkpoints/{first['uuid']}")["checkpoint"]["state"]
             == "STATE_PARTIALLY_DELETED", "the first checkpoint to lose its optimizer")
    assert (storage / first["uuid"] / "model.pt").read_text() == "m" * 10
    assert not (storage / first["uuid"] / "optimizer").exists()
    assert cluster.get(f"/api/v1/checkpoints/{first['uuid']}")["checkpoint"]["resources"] == {"model.pt": "10"}
    assert int(cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["checkpointSize"]) == size_before - 100

    # Every file named: the checkpoint is gone, from the API and from storage; the SDK asks the same.
    sdk = client.Determined(master=cluster.master_url, user="admin", password="")
    sdk.get_checkpoint(second["uuid"]).remove_files(["**"])
    wait_for(lambda: cluster.get(f"/api/v1/checkpoints/{second['uuid']}")["checkpoint"]["state"] == "STATE_DELETED",
             "the second checkpoint to be deleted")
    assert not (storage / second["uuid"]).exists()
    deleted = cluster.det("checkpoint", "rm", second["uuid"], "--glob", "*", "--yes", check=False)
    assert deleted.returncode != 0 and "already deleted" in deleted.stderr, deleted

    # A process that removed files itself reports what is left (PatchCheckpoints), as upstream's GC does.
    body = {"checkpoints": [{"uuid": third["uuid"], "resources": {"resources": {"model.pt": "10"}}}]}
    assert cluster.session.patch(f"{cluster.master_url}/api/v1/checkpoints", json=body, timeout=30).ok
    patched = cluster.get(f"/api/v1/checkpoints/{third['uuid']}")["checkpoint"]
    assert (patched["state"], patched["resources"]) == ("STATE_PARTIALLY_DELETED", {"model.pt": "10"}), patched
