import os

import pytest

from determined import _info


@pytest.fixture(autouse=True)
def off_cluster(monkeypatch, tmp_path):
    """Every test starts off-cluster, with checkpoints defaulting into its temp dir."""
    for name in list(os.environ):
        if name.startswith("DET_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    _info._reset_cluster_info_for_test()
    yield
    _info._reset_cluster_info_for_test()


@pytest.fixture
def trial_env(monkeypatch):
    """The environment of a trial task, as the master and agent set it (docs/task-contract.md)."""
    env = {
        "DET_MASTER": "http://127.0.0.1:1",
        "DET_CLUSTER_ID": "cluster-1",
        "DET_MASTER_ID": "master-1",
        "DET_AGENT_ID": "agent-1",
        "DET_SLOT_IDS": "[0]",
        "DET_TASK_ID": "1.1",
        "DET_ALLOCATION_ID": "1.1.1",
        "DET_SESSION_TOKEN": "token",
        "DET_TASK_TYPE": "TRIAL",
        "DET_USER": "determined",
        "DET_EXPERIMENT_ID": "3",
        "DET_TRIAL_ID": "7",
        "DET_TRIAL_RUN_ID": "2",
        "DET_TRIAL_SEED": "1234",
        "DET_HPARAMS": '{"learning_rate": 0.1, "model": {"hidden": 8}}',
        "DET_EXPERIMENT_CONFIG": (
            '{"name": "t", "data": {"url": "x"}, "searcher": {"name": "single", '
            '"metric": "accuracy", "max_length": {"epochs": 4}}, '
            '"checkpoint_storage": {"type": "shared_fs", "host_path": "/tmp"}}'
        ),
        "DET_STEPS_COMPLETED": "90",
        "DET_LATEST_CHECKPOINT": "0b1f0b0e-0000-4000-8000-000000000001",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    _info._reset_cluster_info_for_test()
    return env
