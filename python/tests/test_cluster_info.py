"""det.get_cluster_info() on a cluster, parsed by libdetermined from the task environment."""

import pytest

import determined as det
from determined import core


def test_trial_cluster_info(trial_env):
    info = det.get_cluster_info()
    assert info is not None
    assert info.master_url == "http://127.0.0.1:1"
    assert info.cluster_id == "cluster-1"
    assert info.agent_id == "agent-1"
    assert info.slot_ids == [0]
    assert info.task_id == "1.1"
    assert info.allocation_id == "1.1.1"
    assert info.session_token == "token"
    assert info.task_type == "TRIAL"
    assert info.latest_checkpoint == "0b1f0b0e-0000-4000-8000-000000000001"
    assert info.user_data == {"url": "x"}
    t = info.trial
    assert (t.trial_id, t.experiment_id, t.trial_seed) == (7, 3, 1234)
    assert t.hparams == {"learning_rate": 0.1, "model": {"hidden": 8}}
    assert t.config["name"] == "t" and t._config is t.config
    assert t.steps_completed == 90 and t._steps_completed == 90
    assert t.trial_run_id == 2 and t._trial_run_id == 2
    assert det.get_cluster_info() is info  # cached


def test_gpu_uuids_are_the_tasks_visible_gpus(trial_env, monkeypatch):
    info = det.get_cluster_info()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-703306b3-2fac-7329-2445-8eeb1fd75108,MIG-0000")
    assert info.gpu_uuids == ["GPU-703306b3-2fac-7329-2445-8eeb1fd75108", "MIG-0000"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert info.gpu_uuids == []


def test_missing_variables_are_named(trial_env, monkeypatch):
    monkeypatch.delenv("DET_HPARAMS")
    with pytest.raises(RuntimeError, match="DET_HPARAMS"):
        det.get_cluster_info()


def test_non_trial_task(trial_env, monkeypatch):
    for name in list(trial_env):
        if name.startswith("DET_TRIAL") or name in (
            "DET_EXPERIMENT_ID",
            "DET_HPARAMS",
            "DET_EXPERIMENT_CONFIG",
            "DET_STEPS_COMPLETED",
        ):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DET_TASK_TYPE", "COMMAND")
    info = det.get_cluster_info()
    assert info.task_type == "COMMAND"
    assert info.latest_checkpoint is None
    assert info.user_data == {}
    with pytest.raises(RuntimeError):
        info.trial


def test_searcher_from_max_length(trial_env, tmp_path):
    # init() talks to no one until something is reported; the master here is unreachable.
    ctx = core.init(checkpoint_storage=str(tmp_path))
    assert ctx.info is det.get_cluster_info()
    assert ctx.searcher is not None
    assert ctx.searcher.get_configured_units() is core.Unit.EPOCHS
    with pytest.warns(FutureWarning):
        ops = ctx.searcher.operations()
        op = next(ops)
    assert op.length == 4
    ctx.close()
