"""The Python SDK (`from determined.experimental import client`) against a real cluster: login and
users, a grid search's trials, best checkpoints (downloaded), metrics and logs, and an experiment's
lifecycle (pause, activate, kill, archive, unarchive, delete)."""
import os
import sys
import time

import pytest

from conftest import REPO, wait_for

sys.path.insert(0, str(REPO / "python"))

from determined.common.api import errors  # noqa: E402
from determined.experimental import client  # noqa: E402

# A trial of STEPS steps of SLEEP seconds: validates `loss = scale * (STEPS - step + 1)` and checkpoints
# `model.txt` each step, then reports an "inference" group; it stops as soon as the master asks.
TRAIN = """
import time
import determined as det

STEPS = 4
info = det.get_cluster_info()
scale = info.trial.hparams["scale"]


def step_done(ctx):
    for _ in range(max(1, int(SLEEP * 10))):
        time.sleep(0.1)
        if ctx.preempt.should_preempt():
            return False
    return True


with det.core.init() as ctx:
    print("training with scale", scale, flush=True)
    for step in range(1, STEPS + 1):
        if not step_done(ctx):
            print("preempted at step", step, flush=True)
            break
        loss = scale * (STEPS - step + 1)
        ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": loss})
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": loss})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "model.txt").write_text(f"scale={scale} step={step}")
    else:
        ctx.train.report_metrics("inference", steps_completed=STEPS, metrics={"accuracy": 1.0 / scale})
        print("done", flush=True)
"""


def search_config(name, scales, sleep=0.0, **extra):
    config = {
        "name": name,
        "entrypoint": "python3 train.py",
        "hyperparameters": {"scale": {"type": "categorical", "vals": scales}},
        "searcher": {"name": "grid", "metric": "loss", "smaller_is_better": True,
                     "max_concurrent_trials": 2},
        "max_restarts": 0,
    }
    config.update(extra)
    return config


@pytest.fixture
def model_dir(tmp_path):
    def make(sleep=0.0):
        (tmp_path / "train.py").write_text(TRAIN.replace("SLEEP", str(sleep)))
        return tmp_path
    return make


@pytest.fixture(autouse=True)
def sdk_env(cluster, monkeypatch, tmp_path):
    """Each test starts with no default client, the cluster's master in DET_MASTER, and a token
    cache of its own."""
    for name in ("DET_USER", "DET_PASS", "DET_USER_TOKEN", "DET_MASTER_ADDR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DET_MASTER", cluster.master_url)
    monkeypatch.setenv("DET_AUTH_FILE", str(tmp_path / "sdk-auth.json"))
    monkeypatch.setattr(client, "_determined", None)
    yield


def wait_state(exp, states, timeout=120):
    def reached():
        exp.reload()
        return exp.state in states
    wait_for(reached, f"experiment {exp.id} in {states} (is {exp.state})", timeout=timeout)


def test_login_users_and_logout(cluster, monkeypatch):
    client.login(master=cluster.master_url, user="admin", password="")
    me = client.whoami()
    assert me.username == "admin" and me.admin and me.active
    assert client.get_session_username() == "admin"

    name = f"sdk-user-{int(time.time() * 1000)}"
    created = client.create_user(name, admin=False, password="s3cret-Pass")
    assert created.username == name and created.admin is False and created.active is True
    assert client.get_user_by_name(name).user_id == created.user_id
    assert client.get_user_by_id(created.user_id).username == name
    assert name in [u.username for u in client.list_users()]
    assert name in [u.username for u in client.list_users(active=True)]

    # The password was hashed on this side as upstream does; the master accepts it.
    as_user = client.Determined(master=cluster.master_url, user=name, password="s3cret-Pass")
    assert as_user.whoami().username == name
    with pytest.raises(errors.UnauthenticatedException):
        client.Determined(master=cluster.master_url, user=name, password="wrong")
    created.change_password("n3w-Pass")
    assert client.Determined(master=cluster.master_url, user=name, password="n3w-Pass").whoami().user_id \
        == created.user_id
    created.change_display_name("SDK User")
    assert created.display_name == "SDK User"

    # The login was cached: a later Determined for the same user needs no password.
    again = client.Determined(master=cluster.master_url, user=name)
    assert again.whoami().username == name
    again.logout()
    with pytest.raises(errors.UnauthenticatedException):
        again.whoami()

    created.deactivate()
    assert created.active is False
    with pytest.raises((errors.UnauthenticatedException, errors.ForbiddenException)):
        client.Determined(master=cluster.master_url, user=name, password="n3w-Pass")
    created.activate()
    assert created.active is True

    client.logout()
    # After logout the module logs in again from the environment: DET_USER / DET_PASS.
    monkeypatch.setenv("DET_USER", name)
    monkeypatch.setenv("DET_PASS", "n3w-Pass")
    assert client.whoami().username == name


def test_default_client_from_environment(cluster):
    # No login(): the first call logs in as `determined` (blank password) at $DET_MASTER.
    assert client.whoami().username == "determined"
    with pytest.raises(errors.NotFoundException):
        client.get_experiment(987654)
    with pytest.raises(errors.NotFoundException):
        client.get_checkpoint("00000000-0000-4000-8000-000000000000")


def test_grid_search_best_checkpoint_metrics_and_logs(cluster, model_dir, tmp_path):
    d = client.Determined(master=cluster.master_url, user="determined", password="")
    exp = d.create_experiment(search_config("sdk-grid", [3, 1, 2]), model_dir())
    assert exp.id > 0 and exp.name == "sdk-grid"
    assert exp.config["searcher"]["metric"] == "loss"
    assert d.get_experiment(exp.id).id == exp.id

    assert exp.wait(interval=0.5) == client.ExperimentState.COMPLETED
    assert exp.state == client.ExperimentState.COMPLETED and exp.progress == 1.0

    trials = list(exp.list_trials())
    assert len(trials) == 3
    assert sorted(t.hparams["scale"] for t in trials) == [1, 2, 3]
    assert all(t.state == client.TrialState.COMPLETED for t in trials)
    assert [t.id for t in exp.list_trials(order_by=client.OrderBy.DESCENDING)] == \
        sorted((t.id for t in trials), reverse=True)
    with pytest.warns(FutureWarning):
        assert [t.id for t in exp.get_trials()] == [t.id for t in trials]
    best_trial = next(t for t in trials if t.hparams["scale"] == 1)

    # The best checkpoint: scale 1 at its last step (loss 1).
    with pytest.warns(FutureWarning):
        best = exp.top_checkpoint()
    assert best.state == client.CheckpointState.COMPLETED
    assert best.training.trial_id == best_trial.id and best.training.experiment_id == exp.id
    assert best.training.validation_metrics["avgMetrics"]["loss"] == 1
    assert best.metadata["steps_completed"] == 4
    assert best.resources == {"model.txt": len("scale=1 step=4")}
    with pytest.warns(FutureWarning):
        top2 = exp.top_n_checkpoints(2)
    assert [c.training.trial_id for c in top2][0] == best_trial.id
    assert len({c.training.trial_id for c in top2}) == 2
    with pytest.warns(FutureWarning):
        worst = exp.top_checkpoint(sort_by="loss", smaller_is_better=False)
    assert worst.training.validation_metrics["avgMetrics"]["loss"] == max(
        c.training.validation_metrics["avgMetrics"]["loss"] for c in top2 + [worst])

    # list_checkpoints: best searcher metric first by default; attribute and metric sorts.
    listed = exp.list_checkpoints()
    assert listed[0].uuid == best.uuid
    assert exp.list_checkpoints(max_results=1)[0].uuid == best.uuid
    assert len(exp.list_checkpoints(max_results=2)) == 2
    by_step = exp.list_checkpoints(sort_by=client.CheckpointSortBy.BATCH_NUMBER,
                                   order_by=client.OrderBy.ASC)
    steps = [c.metadata["steps_completed"] for c in by_step]
    assert steps == sorted(steps) and len(by_step) == 12
    by_loss = exp.list_checkpoints(sort_by="loss", order_by=client.OrderBy.DESC)
    losses = [c.training.validation_metrics["avgMetrics"]["loss"] for c in by_loss]
    assert losses == sorted(losses, reverse=True)
    with pytest.raises(AssertionError):
        exp.list_checkpoints(sort_by="loss")

    # The trial's own checkpoints.
    trial = d.get_trial(best_trial.id)
    assert trial.experiment_id == exp.id and trial.hparams == {"scale": 1}
    assert trial.list_checkpoints()[0].uuid == best.uuid
    with pytest.warns(FutureWarning):
        assert trial.top_checkpoint().uuid == best.uuid
    with pytest.warns(FutureWarning):
        latest = trial.select_checkpoint(latest=True)
    assert latest.metadata["steps_completed"] == 4

    # Download: shared_fs storage copied from the host path, metadata.json beside the files.
    got = d.get_checkpoint(best.uuid)
    assert got.uuid == best.uuid and got.state == client.CheckpointState.COMPLETED
    # What the trial knew, as upstream's GetCheckpoint fills it.
    assert got.training.validation_metrics["avgMetrics"]["loss"] == 1 and got.training.searcher_metric == 1
    assert got.training.hparams == best_trial.hparams
    assert got.training.experiment_config["searcher"]["metric"] == "loss"
    path = got.download(str(tmp_path / "best"))
    assert path == str(tmp_path / "best")
    assert (tmp_path / "best" / "model.txt").read_text() == "scale=1 step=4"
    assert (tmp_path / "best" / "metadata.json").exists()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        default = got.download()
    finally:
        os.chdir(cwd)
    assert default == os.path.join("checkpoints", best.uuid)
    assert (tmp_path / "checkpoints" / best.uuid / "model.txt").exists()
    deleted = [c for c in by_step if c.state == client.CheckpointState.DELETED]
    assert deleted, "the storage policy should have deleted the trials' other checkpoints"
    with pytest.raises(ValueError):
        deleted[0].download(str(tmp_path / "gone"))

    # Metrics: one report a step, oldest first, per group; several trials at once.
    validation = list(trial.iter_metrics("validation"))
    assert [m.total_batches for m in validation] == [1, 2, 3, 4]
    assert [m.metrics["loss"] for m in validation] == [4, 3, 2, 1]
    assert all(m.trial_id == trial.id and m.group == "validation" for m in validation)
    assert validation[0].end_time is not None and validation[0].steps_completed == 1
    assert [m.metrics["accuracy"] for m in trial.iter_metrics("inference")] == [1.0]
    every = list(d.iter_trials_metrics([t.id for t in trials], group="training"))
    assert len(every) == 12 and {m.trial_id for m in every} == {t.id for t in trials}
    with pytest.warns(FutureWarning):
        assert len(list(d.stream_trials_training_metrics([trial.id]))) == 4
    with pytest.warns(FutureWarning):
        assert [m.metrics["loss"] for m in d.stream_trials_validation_metrics([trial.id])] == [4, 3, 2, 1]
    with pytest.warns(FutureWarning):
        assert len(list(trial.stream_metrics("training"))) == 4
    assert len(list(client.iter_trials_metrics([trial.id], "validation"))) == 4

    # Logs: lines as stored; head, tail, stream and level filters.
    lines = list(trial.logs())
    assert any("training with scale 1" in line for line in lines), lines
    assert any("done" in line for line in lines)
    assert list(trial.logs(head=2)) == lines[:2]
    assert list(trial.logs(tail=1)) == lines[-1:]
    assert list(trial.logs(head=0)) == []
    assert all("training with scale" not in line for line in trial.logs(stdtypes=["stderr"]))
    followed = list(trial.logs(follow=True))  # the trial has ended: the stream ends too
    assert followed == lines
    with pytest.raises(ValueError):
        trial.logs(head=-1)

    # Queries over experiments.
    assert [e.id for e in d.list_experiments(experiment_ids=[exp.id])] == [exp.id]
    assert exp.id in [e.id for e in d.list_experiments(states=[client.ExperimentState.COMPLETED])]
    assert exp.id not in [e.id for e in d.list_experiments(states=[client.ExperimentState.PAUSED])]
    assert exp.id in [e.id for e in d.list_experiments(name="sdk-grid", users=["determined"])]
    assert d.get_experiment(exp.id).get_config()["hyperparameters"]["scale"]["vals"] == [3, 1, 2]
    # A finished experiment cannot be activated: the master's reason is in the exception.
    with pytest.raises(errors.APIException) as failed:
        exp.activate()
    assert failed.value.status_code == 400 and "STATE_COMPLETED" in str(failed.value)


def test_checkpoint_metadata(cluster, model_dir):
    d = client.Determined(master=cluster.master_url, user="determined", password="")
    exp = d.create_experiment(search_config("sdk-metadata", [1]), model_dir())
    assert exp.wait(interval=0.5) == client.ExperimentState.COMPLETED
    ckpt = exp.list_checkpoints(max_results=1)[0]
    assert ckpt.get_metadata() == {"steps_completed": 4}
    ckpt.add_metadata({"stage": "prod", "nested": {"a": 1}})
    assert ckpt.metadata == {"steps_completed": 4, "stage": "prod", "nested": {"a": 1}}
    assert d.get_checkpoint(ckpt.uuid).metadata == ckpt.metadata
    ckpt.remove_metadata(["stage", "absent"])
    assert d.get_checkpoint(ckpt.uuid).get_metadata() == {"steps_completed": 4, "nested": {"a": 1}}


def test_create_from_yaml_file_and_text_with_includes(cluster, tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "helper.py").write_text("GREETING = 'hello from an included dir'\n")
    code = tmp_path / "code"
    code.mkdir()
    (code / "main.py").write_text(
        "import sys\nsys.path.insert(0, 'lib')\nimport helper\nprint(helper.GREETING, flush=True)\n")
    (code / "ignored.txt").write_text("not sent")
    (code / ".detignore").write_text("ignored.txt\n")
    (code / "run.sh").write_text("test ! -e ignored.txt && python3 main.py\n")
    config_text = ("name: sdk-includes\nentrypoint: sh run.sh\n"
                   "searcher: {name: single, metric: loss}\nmax_restarts: 0\n")
    (tmp_path / "exp.yaml").write_text(config_text)

    from_file = client.create_experiment(str(tmp_path / "exp.yaml"), code, includes=[lib])
    from_text = client.create_experiment(config_text, str(code), includes=[str(lib)])
    from_path = client.create_experiment(tmp_path / "exp.yaml", code, includes=[lib])
    for exp in (from_file, from_text, from_path):
        assert exp.wait(interval=0.5) == client.ExperimentState.COMPLETED, exp.id
        trial = next(exp.list_trials())
        assert any("hello from an included dir" in line for line in trial.logs()), list(trial.logs())
    with pytest.raises(ValueError):
        client.create_experiment(["not", "a", "config"], code)


def test_lifecycle_pause_activate_kill_archive_delete(cluster, model_dir):
    d = client.Determined(master=cluster.master_url, user="determined", password="")
    # Two slow trials (scale 1 and 2), both running at once.
    exp = d.create_experiment(search_config("sdk-lifecycle", [1, 2]), model_dir(sleep=30))
    first = exp.await_first_trial(interval=0.2)
    assert first.experiment_id == exp.id

    exp.set_name("sdk-renamed")
    exp.set_description("from the SDK")
    exp.set_notes("some notes")
    exp.set_labels({"a", "b"})
    assert exp.labels == {"a", "b"}
    exp.add_label("c d")
    assert exp.labels == {"a", "b", "c d"}
    exp.remove_label("a")
    assert exp.labels == {"b", "c d"}
    exp.reload()
    assert (exp.name, exp.description, exp.notes, exp.labels) == (
        "sdk-renamed", "from the SDK", "some notes", {"b", "c d"})
    assert exp.id in [e.id for e in d.list_experiments(labels=["c d"])]

    exp.pause()
    wait_state(exp, {client.ExperimentState.PAUSED})
    with pytest.raises(ValueError):
        exp.wait(interval=0.1)
    exp.activate()
    wait_state(exp, {client.ExperimentState.ACTIVE, client.ExperimentState.QUEUED,
                     client.ExperimentState.PULLING, client.ExperimentState.STARTING,
                     client.ExperimentState.RUNNING})

    def running_trials():
        ts = list(exp.list_trials())
        return len(ts) == 2 and all(t.state == client.TrialState.RUNNING for t in ts) and ts
    trials = wait_for(running_trials, "both trials running", timeout=120)
    trials[0].kill()

    def killed():
        trials[0].reload()
        return trials[0].state in (client.TrialState.CANCELED, client.TrialState.ERROR)
    wait_for(killed, f"trial {trials[0].id} killed", timeout=120)
    trials[1].reload()
    assert trials[1].state not in (client.TrialState.CANCELED, client.TrialState.ERROR)

    # An active experiment can be neither archived nor deleted.
    with pytest.raises(errors.APIException):
        exp.archive()
    with pytest.raises(errors.APIException):
        exp.delete()

    exp.kill()
    assert exp.wait(interval=0.5) == client.ExperimentState.CANCELED

    exp.archive()
    assert exp.archived is True
    exp.reload()
    assert exp.archived is True
    exp.unarchive()
    exp.reload()
    assert exp.archived is False

    exp.delete()

    def gone():
        try:
            exp.reload()
        except errors.NotFoundException:
            return True
        return exp.state == client.ExperimentState.DELETED
    wait_for(gone, f"experiment {exp.id} deleted", timeout=120)


def test_cancel_ends_trials_gracefully(cluster, model_dir):
    exp = client.create_experiment(search_config("sdk-cancel", [1], max_restarts=0), model_dir(sleep=30))
    trial = exp.await_first_trial(interval=0.2)

    def running():
        trial.reload()
        return trial.state == client.TrialState.RUNNING
    wait_for(running, "the trial running", timeout=120)
    exp.cancel()
    assert exp.wait(interval=0.5) == client.ExperimentState.CANCELED
    # The trial saw the preemption signal and stopped by itself.
    assert any("preempted at step 1" in line for line in trial.logs()), list(trial.logs())
