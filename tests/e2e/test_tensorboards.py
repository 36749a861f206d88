"""TensorBoards around the server: a trial's event files reach checkpoint storage under
tensorboard/experiment/{id}/trial/{id}/, a TensorBoard task (0 slots) fetches them and, on these machines where
TensorBoard cannot be installed, fails at once with a message naming what is missing; bad requests are
refused with the field named."""
import pathlib
import shutil

import pytest

from conftest import local_cluster, wait_for

TRIAL = """
import determined as det

with det.core.init() as ctx:
    path = ctx.train.get_tensorboard_path()
    (path / "events.out.tfevents.test").write_bytes(b"not really an event file")
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("tb-cluster"), agents=1, slots=1) as c:
        yield c


@pytest.fixture(scope="module")
def experiment(cluster, tmp_path_factory):
    model = tmp_path_factory.mktemp("tb-model")
    (model / "trial.py").write_text(TRIAL)
    (model / "exp.yaml").write_text("name: tb\nentrypoint: python3 trial.py\nsearcher: {name: single, metric: loss}\n"
                                    "max_restarts: 0\n")
    exp_id = cluster.create_experiment(model / "exp.yaml", model)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    return exp_id


def test_a_trials_event_files_reach_checkpoint_storage(cluster, experiment):
    config = cluster.get(f"/api/v1/experiments/{experiment}")["config"]
    trial = cluster.trials(experiment)[0]["id"]
    stored = (pathlib.Path(config["checkpoint_storage"]["host_path"]) / "tensorboard" / "experiment" / str(experiment)
              / "trial" / str(trial) / "events.out.tfevents.test")
    assert stored.read_bytes() == b"not really an event file"


def test_delete_tb_files_removes_the_experiments_event_files(cluster, tmp_path):
    (tmp_path / "trial.py").write_text(TRIAL)
    (tmp_path / "exp.yaml").write_text("name: tb-gone\nentrypoint: python3 trial.py\n"
                                       "searcher: {name: single, metric: loss}\nmax_restarts: 0\n")
    exp_id = cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    host_path = pathlib.Path(cluster.get(f"/api/v1/experiments/{exp_id}")["config"]["checkpoint_storage"]["host_path"])
    files = host_path / "tensorboard" / "experiment" / str(exp_id)
    assert list(files.rglob("events.out.tfevents.test")), "the trial's event file was stored"
    out = cluster.det("experiment", "delete-tb-files", str(exp_id)).stdout
    assert "is in progress" in out, out
    wait_for(lambda: not any(p.is_file() for p in files.rglob("*")), "the TensorBoard files to be deleted")


@pytest.mark.skipif(shutil.which("tensorboard") is not None, reason="TensorBoard is installed here")
def test_a_tensorboard_fetches_the_files_and_fails_fast_without_tensorboard(cluster, experiment):
    resp = cluster.session.post(f"{cluster.master_url}/api/v1/tensorboards", json={"experimentIds": [experiment]},
                                timeout=60)
    assert resp.status_code == 200, resp.text
    tb = resp.json()["tensorboard"]
    assert tb["experimentIds"] == [experiment] and tb["serviceAddress"] == f"/proxy/{tb['id']}/"
    assert resp.json()["config"]["resources"]["slots"] == 0
    ended = wait_for(lambda: (t := cluster.get(f"/api/v1/tensorboards/{tb['id']}")["tensorboard"])["state"] ==
                     "STATE_TERMINATED" and t, "the TensorBoard task to end", timeout=60)
    assert ended["exitStatus"] == "exited with code 1", ended
    logs = cluster.det("task", "logs", tb["id"]).stdout
    assert "downloaded 1 files" in logs, logs
    assert "tensorboard is not installed" in logs, logs


def test_bad_tensorboard_requests_name_the_field(cluster):
    none = cluster.session.post(f"{cluster.master_url}/api/v1/tensorboards", json={}, timeout=30)
    assert none.status_code == 400 and "experimentIds or trialIds" in none.text, none.text
    unknown = cluster.session.post(f"{cluster.master_url}/api/v1/tensorboards", json={"experimentIds": [9999]},
                                   timeout=30)
    assert unknown.status_code == 404 and "experiment 9999 not found" in unknown.text, unknown.text


@pytest.mark.skipif(shutil.which("tensorboard") is not None, reason="TensorBoard is installed here")
def test_det_tensorboard_start_says_why_it_failed(cluster, experiment):
    started = cluster.det("tensorboard", "start", str(experiment), "--no-browser", check=False, timeout=120)
    assert started.returncode == 1, started.stdout + started.stderr
    assert "tensorboard is not installed" in started.stdout + started.stderr
