"""On-cluster metric reports: what reaches the master's metrics routes.

The values are converted in libdetermined (not through JSON text); what arrives must be exactly what
util.make_jsonable makes of them. The master here is a recording HTTP server: only the report bodies
are under test.
"""

import enum
import http.server
import json
import logging
import math
import pathlib
import threading

import numpy as np
import pytest
import torch

from determined import util
from determined._native import native
from determined.core._train import TrainContext


class _Color(str, enum.Enum):
    RED = "red"


class _Recorder(http.server.BaseHTTPRequestHandler):
    reports = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Recorder.reports.extend(body["reports"] if self.path.endswith("/batch") else [body])
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture
def train():
    _Recorder.reports = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    native_ctx = native().TrainContext(f"http://127.0.0.1:{server.server_port}", "token", 7, 2, 3)
    yield TrainContext(native_ctx, 7, pathlib.Path("/tmp"))
    native_ctx.close()
    server.shutdown()


def test_values_arrive_as_make_jsonable_makes_them(train):
    metrics = {
        "float": 0.25,
        "int": 3,
        "big": 2**70,
        "bool": True,
        "none": None,
        "str": "x",
        "inf": math.inf,
        "-inf": -math.inf,
        "nan": float("nan"),
        "np_float32": np.float32(1.5),
        "np_int64": np.int64(4),
        "np_bool": np.bool_(False),
        "tensor": torch.tensor(0.5),
        "vector": torch.tensor([1, 2]),
        "nested": {1: (np.float64(2.5), [None, "y"])},
        "object": pathlib.Path("/a"),
        "str_enum": _Color.RED,
    }
    batch = [{"loss": np.float32(0.75)}, {"loss": 1}]
    train.report_training_metrics(steps_completed=5, metrics=metrics, batch_metrics=batch)
    train.report_metrics("inference", 6, {"latency": np.float64(0.125)})
    train.report_validation_metrics(steps_completed=7, metrics={"accuracy": torch.tensor(0.875)})
    train._native.flush()

    by_group = {r["group"]: r["metrics"] for r in _Recorder.reports}
    assert set(by_group) == {"training", "inference", "validation"}
    training = by_group["training"]
    assert (training["trialId"], training["trialRunId"], training["stepsCompleted"]) == (7, 2, 5)
    assert training["metrics"]["avgMetrics"] == json.loads(json.dumps(util.make_jsonable(metrics)))
    assert training["metrics"]["avgMetrics"]["str_enum"] == "red"
    assert training["metrics"]["batchMetrics"] == [{"loss": 0.75}, {"loss": 1}]
    assert by_group["inference"]["metrics"]["avgMetrics"] == {"latency": 0.125}
    assert by_group["validation"]["metrics"]["avgMetrics"] == {"accuracy": 0.875}


def test_bytes_values_are_dropped_with_a_warning(train, caplog):
    with caplog.at_level(logging.WARNING, logger="determined"):
        train.report_training_metrics(steps_completed=1, metrics={"loss": 0.5, "blob": b"\x00"})
    train._native.flush()
    assert "Removed non serializable metrics: blob" in caplog.text
    assert _Recorder.reports[0]["metrics"]["metrics"]["avgMetrics"] == {"loss": 0.5}


def test_malformed_reports_are_refused_at_the_call(train):
    with pytest.raises(TypeError, match="metrics must be a dict of name -> value, got list"):
        train.report_training_metrics(steps_completed=1, metrics=[0.5])
    with pytest.raises(ValueError, match="steps_completed: must be >= 0"):
        train.report_training_metrics(steps_completed=-1, metrics={"loss": 0.5})
    with pytest.raises(ValueError, match="batch_metrics: every entry must be a JSON object"):
        train.report_training_metrics(steps_completed=1, metrics={}, batch_metrics=[1])
    with pytest.raises(RuntimeError, match="Validation metric 'accuracy'"):
        train.report_validation_metrics(steps_completed=1, metrics={"accuracy": None})
    train._native.flush()
    assert _Recorder.reports == []
