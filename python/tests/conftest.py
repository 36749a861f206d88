import http.server
import json
import os
import threading
import time

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


class _StandInMaster(http.server.BaseHTTPRequestHandler):
    """The master as a trial's harness sees it: every POST answered {} and kept as (path, body); the
    preemption long poll answered "no" after a short wait."""

    protocol_version = "HTTP/1.1"
    posts = []

    def _reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        _StandInMaster.posts.append((self.path, body))
        self._reply({})

    def do_GET(self):
        time.sleep(0.2)
        self._reply({"preempt": False})

    def log_message(self, *args):
        pass


@pytest.fixture
def stand_in_master(trial_env, monkeypatch):
    """A trial's environment whose DET_MASTER is a local stand-in; yields the (path, body) of each POST it
    received, in order."""
    _StandInMaster.posts = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _StandInMaster)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("DET_MASTER", f"http://127.0.0.1:{server.server_port}")
    yield _StandInMaster.posts
    server.shutdown()
