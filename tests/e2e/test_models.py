"""The model registry end to end: models are created, listed, described and moved with `det model`; a
finished experiment's checkpoint is registered as a version; the GC policy, `det checkpoint delete` and
deleting the experiment all spare a registered checkpoint, naming the model and version; once the
version is deleted the checkpoint can go."""
import json
import pathlib
import sys

from conftest import REPO, wait_for

sys.path.insert(0, str(REPO / "python"))

from determined.experimental import client  # noqa: E402

SCRIPT = """
import determined as det

with det.core.init() as ctx:
    for step in range(1, 5):
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": abs(step - 2) + 1.0})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "state").write_text(f"step={step}")
"""

CONFIG = """
name: registry
entrypoint: python3 train.py
searcher: {name: single, metric: loss}
max_restarts: 0
checkpoint_storage: {save_experiment_best: 1, save_trial_best: 0, save_trial_latest: 1}
"""


def completed(cluster, exp_id):
    """{steps_completed: uuid} of the experiment's COMPLETED checkpoints."""
    listed = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    return {c["metadata"]["steps_completed"]: c["uuid"] for c in listed if c["state"] == "STATE_COMPLETED"}


def on_disk(cluster):
    return {p.name for p in pathlib.Path(cluster.data_dir, "checkpoints").iterdir()}


def test_a_registered_checkpoint_is_spared_until_its_version_is_deleted(cluster, tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    (tmp_path / "registry.yaml").write_text(CONFIG)
    exp_id = cluster.create_experiment(tmp_path / "registry.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    kept = wait_for(lambda: (lambda c: c if set(c) == {2, 4} else None)(completed(cluster, exp_id)),
                    "the policy to keep the best and the latest checkpoint")

    created = json.loads(cluster.det("model", "create", "mnist cnn", "--description", "digits", "--json").stdout)
    assert (created["name"], created["workspaceId"], created["numVersions"]) == ("mnist cnn", 1, 0)
    taken = cluster.det("model", "create", "mnist cnn", check=False)
    assert taken.returncode != 0 and 'a model named "mnist cnn" already exists' in taken.stdout + taken.stderr
    digits = cluster.det("m", "create", "123", check=False)
    assert digits.returncode != 0 and "only digits" in digits.stdout + digits.stderr

    version = json.loads(cluster.det("model", "register-version", "mnist cnn", kept[4], "--json").stdout)
    assert version["version"] == 1 and version["checkpoint"]["uuid"] == kept[4]
    assert version["model"]["numVersions"] == 1
    gone = cluster.det("model", "register-version", "mnist cnn", "no-such-uuid", check=False)
    assert gone.returncode != 0 and "checkpoint no-such-uuid not found" in gone.stdout + gone.stderr
    assert "mnist cnn version 1" in cluster.det("checkpoint", "describe", kept[4]).stdout
    described = json.loads(cluster.det("model", "describe", "mnist cnn", "--json").stdout)
    assert described["modelVersion"]["version"] == 1 and described["model"]["id"] == created["id"]
    by_id = cluster.get(f"/api/v1/models/{created['id']}/versions/1")["modelVersion"]
    assert by_id["checkpoint"]["training"]["experimentId"] == exp_id
    listed = json.loads(cluster.det("model", "list-versions", "mnist cnn", "--json").stdout)
    assert [v["version"] for v in listed] == [1]
    assert "mnist cnn" in cluster.det("model", "list").stdout
    cluster.det("model", "download", "mnist cnn", "-o", str(tmp_path / "download"))
    assert (tmp_path / "download" / "state").read_text() == "step=4"

    # The GC policy, a checkpoint deletion and the experiment's deletion all spare it.
    cluster.det("experiment", "set", "gc-policy", str(exp_id), "--save-experiment-best", "0",
                "--save-trial-best", "0", "--save-trial-latest", "0", "--yes")
    wait_for(lambda: set(completed(cluster, exp_id)) == {4}, "the unregistered checkpoint to be collected")
    assert kept[4] in on_disk(cluster) and kept[2] not in on_disk(cluster)
    refused = cluster.det("checkpoint", "delete", kept[4], "--yes", check=False)
    why = f'checkpoint {kept[4]} is registered in model "mnist cnn" version 1'
    assert refused.returncode != 0 and why in refused.stdout + refused.stderr, refused
    refused = cluster.det("experiment", "delete", str(exp_id), "--yes", check=False)
    assert refused.returncode != 0 and why in refused.stdout + refused.stderr, refused
    # So is its project's deletion, before anything in it is deleted.
    cluster.det("workspace", "create", "holder")
    cluster.det("project", "create", "holder", "holder-project")
    cluster.det("experiment", "move", str(exp_id), "holder", "holder-project")
    refused = cluster.det("project", "delete", "holder", "holder-project", "--yes", check=False)
    assert refused.returncode != 0 and why in refused.stdout + refused.stderr, refused
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_COMPLETED"
    cluster.det("experiment", "move", str(exp_id), "Uncategorized", "Uncategorized")
    cluster.det("workspace", "delete", "holder", "--yes")

    # Moving to another workspace; a workspace holding a model is not deleted.
    cluster.det("workspace", "create", "registry-ws")
    out = cluster.det("model", "move", "mnist cnn", "-w", "registry-ws").stdout
    assert 'Moved model "mnist cnn" to workspace "registry-ws"' in out
    ws = cluster.get("/api/v1/workspaces", params={"name": "registry-ws"})["workspaces"][0]
    assert json.loads(cluster.det("model", "list", "-w", "registry-ws", "--json").stdout)[0]["workspaceId"] == ws["id"]
    held = cluster.det("workspace", "delete", "registry-ws", "--yes", check=False)
    assert held.returncode != 0 and '"mnist cnn" among them' in held.stdout + held.stderr

    # Archived: no new versions. Deleting the version frees the checkpoint.
    cluster.session.post(f"{cluster.master_url}/api/v1/models/mnist%20cnn/archive", timeout=30).raise_for_status()
    archived = cluster.det("model", "register-version", "mnist cnn", kept[4], check=False)
    assert archived.returncode != 0 and "is archived" in archived.stdout + archived.stderr
    cluster.session.post(f"{cluster.master_url}/api/v1/models/mnist%20cnn/unarchive", timeout=30).raise_for_status()
    resp = cluster.session.delete(f"{cluster.master_url}/api/v1/models/mnist%20cnn/versions/1", timeout=30)
    assert resp.status_code == 200, resp.text
    cluster.det("checkpoint", "delete", kept[4], "--yes")
    wait_for(lambda: not completed(cluster, exp_id), "the freed checkpoint to be deleted")
    assert kept[4] not in on_disk(cluster)
    out = cluster.det("model", "delete", "mnist cnn", "--yes").stdout
    assert 'Successfully deleted model "mnist cnn"' in out
    cluster.det("workspace", "delete", "registry-ws", "--yes")


def test_the_python_sdk_registers_and_reads_model_versions(cluster, tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    (tmp_path / "registry.yaml").write_text(CONFIG.replace("name: registry", "name: sdk-registry"))
    exp_id = cluster.create_experiment(tmp_path / "registry.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    uuid = wait_for(lambda: completed(cluster, exp_id).get(4), "the latest checkpoint")

    sdk = client.Determined(master=cluster.master_url, user="determined", password="")
    model = sdk.create_model("sdk model", description="from the SDK", labels=["a"], metadata={"k": 1})
    assert (model.name, model.description, model.labels, model.metadata) == ("sdk model", "from the SDK", ["a"],
                                                                              {"k": 1})
    assert model.get_version() is None
    version = model.register_version(uuid)
    assert version.model_version == 1 and version.checkpoint.uuid == uuid
    version.set_name("first")
    assert sdk.get_model("sdk model").get_version(1).name == "first"
    assert sdk.get_model_by_id(model.model_id).get_version().model_version == 1
    model.set_labels(["b", "a", "b"])
    model.add_metadata({"x": "y"})
    again = sdk.get_model(model.model_id)
    assert again.labels == ["b", "a"] and again.metadata == {"k": 1, "x": "y"}
    assert "b" in sdk.get_model_labels()
    assert [m.name for m in sdk.list_models(name="sdk model")] == ["sdk model"]
    assert [v.model_version for v in model.list_versions()] == [1]
    version.delete()
    model.delete()
    assert not sdk.list_models(name="sdk model")


INFERENCE_SCRIPT = """
import determined as det
from determined.experimental import client

with det.core.init() as ctx:
    version = client.get_model("served").get_version(1)
    ctx.experimental.report_task_using_model_version(version)
    ctx.experimental.report_task_using_checkpoint(version.checkpoint)
    ctx.train.report_metrics("inference", steps_completed=10, metrics={"accuracy": 0.75})
"""


def test_an_inference_trial_s_metrics_are_found_from_the_version_and_the_checkpoint(cluster, tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    (tmp_path / "registry.yaml").write_text(CONFIG.replace("name: registry", "name: trained"))
    exp_id = cluster.create_experiment(tmp_path / "registry.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    uuid = wait_for(lambda: completed(cluster, exp_id).get(4), "the latest checkpoint")
    sdk = client.Determined(master=cluster.master_url, user="determined", password="")
    version = sdk.create_model("served").register_version(uuid)
    assert list(version.get_metrics()) == [], "no trial used it yet"

    inference = tmp_path / "inference"
    inference.mkdir()
    (inference / "train.py").write_text(INFERENCE_SCRIPT)
    (inference / "inference.yaml").write_text(CONFIG.replace("name: registry", "name: inference"))
    inference_id = cluster.create_experiment(inference / "inference.yaml", inference)
    assert cluster.wait_for_experiment(inference_id) == "STATE_COMPLETED", cluster.trial_logs(cluster.trials(inference_id)[0]["id"])[-3000:]
    trial_id = cluster.get(f"/api/v1/experiments/{inference_id}/trials")["trials"][0]["id"]

    by_version = list(sdk.get_model("served").get_version(1).get_metrics("inference"))
    assert [(m.trial_id, m.total_batches, m.metrics, m.group) for m in by_version] == [
        (trial_id, 10, {"accuracy": 0.75}, "inference")]
    assert [m.trial_id for m in sdk.get_checkpoint(uuid).get_metrics()] == [trial_id], "linked twice, listed once"
    assert list(version.get_metrics("validation")) == []
    raw = cluster.get("/api/v1/models/served/versions/1/metrics",
                      params={"trialSourceInfoType": "TRIAL_SOURCE_INFO_TYPE_FINE_TUNING"})
    assert raw == {"metrics": []}

    bad = cluster.session.post(f"{cluster.master_url}/api/v1/trial-source-info", timeout=30, json={
        "trialSourceInfo": {"trialId": trial_id, "checkpointUuid": uuid, "trialSourceInfoType": "TRAINING"}})
    assert bad.status_code == 400 and "trialSourceInfoType" in bad.text

    # Deleting the version drops its links; the checkpoint's stay.
    version.delete()
    assert [m.trial_id for m in sdk.get_checkpoint(uuid).get_metrics("inference")] == [trial_id]
    sdk.get_model("served").delete()
