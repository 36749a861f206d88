"""Determined 0.38.1's own `det` (upstream's CLI, unmodified) against our master: experiments (create with
--follow, --paused, --config, --template, --project_id, --test-mode; list, describe, trials, checkpoints,
state changes, set, labels, move, continue, download, logs, delete), trials, checkpoints, projects and
models. Each step checks what the user reads: table rows, ids, states, file names."""
import json
import pathlib
import re
import tarfile

import pytest
import yaml

from conftest import wait_for
from upstream import check_reply, require_client, stock_det

require_client()

# Reports training and validation metrics and a checkpoint at each of STEPS steps (loss 1/step), and
# prints a line the logs must show.
TRAIN = """
import time
import determined as det

info = det.get_cluster_info()
start = 0
with det.core.init() as ctx:
    if info.latest_checkpoint:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            start = int((path / "model.txt").read_text().split("=")[1])
    for step in range(start + 1, STEPS + 1):
        time.sleep(SLEEP)
        if ctx.preempt.should_preempt():
            print("preempted at step", step, flush=True)
            break
        ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "model.txt").write_text(f"step={step}")
    else:
        print("upstream-cli trained", STEPS, "steps", flush=True)
"""


def config(name, **extra):
    c = {"name": name, "entrypoint": "python3 train.py", "max_restarts": 0,
         "searcher": {"name": "single", "metric": "loss", "smaller_is_better": True, "max_length": 3}}
    c.update(extra)
    return c


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("model")
    (d / "train.py").write_text(TRAIN.replace("STEPS", "3").replace("SLEEP", "0"))
    slow = tmp_path_factory.mktemp("slow")
    (slow / "train.py").write_text(TRAIN.replace("STEPS", "600").replace("SLEEP", "0.1"))
    return d, slow


def det(cluster, *args, **kwargs):
    return stock_det(cluster.master_url, *args, **kwargs)


def out(cluster, *args):
    return det(cluster, *args).stdout


def write_config(tmp_path, c, name="exp.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(c))
    return path


def created_id(text):
    return int(re.search(r"Created (?:test )?experiment (\d+)", text).group(1))


def table_rows(text):
    """The rows of a table upstream's CLI printed: lists of cell texts (header and separator left out)."""
    lines = [line for line in text.splitlines() if "|" in line]
    rows = [[cell.strip() for cell in line.split("|")] for line in lines]
    return [r for r in rows[1:] if not all(set(c) <= {"-", "+", ""} for c in r)]


def experiment(cluster, exp_id):
    return cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]


def checkpoints(cluster, exp_id):
    return cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]


def wait_state(cluster, exp_id, state, timeout=120):
    wait_for(lambda: experiment(cluster, exp_id)["state"] == state,
             f"experiment {exp_id} to be {state}", timeout=timeout)


def wait_running(cluster, exp_id):
    wait_for(lambda: (cluster.trials(exp_id) or [{}])[0].get("state") == "STATE_RUNNING",
             f"experiment {exp_id}'s trial to run", timeout=60)


def test_create_follow_describe_and_download(cluster, model_dir, tmp_path):
    d, _ = model_dir
    created = det(cluster, "experiment", "create", str(write_config(tmp_path, config("follow"))), str(d), "--follow")
    exp_id = created_id(created.stdout)
    assert "upstream-cli trained 3 steps" in created.stdout
    assert experiment(cluster, exp_id)["state"] == "STATE_COMPLETED"
    check_reply("v1GetExperimentResponse", cluster.get(f"/api/v1/experiments/{exp_id}"),
                f"GET /api/v1/experiments/{exp_id}")
    (trial,) = cluster.trials(exp_id)
    check_reply("v1GetTrialResponse", cluster.get(f"/api/v1/trials/{trial['id']}"), "GET /api/v1/trials/{id}")

    rows = {r[0]: r for r in table_rows(out(cluster, "experiment", "list"))}
    assert rows[str(exp_id)][1:3] == ["determined", "follow"] and rows[str(exp_id)][4] == "COMPLETED"

    # The default GC policy keeps the best and the latest checkpoint (both step 3).
    kept = {1: "STATE_DELETED", 2: "STATE_DELETED", 3: "STATE_COMPLETED"}
    wait_for(lambda: {c["metadata"]["steps_completed"]: c["state"] for c in checkpoints(cluster, exp_id)} == kept,
             "the GC policy to keep step 3 only")
    uuids = {c["metadata"]["steps_completed"]: c["uuid"] for c in checkpoints(cluster, exp_id)}
    described = out(cluster, "experiment", "describe", str(exp_id))
    assert "follow" in described and "COMPLETED" in described
    workloads = [r for r in table_rows(described.split("Workloads:")[1]) if r[0] == str(trial["id"])]
    assert [(r[1], r[4], r[6]) for r in workloads] == [("1", "DELETED", "COMPLETED"), ("2", "DELETED", "COMPLETED"),
                                                       ("3", "COMPLETED", "COMPLETED")]
    as_json = json.loads(out(cluster, "experiment", "describe", str(exp_id), "--json"))
    assert as_json[0]["experiment"]["id"] == exp_id and as_json[0]["experiment"]["state"] == "STATE_COMPLETED"

    trial_rows = table_rows(out(cluster, "experiment", "list-trials", str(exp_id)))
    assert [(r[0], r[1], r[-1]) for r in trial_rows] == [(str(trial["id"]), "COMPLETED", "3")]

    for verb in ("list-checkpoints", "lc"):
        listed = table_rows(out(cluster, "experiment", verb, str(exp_id)))
        by_uuid = {r[4]: r for r in listed}
        assert by_uuid[uuids[3]][:3] == [str(trial["id"]), "3", "COMPLETED"] and "model.txt" in by_uuid[uuids[3]]
        assert by_uuid[uuids[1]][:3] == [str(trial["id"]), "1", "DELETED"]
        assert set(by_uuid) == set(uuids.values())

    trial_out = out(cluster, "trial", "describe", str(trial["id"]))
    assert uuids[3] in trial_out and "COMPLETED" in trial_out
    trial_json = json.loads(out(cluster, "trial", "describe", str(trial["id"]), "--json"))
    assert trial_json["trial"]["id"] == trial["id"] and trial_json["trial"]["state"] == "STATE_COMPLETED"
    logs = out(cluster, "trial", "logs", str(trial["id"]))
    assert "upstream-cli trained 3 steps" in logs
    assert "upstream-cli trained 3 steps" in out(cluster, "experiment", "logs", str(exp_id))

    ckpt = out(cluster, "checkpoint", "describe", uuids[3])
    assert uuids[3] in ckpt and "steps_completed" in ckpt
    det(cluster, "checkpoint", "download", uuids[3], "-o", str(tmp_path / "ckpt"))
    assert (tmp_path / "ckpt" / "model.txt").read_text() == "step=3"
    det(cluster, "experiment", "download", str(exp_id), "-o", str(tmp_path / "exp"))
    assert (tmp_path / "exp" / uuids[3] / "model.txt").read_text() == "step=3"

    det(cluster, "checkpoint", "delete", uuids[3], "--yes")
    wait_for(lambda: {c["uuid"]: c["state"] for c in checkpoints(cluster, exp_id)}[uuids[3]] == "STATE_DELETED",
             "the checkpoint to be deleted")
    row = {r[4]: r for r in table_rows(out(cluster, "experiment", "lc", str(exp_id)))}[uuids[3]]
    assert row[2] == "DELETED"


def test_create_flags(cluster, model_dir, tmp_path):
    d, _ = model_dir
    path = write_config(tmp_path, config("flags"))

    paused = created_id(out(cluster, "experiment", "create", str(path), str(d), "--paused", "--config", "name=renamed",
                            "--config", "description=from the command line"))
    e = experiment(cluster, paused)
    assert (e["state"], e["name"], e["description"]) == ("STATE_PAUSED", "renamed", "from the command line")
    row = {r[0]: r for r in table_rows(out(cluster, "experiment", "list"))}[str(paused)]
    assert row[2] == "renamed" and row[4] == "PAUSED"
    det(cluster, "experiment", "activate", str(paused))
    wait_state(cluster, paused, "STATE_COMPLETED")

    cluster.det("template", "set", "upstream-tpl", str(write_config(
        tmp_path, {"description": "from the template", "labels": ["tpl"]}, "tpl.yaml")))
    templated = created_id(out(cluster, "experiment", "create", str(path), str(d), "--template", "upstream-tpl"))
    e = experiment(cluster, templated)
    assert e["description"] == "from the template" and e["labels"] == ["tpl"]

    workspace = cluster.session.post(f"{cluster.master_url}/api/v1/workspaces", json={"name": "upstream-ws"},
                                     timeout=30).json()["workspace"]
    project = json.loads(out(cluster, "project", "create", "upstream-ws", "upstream-proj", "--json"))
    placed = created_id(out(cluster, "experiment", "create", str(path), str(d), "--project_id", str(project["id"])))
    e = experiment(cluster, placed)
    assert (e["projectId"], e["workspaceId"]) == (project["id"], workspace["id"])
    listed = table_rows(out(cluster, "project", "list-experiments", "upstream-ws", "upstream-proj"))
    assert [r[0] for r in listed] == [str(placed)]

    test_mode = det(cluster, "experiment", "create", str(path), str(d), "--test-mode")
    assert "Experiment configuration validation succeeded" in test_mode.stdout
    test_id = created_id(test_mode.stdout)
    assert "Model definition test succeeded" in test_mode.stdout
    assert experiment(cluster, test_id)["state"] == "STATE_COMPLETED"
    for exp_id in (templated, placed):
        wait_state(cluster, exp_id, "STATE_COMPLETED")

    bad = det(cluster, "experiment", "create", str(path), str(d), "--test-mode", "--config", "searcher.name=nope",
              check=False)
    assert bad.returncode != 0 and "searcher" in bad.stdout + bad.stderr


def test_states_settings_labels_and_delete(cluster, model_dir, tmp_path):
    d, slow = model_dir
    exp_id = created_id(out(cluster, "experiment", "create", str(write_config(tmp_path, config("states"))),
                            str(slow)))
    wait_running(cluster, exp_id)
    assert "Paused experiment" in out(cluster, "experiment", "pause", str(exp_id))
    wait_state(cluster, exp_id, "STATE_PAUSED")
    assert "Activated experiment" in out(cluster, "experiment", "activate", str(exp_id))
    wait_running(cluster, exp_id)

    for what, value, key in (("priority", "7", "priority"), ("weight", "2.5", "weight"),
                             ("max-slots", "1", "max_slots")):
        assert f"Set `{key}` of experiment {exp_id} to {value}" in out(cluster, "experiment", "set", what,
                                                                        str(exp_id), value)
        got = cluster.get(f"/api/v1/experiments/{exp_id}")["config"]["resources"][key]
        assert str(got) == value or float(got) == float(value)
    out(cluster, "experiment", "set", "description", str(exp_id), "new words")
    out(cluster, "experiment", "set", "name", str(exp_id), "renamed-states")
    e = experiment(cluster, exp_id)
    assert (e["description"], e["name"]) == ("new words", "renamed-states")
    assert "Added label 'blue'" in out(cluster, "experiment", "label", "add", str(exp_id), "blue")
    out(cluster, "experiment", "label", "add", str(exp_id), "green")
    assert experiment(cluster, exp_id)["labels"] == ["blue", "green"]
    assert "Removed label 'blue'" in out(cluster, "experiment", "label", "remove", str(exp_id), "blue")
    assert experiment(cluster, exp_id)["labels"] == ["green"]

    assert "Killed experiment" in out(cluster, "experiment", "kill", str(exp_id))
    wait_state(cluster, exp_id, "STATE_CANCELED")
    row = {r[0]: r for r in table_rows(out(cluster, "experiment", "list"))}[str(exp_id)]
    assert row[4] == "CANCELED"

    gc = out(cluster, "experiment", "set", "gc-policy", str(exp_id), "--save-experiment-best", "0",
             "--save-trial-best", "0", "--save-trial-latest", "1", "--yes")
    assert "Set GC policy of experiment" in gc
    wait_for(lambda: sum(c["state"] == "STATE_COMPLETED" for c in checkpoints(cluster, exp_id)) == 1,
             "the GC policy to keep only the latest checkpoint")

    assert "Archived experiment" in out(cluster, "experiment", "archive", str(exp_id))
    assert experiment(cluster, exp_id)["archived"] is True
    assert str(exp_id) not in [r[0] for r in table_rows(out(cluster, "experiment", "list"))]
    assert str(exp_id) in [r[0] for r in table_rows(out(cluster, "experiment", "list", "--all"))]
    assert "Unarchived experiment" in out(cluster, "experiment", "unarchive", str(exp_id))
    assert experiment(cluster, exp_id)["archived"] is False

    # Cancel a second one; then delete both: the rows, the checkpoints and the TensorBoard files go.
    other = created_id(out(cluster, "experiment", "create", str(write_config(tmp_path, config("cancel"))),
                           str(slow)))
    wait_running(cluster, other)
    assert "Canceled experiment" in out(cluster, "experiment", "cancel", str(other))
    wait_state(cluster, other, "STATE_CANCELED")
    stored = [cluster.data_dir / "checkpoints" / c["uuid"] for c in checkpoints(cluster, other)
              if c["state"] == "STATE_COMPLETED"]
    assert stored and all(p.exists() for p in stored)
    tensorboard = cluster.data_dir / "checkpoints" / "tensorboard"
    for exp in (exp_id, other):
        det(cluster, "experiment", "delete", str(exp), "--yes")
    for exp in (exp_id, other):
        wait_for(lambda: cluster.session.get(f"{cluster.master_url}/api/v1/experiments/{exp}",
                                             timeout=30).status_code == 404, f"experiment {exp} to be deleted")
    assert not any(p.exists() for p in stored)
    left = [p for p in tensorboard.rglob("*") if f"/{other}/" in f"{p}/" or f"/{exp_id}/" in f"{p}/"] \
        if tensorboard.exists() else []
    assert left == []
    missing = det(cluster, "experiment", "describe", str(other), check=False)
    assert missing.returncode != 0


def test_move_continue_and_warm_start(cluster, model_dir, tmp_path):
    d, _ = model_dir
    exp_id = created_id(out(cluster, "experiment", "create", str(write_config(tmp_path, config("mover"))), str(d)))
    wait_state(cluster, exp_id, "STATE_COMPLETED")
    cluster.session.post(f"{cluster.master_url}/api/v1/workspaces", json={"name": "move-ws"}, timeout=30)
    project = json.loads(out(cluster, "project", "create", "move-ws", "move-target", "--json"))
    assert f"Moved experiment {exp_id}" in out(cluster, "experiment", "move", str(exp_id), "move-ws", "move-target")
    assert experiment(cluster, exp_id)["projectId"] == project["id"]

    # Continue: more steps, with no warning about settings nobody set.
    continued = det(cluster, "experiment", "continue", str(exp_id), "--config", "searcher.max_length=5")
    assert f"Continued experiment {exp_id}" in continued.stdout
    assert "optimizations" not in continued.stdout + continued.stderr
    assert "scheduling_unit" not in continued.stdout + continued.stderr
    wait_state(cluster, exp_id, "STATE_COMPLETED")
    # The master's warnings name only what the user set (max_length), not the stored defaults.
    again = cluster.session.post(f"{cluster.master_url}/api/v1/experiments/continue",
                                 json={"id": exp_id, "overrideConfig": "searcher: {max_length: 6}"}, timeout=30)
    assert again.status_code == 200, again.text
    warnings = again.json().get("configWarnings", [])
    assert len(warnings) == 1 and warnings[0].startswith("searcher.max_length is deprecated"), warnings
    wait_state(cluster, exp_id, "STATE_COMPLETED")

    # A warm start names its source checkpoint in each trial.
    source = [c["uuid"] for c in checkpoints(cluster, exp_id) if c["state"] == "STATE_COMPLETED"][0]
    (src_trial,) = cluster.trials(exp_id)
    for key, value in (("source_checkpoint_uuid", source), ("source_trial_id", src_trial["id"])):
        c = config(f"warm-{key}")
        c["searcher"][key] = value
        warm = created_id(out(cluster, "experiment", "create", str(write_config(tmp_path, c)), str(d)))
        wait_state(cluster, warm, "STATE_COMPLETED")
        (t,) = cluster.trials(warm)
        described = json.loads(out(cluster, "trial", "describe", str(t["id"]), "--json"))["trial"]
        expected = source if key == "source_checkpoint_uuid" else src_trial_latest(cluster, src_trial["id"])
        assert described["warmStartCheckpointUuid"] == expected, (key, described)
    (plain,) = cluster.trials(exp_id)
    assert json.loads(out(cluster, "trial", "describe", str(plain["id"]), "--json"))["trial"][
        "warmStartCheckpointUuid"] == ""


def src_trial_latest(cluster, trial_id):
    listed = cluster.get(f"/api/v1/trials/{trial_id}/checkpoints",
                         params={"sortByAttr": "SORT_BY_BATCH_NUMBER", "orderBy": "ORDER_BY_DESC"})["checkpoints"]
    return listed[0]["uuid"]


def test_trial_kill(cluster, model_dir, tmp_path):
    _, slow = model_dir
    exp_id = created_id(out(cluster, "experiment", "create", str(write_config(tmp_path, config("trial-kill"))),
                            str(slow)))
    wait_running(cluster, exp_id)
    (trial,) = cluster.trials(exp_id)
    assert f"Killed trial {trial['id']}" in out(cluster, "trial", "kill", str(trial["id"]))
    wait_for(lambda: cluster.trials(exp_id)[0]["state"] in ("STATE_CANCELED", "STATE_ERROR"), "the trial to stop")
    wait_for(lambda: experiment(cluster, exp_id)["state"] in ("STATE_COMPLETED", "STATE_CANCELED", "STATE_ERROR"),
             "the experiment to end")
    trial_rows = table_rows(out(cluster, "experiment", "list-trials", str(exp_id)))
    assert trial_rows[0][0] == str(trial["id"]) and trial_rows[0][1] in ("CANCELED", "ERROR")


def test_projects(cluster):
    cluster.session.post(f"{cluster.master_url}/api/v1/workspaces", json={"name": "proj-ws"}, timeout=30)
    created = json.loads(out(cluster, "project", "create", "proj-ws", "alpha", "--description", "first",
                             "--key", "ALPH", "--json"))
    assert (created["name"], created["description"], created["key"]) == ("alpha", "first", "ALPH")
    rows = table_rows(out(cluster, "project", "list", "proj-ws"))
    assert rows == [[str(created["id"]), "ALPH", "alpha", "first", "0", "0"]]
    described = out(cluster, "project", "describe", "proj-ws", "alpha")
    assert "alpha" in described and "first" in described
    edited = json.loads(out(cluster, "project", "edit", "proj-ws", "alpha", "--new_name", "beta", "--description",
                            "second", "--json"))
    assert (edited["id"], edited["name"], edited["description"]) == (created["id"], "beta", "second")
    assert "beta" in out(cluster, "project", "list", "proj-ws")
    assert "Successfully archived project beta." in out(cluster, "project", "archive", "proj-ws", "beta")
    assert cluster.get(f"/api/v1/projects/{created['id']}")["project"]["archived"] is True
    assert "Successfully un-archived project beta." in out(cluster, "project", "unarchive", "proj-ws", "beta")
    assert cluster.get(f"/api/v1/projects/{created['id']}")["project"]["archived"] is False
    assert "Successfully deleted project beta." in out(cluster, "project", "delete", "proj-ws", "beta", "--yes")
    wait_for(lambda: cluster.session.get(f"{cluster.master_url}/api/v1/projects/{created['id']}",
                                         timeout=30).status_code == 404, "the project to be deleted")
    assert "beta" not in out(cluster, "project", "list", "proj-ws")


def test_models(cluster, model_dir, tmp_path):
    d, _ = model_dir
    keep_all = config("for-model", checkpoint_storage={"save_trial_latest": 3})
    exp_id = created_id(out(cluster, "experiment", "create", str(write_config(tmp_path, keep_all)), str(d)))
    wait_state(cluster, exp_id, "STATE_COMPLETED")
    uuid = [c["uuid"] for c in checkpoints(cluster, exp_id) if c["metadata"]["steps_completed"] == 3][0]

    # `det trial download`: upstream's client lists the trial's checkpoints (--latest: by batches, descending)
    # and pops from the end of that list until one is downloadable, refusing when that emptied the list; so
    # it needs two and takes the last listed (step 1). (--uuid never works: it counts `args.uuid` as True.)
    (trial,) = cluster.trials(exp_id)
    det(cluster, "trial", "download", str(trial["id"]), "--latest", "-o", str(tmp_path / "latest"))
    assert (tmp_path / "latest" / "model.txt").read_text() == "step=1"

    created = json.loads(out(cluster, "model", "create", "upstream-model", "--description", "a model", "--json"))
    assert (created["name"], created["description"]) == ("upstream-model", "a model")
    rows = table_rows(out(cluster, "model", "list"))
    assert [r[1] for r in rows if r[0] == str(created["id"])] == ["upstream-model"]
    version = json.loads(out(cluster, "model", "register-version", "upstream-model", uuid, "--json"))["modelVersion"]
    assert version["version"] == 1 and version["checkpoint"]["uuid"] == uuid
    described = out(cluster, "model", "describe", "upstream-model")
    assert "upstream-model" in described and uuid in described
    versions = table_rows(out(cluster, "model", "list-versions", "upstream-model"))
    assert any(uuid in r for r in versions)
    cluster.session.post(f"{cluster.master_url}/api/v1/workspaces", json={"name": "model-ws"}, timeout=30)
    out(cluster, "model", "move", "upstream-model", "-w", "model-ws")
    assert cluster.get(f"/api/v1/models/{created['id']}")["model"]["workspaceId"] != 1
    det(cluster, "model", "delete", "upstream-model", input="y\n")
    assert "upstream-model" not in out(cluster, "model", "list")


def test_config_model_definition_wait_and_support_bundle(cluster, model_dir, tmp_path, monkeypatch):
    d, _ = model_dir
    exp_id = created_id(out(cluster, "experiment", "create", str(write_config(tmp_path, config("extras"))), str(d)))
    det(cluster, "experiment", "wait", str(exp_id), timeout=120)
    assert experiment(cluster, exp_id)["state"] == "STATE_COMPLETED"
    shown = yaml.safe_load(out(cluster, "experiment", "config", str(exp_id)))
    assert shown["name"] == "extras" and shown["searcher"]["metric"] == "loss"
    monkeypatch.chdir(tmp_path)  # the model definition is written to the working directory
    det(cluster, "experiment", "download-model-def", str(exp_id))
    with tarfile.open(tmp_path / f"experiment_{exp_id}_model_def.tgz") as tgz:
        assert "train.py" in [pathlib.PurePath(n).name for n in tgz.getnames()]
    (trial,) = cluster.trials(exp_id)
    bundle_dir = tmp_path / "bundle"
    bundle_dir.mkdir()
    assert "bundle path:" in out(cluster, "trial", "support-bundle", str(trial["id"]), "-o", str(bundle_dir))
    (bundle,) = bundle_dir.iterdir()
    with tarfile.open(bundle) as tgz:
        names = tgz.getnames()
    assert any("trial_logs" in n or "logs" in n for n in names), names
