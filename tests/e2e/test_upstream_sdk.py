"""Determined 0.38.1's own Python SDK (`determined.experimental.client`, unmodified) against our master, in
scripts run with `PYTHONPATH=<client>/site /usr/bin/python3`: login, experiments (create, wait, get, list,
trials, checkpoints and their download, metric streams, logs), models and versions, workspaces and
projects, users, and the bulk and chart endpoints its bindings call. Then upstream's own `determined`
package trains inside a task on our cluster (a Core API tutorial script): metrics, checkpoints, and a
pause that it notices, checkpoints on and resumes from."""
import json
import os
import subprocess
import textwrap

import pytest
import yaml

from conftest import REPO, stepper, wait_for
from upstream import check_reply, require_client, site_dir

require_client()

# Reports training and validation metrics (loss = scale / step) and a checkpoint at each of 3 steps, uploads a
# TensorBoard file, and prints a line the logs must show. (TensorBoard MANUAL: in AUTO mode upstream's
# core.init() needs the tensorboard package for its metric writer, which this machine lacks.)
TRAIN = """
import determined as det

info = det.get_cluster_info()
scale = info.trial.hparams["scale"]
with det.core.init(tensorboard_mode=det.core.TensorboardMode.MANUAL) as ctx:
    tb = ctx.train.get_tensorboard_path()
    tb.mkdir(parents=True, exist_ok=True)
    (tb / "events.out.tfevents.test").write_text("event")
    ctx.train.upload_tensorboard_files()
    for step in range(1, 4):
        ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": scale / step})
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": scale / step})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "model.txt").write_text(f"scale={scale} step={step}")
    print("sdk trial done with scale", scale, flush=True)
"""


def sdk(cluster, script, user="determined", password=""):
    """Runs `script` with upstream's SDK on the path; returns the JSON its last line printed."""
    env = dict(os.environ, PYTHONPATH=str(site_dir()), DET_MASTER=cluster.master_url, DET_USER=user,
               DET_PASS=password, HOME=os.environ.get("HOME", "/tmp"))
    proc = subprocess.run(["/usr/bin/python3", "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          env=env, timeout=240)
    assert proc.returncode == 0, f"upstream SDK script failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def sdk_argv(cluster, script, *argv):
    """sdk() with arguments for the script (sys.argv[1:])."""
    env = dict(os.environ, PYTHONPATH=str(site_dir()), DET_MASTER=cluster.master_url, DET_USER="determined",
               DET_PASS="")
    proc = subprocess.run(["/usr/bin/python3", "-c", textwrap.dedent(script), *argv], capture_output=True,
                          text=True, env=env, timeout=240)
    assert proc.returncode == 0, f"upstream SDK script failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def grid(cluster, tmp_path_factory):
    """A finished grid search of two trials (scale 1 and 2), created and awaited with upstream's SDK."""
    d = tmp_path_factory.mktemp("grid")
    (d / "train.py").write_text(TRAIN)
    config = {"name": "upstream-sdk-grid", "entrypoint": "python3 train.py", "max_restarts": 0,
              "hyperparameters": {"scale": {"type": "categorical", "vals": [2, 1]}},
              "searcher": {"name": "grid", "metric": "loss", "smaller_is_better": True, "max_concurrent_trials": 2},
              "checkpoint_storage": {"save_trial_latest": 3}}
    return sdk(cluster, f"""
        import json
        from determined.experimental import client
        client.login()
        exp = client.create_experiment(config=json.loads({json.dumps(config)!r}), model_dir={str(d)!r})
        state = exp.wait(interval=0.2)
        print(json.dumps({{"id": exp.id, "state": state.value}}))
    """)


def test_experiments_trials_checkpoints_metrics_and_logs(cluster, grid, tmp_path):
    assert grid["state"] == "STATE_COMPLETED"
    got = sdk(cluster, f"""
        import json
        from determined.experimental import client
        client.login(user="determined", password="")
        exp = client.get_experiment({grid["id"]})
        listed = [e.id for e in client.list_experiments()]
        trials = exp.list_trials()
        best = exp.list_checkpoints(max_results=1)[0]
        top = client.get_trial(trials[0].id).top_checkpoint()
        path = best.download({str(tmp_path / "best")!r})
        via_master = best.download({str(tmp_path / "via-master")!r}, mode=client.DownloadMode.MASTER)
        out = {{
            "name": exp.name, "state": exp.state.value, "listed": listed,
            "trials": sorted((t.hparams["scale"], t.state.value, t.id) for t in trials),
            "best": [best.uuid, best.training.trial_id, best.metadata["steps_completed"], str(path)],
            "via_master": str(via_master),
            "top_of_first_trial": top.training.trial_id,
            "metrics": {{}}, "logs": {{}},
        }}
        for t in trials:
            out["metrics"][t.id] = {{
                "training": [(m.steps_completed, m.metrics["loss"], m.batch_metrics, m.group)
                             for m in t.iter_metrics("training")],
                "validation": [(m.steps_completed, m.metrics["loss"]) for m in t.iter_metrics("validation")],
            }}
            out["logs"][t.id] = list(t.iter_logs())
        ids = [t.id for t in trials]
        out["stream_training"] = sorted((m.trial_id, m.steps_completed) for m in client.stream_trials_training_metrics(ids))
        out["stream_validation"] = sorted((m.trial_id, m.metrics["loss"]) for m in client.stream_trials_validation_metrics(ids))
        print(json.dumps(out))
    """)
    assert got["name"] == "upstream-sdk-grid" and got["state"] == "STATE_COMPLETED"
    assert grid["id"] in got["listed"]
    assert [(s, st) for s, st, _ in got["trials"]] == [(1, "STATE_COMPLETED"), (2, "STATE_COMPLETED")]
    by_scale = {s: tid for s, _, tid in got["trials"]}
    # The best checkpoint: scale 1 at step 3 (loss 1/3), downloaded with its file.
    uuid, trial_id, steps, path = got["best"]
    assert (trial_id, steps) == (by_scale[1], 3)
    assert open(os.path.join(path, "model.txt")).read() == "scale=1 step=3"
    # Through the master (GET /checkpoints/{uuid}, a tar.gz): the same files, and the metadata the SDK writes.
    assert sorted(os.listdir(got["via_master"])) == ["metadata.json", "model.txt"]
    assert open(os.path.join(got["via_master"], "model.txt")).read() == "scale=1 step=3"
    assert got["top_of_first_trial"] in by_scale.values()
    for scale, tid in by_scale.items():
        m = got["metrics"][str(tid)]
        # Upstream's stream shows batch_metrics null where none were reported (never []).
        assert m["training"] == [[s, scale / s, None, "training"] for s in (1, 2, 3)]
        assert m["validation"] == [[s, scale / s] for s in (1, 2, 3)]
        assert any(f"sdk trial done with scale {scale}" in line for line in got["logs"][str(tid)])
    assert got["stream_training"] == sorted([tid, s] for tid in by_scale.values() for s in (1, 2, 3))
    assert got["stream_validation"] == sorted([by_scale[sc], sc / s] for sc in (1, 2) for s in (1, 2, 3))

    check_reply("v1GetExperimentsResponse", cluster.get("/api/v1/experiments"), "GET /api/v1/experiments")
    check_reply("v1GetExperimentTrialsResponse", cluster.get(f"/api/v1/experiments/{grid['id']}/trials"),
                "GET /api/v1/experiments/{id}/trials")
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/trials/metrics/trial_metrics",
                               params={"trialIds": by_scale[1], "group": "training"}, timeout=30)
    check_reply("v1GetMetricsResponse",
                json.loads(resp.text.splitlines()[0])["result"], "GET /api/v1/trials/metrics/trial_metrics")


def test_models_and_versions(cluster, grid):
    got = sdk(cluster, f"""
        import json
        from determined.experimental import client
        client.login()
        exp = client.get_experiment({grid["id"]})
        ckpt = exp.list_checkpoints(max_results=1)[0]
        model = client.create_model("upstream-sdk-model", description="first", metadata={{"k": "v"}})
        v1 = model.register_version(ckpt.uuid)
        model.set_description("second")
        model.add_metadata({{"k2": 2}})
        model.set_labels(["a", "b"])
        model.archive()
        archived = client.get_model("upstream-sdk-model").archived
        model.unarchive()
        got = client.get_model("upstream-sdk-model")
        versions = [(v.model_version, v.checkpoint.uuid) for v in got.list_versions()]
        names = [m.name for m in client.list_models()]
        by_id = client.get_model_by_id(got.model_id).name
        latest = got.get_version().checkpoint.uuid
        got.delete()
        after = [m.name for m in client.list_models()]
        print(json.dumps({{"uuid": ckpt.uuid, "v1": v1.model_version, "archived": archived,
                          "description": got.description, "metadata": got.metadata, "labels": got.labels,
                          "versions": versions, "names": names, "by_id": by_id, "latest": latest,
                          "after": after}}))
    """)
    assert got["v1"] == 1 and got["archived"] is True
    assert (got["description"], got["metadata"], sorted(got["labels"])) == ("second", {"k": "v", "k2": 2}, ["a", "b"])
    assert got["versions"] == [[1, got["uuid"]]] and got["latest"] == got["uuid"]
    assert "upstream-sdk-model" in got["names"] and got["by_id"] == "upstream-sdk-model"
    assert "upstream-sdk-model" not in got["after"]


def test_workspaces_projects_and_users(cluster, grid):
    got = sdk(cluster, f"""
        import json
        from determined.experimental import client
        client.login()
        uncategorized = client.get_workspace("Uncategorized")
        ws = client.create_workspace("upstream-sdk-ws")
        project = ws.create_project("sdk-proj", description="made by the SDK")
        project.set_description("changed")
        project.set_key("SDKP")
        again = ws.get_project("sdk-proj")
        exp = client.get_experiment({grid["id"]})
        exp.move_to_project("upstream-sdk-ws", "sdk-proj")
        in_project = [e.id for e in again.list_experiments()]
        exp.move_to_project("Uncategorized", "Uncategorized")
        project.archive()
        again.reload()
        archived = again.archived
        project.unarchive()
        me = client.whoami()
        out = {{
            "uncategorized": [uncategorized.id, uncategorized.name],
            "workspaces": sorted(w.name for w in client.list_workspaces()),
            "projects": sorted(p.name for p in ws.list_projects()),
            "project": [again.id, again.name, again.description, again.key, again.workspace_id],
            "in_project": in_project, "archived": archived,
            "me": me.username,
        }}
        ws.delete_project("sdk-proj")
        out["projects_after"] = [p.name for p in ws.list_projects()]
        client.logout()
        client.login(user="admin", password="")
        user = client.create_user("upstream-sdk-user", admin=False, password="Passw0rd-long")
        found = client.get_user_by_name("upstream-sdk-user")
        out["user"] = [user.username, found.user_id == user.user_id, user.admin]
        out["users"] = sorted(u.username for u in client.list_users())
        print(json.dumps(out))
    """)
    assert got["uncategorized"] == [1, "Uncategorized"]
    assert got["workspaces"] == ["Uncategorized", "upstream-sdk-ws"]
    assert got["projects"] == ["sdk-proj"]
    pid, name, description, key, workspace_id = got["project"]
    assert (name, description, key) == ("sdk-proj", "changed", "SDKP") and workspace_id != 1
    assert got["in_project"] == [grid["id"]] and got["archived"] is True
    assert got["me"] == "determined" and got["user"] == ["upstream-sdk-user", True, False]
    assert {"admin", "determined", "upstream-sdk-user"} <= set(got["users"])
    assert got["projects_after"] == []


def test_bulk_actions_columns_ranges_and_metric_streams(cluster, grid, tmp_path):
    got = sdk(cluster, f"""
        import json
        from determined.common.api import bindings
        from determined.experimental import client
        client.login()
        sess = client._determined._session
        exp_id = {grid["id"]}
        cols = bindings.get_GetProjectColumns(sess, id=1)
        ranges = bindings.get_GetProjectNumericMetricsRange(sess, id=1)
        batches = list(bindings.get_MetricBatches(sess, experimentId=exp_id, metricName="loss", group="validation"))
        snapshot = list(bindings.get_TrialsSnapshot(sess, experimentId=exp_id, metricName="loss", batchesProcessed=2,
                                                    metricType=bindings.v1MetricType.VALIDATION))
        sample = list(bindings.get_TrialsSample(sess, experimentId=exp_id, metricName="loss", group="training",
                                                maxDatapoints=2))
        archived = bindings.post_ArchiveExperiments(sess, projectId=1,
                                                    body=bindings.v1ArchiveExperimentsRequest(experimentIds=[exp_id], projectId=1))
        is_archived = client.get_experiment(exp_id).archived
        unarchived = bindings.post_UnarchiveExperiments(sess, projectId=-1,
            body=bindings.v1UnarchiveExperimentsRequest(experimentIds=[exp_id], projectId=1))
        by_filter = bindings.post_ArchiveExperiments(sess, projectId=1,
            body=bindings.v1ArchiveExperimentsRequest(experimentIds=[], projectId=1,
                filters=bindings.v1BulkExperimentFilters(name="upstream-sdk-grid")))
        bindings.post_UnarchiveExperiments(sess, projectId=1,
            body=bindings.v1UnarchiveExperimentsRequest(experimentIds=[exp_id], projectId=1))
        killed = bindings.post_KillExperiments(sess, projectId=1,
            body=bindings.v1KillExperimentsRequest(experimentIds=[exp_id, 987654], projectId=1))
        print(json.dumps({{
            "columns": {{c.column: [c.location.value, c.type.value] for c in cols.columns}},
            "ranges": {{r.metricsName: [r.min, r.max] for r in ranges.ranges}},
            "batches": [b.batches for b in batches],
            "snapshot": sorted((t.hparams["scale"], t.metric, t.batchesProcessed) for t in snapshot[0].trials),
            "sample": sorted((t.hparams["scale"], [d.batches for d in t.data], [d.values["loss"] for d in t.data])
                             for t in sample[0].trials),
            "promoted": sorted(sample[0].promotedTrials),
            "archived": [(r.id, r.error) for r in archived.results], "is_archived": is_archived,
            "unarchived": [(r.id, r.error) for r in unarchived.results],
            "by_filter": [(r.id, r.error) for r in by_filter.results],
            "killed": [(r.id, bool(r.error)) for r in killed.results],
        }}))
    """)
    cols = got["columns"]
    assert cols["id"] == ["LOCATION_TYPE_EXPERIMENT", "COLUMN_TYPE_NUMBER"]
    assert cols["hp.scale"] == ["LOCATION_TYPE_HYPERPARAMETERS", "COLUMN_TYPE_NUMBER"]
    assert cols["validation.loss"] == ["LOCATION_TYPE_VALIDATIONS", "COLUMN_TYPE_NUMBER"]
    assert cols["training.loss"] == ["LOCATION_TYPE_TRAINING", "COLUMN_TYPE_NUMBER"]
    assert got["ranges"]["validation.loss"] == [pytest.approx(1 / 3), 2.0]
    assert got["batches"] == [[1, 2, 3]]
    assert got["snapshot"] == [[1, 0.5, 2], [2, 1.0, 2]]
    assert got["sample"] == [[1, [1, 3], [1.0, pytest.approx(1 / 3)]], [2, [1, 3], [2.0, pytest.approx(2 / 3)]]]
    assert len(got["promoted"]) == 2
    assert got["archived"] == [[grid["id"], ""]] and got["is_archived"] is True
    assert got["unarchived"] == [[grid["id"], ""]]
    assert got["by_filter"] == [[grid["id"], ""]]
    # A finished experiment cannot be killed, and an unknown one is not found: each result says so.
    assert got["killed"] == [[grid["id"], True], [987654, True]]
    check_reply("v1GetProjectColumnsResponse", cluster.get("/api/v1/projects/1/columns"), "GET columns")


# Upstream's container entrypoint (determined.exec.prep_container) writes the task's ClusterInfo, TrialInfo
# and RendezvousInfo, read from its DET_* variables, to /run/determined/info/ before the user's script runs,
# and upstream's det.get_cluster_info() reads them there. Our agent runs a task as a process, with no such
# directory of its own; this launcher loads them the same way, from the same variables, then runs the script.
LAUNCH = """
import json
import os
import runpy
import sys

import determined as det
from determined import _info

print("determined from", det.__file__, flush=True)
info = det.ClusterInfo._from_env()
info._trial_info = det.TrialInfo._from_env()
info._rendezvous_info = _info.RendezvousInfo(**json.loads(os.environ["DET_RENDEZVOUS_INFO"]))
info._resources_info = _info.ResourcesInfo(gpu_uuids=[])
_info._info = info
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def upstream_storage(path):
    """Checkpoint storage that upstream's harness and our master find at the same place: upstream's harness
    writes shared_fs storage under /determined_shared_fs, the mount point of host_path in upstream's
    containers, which our agent's processes do not have; a `directory` storage is used as it is named."""
    path.mkdir(parents=True, exist_ok=True)
    return {"type": "directory", "container_path": str(path)}


def upstream_entrypoint(model_dir):
    """train.py run by upstream's own `determined` package (first on the path, set up by LAUNCH). (Not
    environment_variables: [PYTHONPATH=...]: the agent puts our harness ahead of the user's PYTHONPATH, where
    upstream's image has its package in site-packages, after it.)"""
    (model_dir / "launch.py").write_text(LAUNCH)
    return f"env PYTHONPATH={site_dir()} python3 launch.py train.py"


def test_upstream_harness_trains_in_a_task(cluster, tmp_path):
    """examples/core_api/2_checkpoints.py, a Core API tutorial script, run with upstream's own `determined`
    package in the task: it reports metrics and checkpoints, notices a pause (preemption), checkpoints,
    exits, and resumes from its checkpoint when activated."""
    d = tmp_path / "core"
    d.mkdir()
    script = (REPO / "examples" / "core_api" / "2_checkpoints.py").read_text()
    # TensorBoard MANUAL: in AUTO mode upstream's core.init() needs the tensorboard package, absent here.
    (d / "train.py").write_text(script.replace(
        "det.core.init()", "det.core.init(tensorboard_mode=det.core.TensorboardMode.MANUAL)").replace(
        "SECONDS_PER_STEP = 0.05", "SECONDS_PER_STEP = 0.1"))
    config = {"name": "upstream-harness", "entrypoint": upstream_entrypoint(d), "max_restarts": 0,
              "checkpoint_storage": upstream_storage(tmp_path / "storage"),
              "searcher": {"name": "single", "metric": "x", "smaller_is_better": False}}
    (d / "exp.yaml").write_text(yaml.safe_dump(config))
    exp_id = cluster.create_experiment(d / "exp.yaml", d)
    trial = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")

    def checkpoints():
        return cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]

    wait_for(lambda: checkpoints(), "a first checkpoint", timeout=60)
    cluster.det("experiment", "pause", str(exp_id))
    wait_for(lambda: cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_PAUSED",
             "the pause", timeout=60)
    wait_for(lambda: "preempted at step" in cluster.trial_logs(trial["id"]), "the preemption to be noticed",
             timeout=60)
    cluster.det("experiment", "activate", str(exp_id))
    assert cluster.wait_for_experiment(exp_id, timeout=120) == "STATE_COMPLETED"

    logs = cluster.trial_logs(trial["id"])
    assert f"determined from {site_dir()}/determined/__init__.py" in logs, logs[-2000:]
    assert "resuming from checkpoint" in logs and "done: x=100" in logs
    training = cluster.metrics(trial["id"], "training")
    assert [m["totalBatches"] for m in training] == sorted({m["totalBatches"] for m in training})
    assert training[-1]["totalBatches"] == 100 and training[-1]["metrics"] == {"x": 100}
    assert [m["metrics"] for m in cluster.metrics(trial["id"], "validation")] == [{"x": 100}]
    steps = sorted(c["metadata"]["steps_completed"] for c in checkpoints())
    assert steps[-1] == 100 and set(steps) <= set(range(10, 101, 10))
    last = next(c for c in checkpoints() if c["metadata"]["steps_completed"] == 100)
    assert set(last["resources"]) == {"state.json", "metadata.json"}
    assert json.loads((tmp_path / "storage" / last["uuid"] / "state.json").read_text()) == {
        "x": 100, "steps_completed": 100}


def test_deleting_an_experiment_deletes_the_tensorboard_files_upstreams_harness_wrote(cluster, tmp_path):
    d = tmp_path / "tb"
    d.mkdir()
    (d / "train.py").write_text(TRAIN)
    storage = tmp_path / "storage"
    config = {"name": "upstream-tb", "entrypoint": upstream_entrypoint(d), "max_restarts": 0,
              "checkpoint_storage": upstream_storage(storage),
              "hyperparameters": {"scale": 1},
              "searcher": {"name": "single", "metric": "loss"}}
    (d / "exp.yaml").write_text(yaml.safe_dump(config))
    exp_id = cluster.create_experiment(d / "exp.yaml", d)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    checkpoints = [p.name for p in storage.iterdir() if (p / "model.txt").exists()]
    assert len(checkpoints) >= 1, "upstream's harness stored its checkpoints in the experiment's storage"

    def tb_files():
        return [p for p in storage.rglob("*") if p.is_file() and f"/tensorboard/experiment/{exp_id}/" in str(p)]

    written = wait_for(tb_files, "upstream's harness to upload its TensorBoard file")
    assert [p.name for p in written] == ["events.out.tfevents.test"]
    sdk(cluster, f"""
        from determined.experimental import client
        client.login()
        client.get_experiment({exp_id}).delete()
        print("{{}}")
    """)
    wait_for(lambda: cluster.session.get(f"{cluster.master_url}/api/v1/experiments/{exp_id}",
                                         timeout=30).status_code == 404, "the experiment to be deleted")
    assert tb_files() == []


def test_bulk_state_changes_of_live_experiments(cluster, tmp_path):
    """Upstream's bulk pause, activate, kill and delete by id (project -1: any project) and by filters,
    through its bindings, on running experiments: each result names its experiment, the states follow."""
    (tmp_path / "train.py").write_text(stepper(600))
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump({
        "name": "upstream-bulk", "entrypoint": "python3 train.py", "max_restarts": 0,
        "searcher": {"name": "single", "metric": "loss"}}))
    ids = [cluster.create_experiment(tmp_path / "exp.yaml", tmp_path) for _ in range(2)]

    def states():
        return [cluster.get(f"/api/v1/experiments/{i}")["experiment"]["state"] for i in ids]

    wait_for(lambda: all(s == "STATE_RUNNING" for s in states()), "both experiments to run")
    bulk = f"""
        import json, sys
        from determined.common.api import bindings
        from determined.experimental import client
        client.login()
        sess = client._determined._session
        ids = {ids}
        verb = sys.argv[1]
        if verb == "pause":
            resp = bindings.post_PauseExperiments(sess, projectId=-1,
                body=bindings.v1PauseExperimentsRequest(experimentIds=ids, projectId=-1))
        elif verb == "activate":
            resp = bindings.post_ActivateExperiments(sess, projectId=1,
                body=bindings.v1ActivateExperimentsRequest(experimentIds=[], projectId=1,
                    filters=bindings.v1BulkExperimentFilters(name="upstream-bulk", states=[
                        bindings.experimentv1State.PAUSED])))
        elif verb == "kill":
            resp = bindings.post_KillExperiments(sess, projectId=1,
                body=bindings.v1KillExperimentsRequest(experimentIds=ids, projectId=1))
        else:
            resp = bindings.delete_DeleteExperiments(sess, projectId=1,
                body=bindings.v1DeleteExperimentsRequest(experimentIds=ids, projectId=1))
        print(json.dumps(sorted((r.id, r.error) for r in resp.results)))
    """
    ok = [[i, ""] for i in sorted(ids)]
    assert sdk_argv(cluster, bulk, "pause") == ok
    wait_for(lambda: states() == ["STATE_PAUSED"] * 2, "both to pause")
    assert sdk_argv(cluster, bulk, "activate") == ok
    wait_for(lambda: all(s in ("STATE_ACTIVE", "STATE_RUNNING", "STATE_QUEUED") for s in states()),
             "both to be active")
    assert sdk_argv(cluster, bulk, "kill") == ok
    wait_for(lambda: states() == ["STATE_CANCELED"] * 2, "both to be killed")
    assert sdk_argv(cluster, bulk, "delete") == ok
    wait_for(lambda: all(cluster.session.get(f"{cluster.master_url}/api/v1/experiments/{i}", timeout=30).status_code
                         == 404 for i in ids), "both to be deleted")
