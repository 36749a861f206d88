"""The web UI in a real browser: Chromium (Debian's) driven by npm playwright-core
(webui/e2e/webui.e2e.mjs) against a real master and agent running real experiments. It signs in,
finds an experiment in the list, opens it and sees its learning curve, reads a trial's logs,
reorders the job queue, kills a running experiment and sees its state change, and sees the kill
arrive in the followed logs of its trial. It also browses a workspace and its project (holding the
metrics experiment, moved there) and a model whose version is the metrics experiment's checkpoint.
Screenshots go to $WEBUI_SCREENSHOT_DIR (default: the test's temp dir)."""
import os
import pathlib

import pytest

from conftest import local_cluster, run_browser_script, stepper, wait_for


METRICS_SCRIPT = """
import determined as det
with det.core.init() as ctx:
    for step in range(1, 21):
        ctx.train.report_training_metrics(steps_completed=step * 10, metrics={"loss": 1.0 / step, "acc": step / 20})
    ctx.train.report_validation_metrics(steps_completed=200, metrics={"loss": 0.05})
    with ctx.checkpoint.store_path({"steps_completed": 200}) as (path, uuid):
        (path / "state").write_text("step=200")
    print("webui e2e: training done", flush=True)
"""


def set_up_workspace_and_model(cluster, metrics_exp):
    """Through the REST API: a workspace with a project that the finished metrics experiment moves
    into, and a model whose version 1 is that experiment's checkpoint. Returns the node script's
    environment variables naming them."""
    def post(path, body):
        resp = cluster.session.post(cluster.master_url + path, json=body, timeout=30)
        assert resp.ok, f"POST {path}: {resp.status_code} {resp.text}"
        return resp.json()

    def completed_checkpoint():
        listed = cluster.get(f"/api/v1/experiments/{metrics_exp}/checkpoints")["checkpoints"]
        return next((c["uuid"] for c in listed if c["state"] == "STATE_COMPLETED"), None)

    uuid = wait_for(completed_checkpoint, "the metrics experiment's checkpoint")
    workspace = post("/api/v1/workspaces", {"name": "webui-workspace"})["workspace"]
    project = post(f"/api/v1/workspaces/{workspace['id']}/projects", {"name": "webui-project"})["project"]
    post(f"/api/v1/experiments/{metrics_exp}/move", {"destinationProjectId": project["id"]})
    moved = cluster.get(f"/api/v1/experiments/{metrics_exp}")["experiment"]
    assert (moved["projectId"], moved["workspaceName"]) == (project["id"], "webui-workspace"), moved
    model_name = "webui model"  # a space: the UI's links and requests must encode it
    post("/api/v1/models", {"name": model_name, "description": "the web UI's e2e model"})
    version = post(f"/api/v1/models/{model_name}/versions", {"checkpointUuid": uuid})["modelVersion"]
    assert (version["version"], version["checkpoint"]["uuid"]) == (1, uuid), version
    return {"WORKSPACE_ID": str(workspace["id"]), "WORKSPACE_NAME": workspace["name"],
            "PROJECT_ID": str(project["id"]), "PROJECT_NAME": project["name"],
            "MODEL_NAME": model_name, "MODEL_VERSION": "1", "CHECKPOINT_UUID": uuid}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # One agent with one slot: a running experiment holds it and two more wait in the queue.
    with local_cluster(tmp_path_factory.mktemp("webui"), agents=1, slots=1) as c:
        yield c


def test_webui_in_a_browser(cluster, tmp_path):
    metrics_exp, metrics_trial = cluster.run_script(tmp_path, "webui-metrics", METRICS_SCRIPT)
    assert cluster.wait_for_experiment(metrics_exp, timeout=300) == "STATE_COMPLETED", cluster.trial_logs(metrics_trial)
    registry = set_up_workspace_and_model(cluster, metrics_exp)

    (tmp_path / "stepper.py").write_text(stepper(3000))
    ids = {}
    for name in ("webui-running", "webui-queued-a", "webui-queued-b"):
        (tmp_path / f"{name}.yaml").write_text(
            f"name: {name}\nentrypoint: python3 stepper.py\nsearcher: {{name: single, metric: loss}}\nmax_restarts: 0\n")
        ids[name] = cluster.create_experiment(tmp_path / f"{name}.yaml", tmp_path)
        if name == "webui-running":
            running_trial = wait_for(lambda: (cluster.trials(ids[name]) or [None])[0], "the running trial")["id"]
            wait_for(lambda: "running from step 0" in cluster.trial_logs(running_trial), "the trial to run", timeout=120)

    def queued_names():
        return [j["full"]["name"] for j in cluster.get("/api/v1/job-queues-v2")["jobs"]
                if j["full"]["summary"]["state"] == "STATE_QUEUED"]
    wait_for(lambda: queued_names() == ["webui-queued-a", "webui-queued-b"], "two queued jobs")

    shots = pathlib.Path(os.environ.get("WEBUI_SCREENSHOT_DIR", tmp_path / "screenshots"))
    result = run_browser_script(
        "webui.e2e.mjs", shots, DET_MASTER=cluster.master_url, DET_USER="determined", DET_PASSWORD="",
        METRICS_EXP=str(metrics_exp), METRICS_NAME="webui-metrics", METRICS_TRIAL=str(metrics_trial),
        LOG_LINE="webui e2e: training done", RUNNING_EXP=str(ids["webui-running"]), RUNNING_TRIAL=str(running_trial),
        QUEUED_JOBS="webui-queued-a,webui-queued-b", **registry)
    print("webui e2e timings:", result["timings"])
    assert result["timings"]["chartPoints"] >= 20

    # What the browser did, seen through the API.
    state = cluster.get(f"/api/v1/experiments/{ids['webui-running']}")["experiment"]["state"]
    assert state in ("STATE_STOPPING_CANCELED", "STATE_CANCELED")
    assert cluster.wait_for_experiment(ids["webui-running"], timeout=120) == "STATE_CANCELED"
    names = [j["full"]["name"] for j in cluster.get("/api/v1/job-queues-v2")["jobs"]]
    assert names.index("webui-queued-b") < names.index("webui-queued-a"), names
    for name in ("webui-queued-a", "webui-queued-b"):
        cluster.session.post(f"{cluster.master_url}/api/v1/experiments/{ids[name]}/kill", timeout=30)
