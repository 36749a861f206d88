"""determined.exec.harness: the legacy ``model_def:MyTrial`` entrypoint. The experiment config's
periods and lengths become Trainer.fit() arguments; a trial task (the cluster's environment, with a
local Core API context standing in for the master) trains examples/digits_trial's DigitsTrial, is
preempted, and resumes from its checkpoint."""

import json
import logging
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
from typing import Any, Dict, List, Optional

import pytest

import determined as det
from determined import core, pytorch
from determined.exec import harness

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "digits_trial"


def test_fit_arguments_follow_the_experiment_config():
    config = {
        "searcher": {"name": "single", "metric": "accuracy", "max_length": {"batches": 100}},
        "min_validation_period": {"epochs": 1},
        "min_checkpoint_period": {"records": 64},
        "scheduling_unit": 5,
        "checkpoint_policy": "all",
        "perform_initial_validation": True,
    }
    args = harness.fit_arguments(config, {"global_batch_size": 32}, "uuid-1")
    assert args == {
        "checkpoint_period": pytorch.Batch(2),
        "validation_period": pytorch.Epoch(1),
        "reporting_period": pytorch.Batch(5),
        "checkpoint_policy": "all",
        "latest_checkpoint": "uuid-1",
        "step_zero_validation": True,
        "profiling_enabled": False,
    }  # no max_length: the Trainer asks the searcher (searcher.max_length)
    config["profiling"] = {"enabled": True, "begin_on_batch": 0}
    assert harness.fit_arguments(config, {"global_batch_size": 32}, None)["profiling_enabled"] is True


def test_defaults_and_the_asha_budget_as_length():
    config = {
        "searcher": {"name": "adaptive_asha", "time_metric": "batches", "max_time": 400},
        "min_validation_period": {"batches": 0},
        "min_checkpoint_period": {"batches": 0},
        "scheduling_unit": 100,
    }
    args = harness.fit_arguments(config, {}, None)
    assert args["max_length"] == pytorch.Batch(400)
    assert args["validation_period"] == pytorch.Batch(sys.maxsize)  # 0: never
    assert args["reporting_period"] == pytorch.Batch(100)
    assert args["checkpoint_policy"] == "best" and args["step_zero_validation"] is False
    config["searcher"]["time_metric"] = "epochs"
    assert harness.fit_arguments(config, {}, None)["max_length"] == pytorch.Epoch(400)
    config["searcher"]["time_metric"] = "accuracy"
    with pytest.raises(ValueError, match="searcher.max_length"):
        harness.fit_arguments(config, {}, None)


def test_deprecation_warnings():
    quiet = {"searcher": {"name": "adaptive_asha"}, "scheduling_unit": 100,
             "min_validation_period": {"batches": 0}, "records_per_epoch": 0}
    assert len(harness.deprecation_warnings(quiet)) == 1  # the Trial-class entrypoint itself
    loud = {"searcher": {"max_length": {"batches": 5}}, "scheduling_unit": 10,
            "min_validation_period": {"batches": 5}, "records_per_epoch": 1000,
            "optimizations": {"aggregation_frequency": 2}}
    text = "\n".join(harness.deprecation_warnings(loud))
    for key in ("records_per_epoch", "min_validation_period", "scheduling_unit",
                "searcher.max_length", "optimizations"):
        assert key in text


# --- a trial task -----------------------------------------------------------------------------


class RecordingTrain(core.DummyTrainContext):
    def __init__(self) -> None:
        super().__init__()
        self.training: List[int] = []
        self.validation: List[Any] = []
        self.progress: List[float] = []

    def report_training_metrics(self, steps_completed: int, metrics: Dict[str, Any],
                                batch_metrics: Any = None) -> None:
        self.training.append(steps_completed)

    def report_validation_metrics(self, steps_completed: int, metrics: Dict[str, Any]) -> None:
        self.validation.append((steps_completed, metrics))

    def report_progress(self, progress: float) -> None:
        self.progress.append(progress)


class PreemptAt(core.DummyPreemptContext):
    def __init__(self, n: Optional[int]) -> None:
        super().__init__(core.DummyDistributedContext())
        self.n, self.calls = n, 0

    def should_preempt(self, auto_ack: bool = True) -> bool:
        self.calls += 1
        return self.n is not None and self.calls >= self.n


@pytest.fixture
def task(trial_env, monkeypatch, tmp_path):
    """A trial task in a context directory holding examples/digits_trial; returns a function that
    runs the harness once (with a local Core API context) and gives what it reported."""
    context_dir = tmp_path / "context"
    shutil.copytree(EXAMPLE, context_dir)
    monkeypatch.chdir(context_dir)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "model_def", raising=False)
    config = {
        "name": "digits",
        "searcher": {"name": "single", "metric": "accuracy", "smaller_is_better": False,
                     "max_length": {"batches": 20}},
        "min_validation_period": {"batches": 8},
        "min_checkpoint_period": {"batches": 0},
        "scheduling_unit": 4,
        "records_per_epoch": 5000,
        "checkpoint_policy": "none",
        "checkpoint_storage": {"type": "shared_fs", "host_path": str(tmp_path)},
    }
    monkeypatch.setenv("DET_EXPERIMENT_CONFIG", json.dumps(config))
    monkeypatch.setenv("DET_HPARAMS", json.dumps({"learning_rate": 0.1, "hidden_size": 16,
                                                  "global_batch_size": 16}))
    monkeypatch.setenv("DET_STEPS_COMPLETED", "0")
    monkeypatch.delenv("DET_LATEST_CHECKPOINT")
    storage = tmp_path / "checkpoints"

    def run(preempt_at: Optional[int] = None, latest_checkpoint: Optional[str] = None) -> Any:
        if latest_checkpoint:
            monkeypatch.setenv("DET_LATEST_CHECKPOINT", latest_checkpoint)
        det._info._reset_cluster_info_for_test()
        train = RecordingTrain()

        def init(**kwargs: Any) -> core.Context:
            ctx = core._dummy_init(distributed=kwargs.get("distributed"),
                                   checkpoint_storage=str(storage))
            ctx.info = det.get_cluster_info()
            ctx.train = train
            ctx.preempt = PreemptAt(preempt_at)
            ctx.searcher = core.SearcherContext(train, ctx.distributed, 20, core.Unit.BATCHES)
            return ctx

        monkeypatch.setattr(core, "init", init)
        code = harness.main(["model_def:DigitsTrial"])
        return code, train, storage

    return run


def test_harness_trains_is_preempted_and_resumes(task, caplog):
    code, train, storage = task(preempt_at=12)
    assert code == 0
    assert train.training == [4, 8, 12]
    assert [s for s, _ in train.validation] == [8]
    assert "records_per_epoch is deprecated" in caplog.text
    (uuid,) = [p.name for p in storage.iterdir()]
    ckpt = storage / uuid
    assert json.loads((ckpt / "metadata.json").read_text())["steps_completed"] == 12
    load_data = json.loads((ckpt / "load_data.json").read_text())
    assert "is_trainer" not in load_data  # written by the legacy harness, as upstream's
    assert load_data["trial_cls_spec"] == "model_def:DigitsTrial"
    assert (ckpt / "code" / "model_def.py").is_file()

    code, train, storage = task(latest_checkpoint=uuid)
    assert code == 0
    assert train.training == [16, 20]
    assert [s for s, _ in train.validation] == [16, 20]
    assert train.validation[-1][1]["batches"] == 20
    assert train.progress[-1] == 1.0  # the searcher operation's progress, 20 of 20 batches
    final = max(storage.iterdir(), key=lambda p: json.loads((p / "metadata.json").read_text())
                ["steps_completed"])
    trial = pytorch.load_trial_from_checkpoint_path(str(final))
    assert type(trial).__name__ == "DigitsTrial"


def test_harness_needs_a_trial_task(capsys, caplog):
    assert harness.main(["model_def:DigitsTrial"]) == 1
    assert "runs inside a trial task" in caplog.text


def test_harness_refuses_other_trial_classes(task, tmp_path, caplog):
    (pathlib.Path.cwd() / "other.py").write_text("class KerasLike:\n    pass\n")
    det._info._reset_cluster_info_for_test()
    assert harness.main(["other:KerasLike"]) == 1
    assert "only PyTorchTrial runs here" in caplog.text
    assert harness.main(["nomodule:Trial"]) == 1
    assert harness.main(["not-a-spec"]) == 1


def test_the_example_trains_off_cluster_with_the_trainer(tmp_path):
    """``python3 model_def.py``: the same trial, off-cluster, 5 epochs with a checkpoint each."""
    pkg_parent = pathlib.Path(det.__file__).resolve().parents[1]
    pythonpath = os.pathsep.join([str(pkg_parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    proc = subprocess.run(
        [sys.executable, "model_def.py"], cwd=EXAMPLE, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, XDG_DATA_HOME=str(tmp_path / "xdg"), PYTHONPATH=pythonpath,
                 PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = re.findall(r"report_validation_metrics\(steps_completed=(\d+), metrics=\{.*'accuracy': "
                       r"([0-9.]+)", proc.stderr)
    assert [int(s) for s, _ in found] == [45, 90, 135, 180, 225], proc.stderr
    assert float(found[-1][1]) >= 0.9
    assert len(list((tmp_path / "xdg" / "determined").iterdir())) == 5


def test_the_entrypoint_names_a_pytorch_trial_in_the_context_directory(tmp_path):
    (tmp_path / "defs.py").write_text(
        "from determined import pytorch\n"
        "class Good(pytorch.PyTorchTrial):\n    pass\n"
        "class Keras:\n    pass\n"
    )
    assert harness.load_trial_class("defs:Good", str(tmp_path)).__name__ == "Good"
    with pytest.raises(TypeError, match="defs:Keras is not a determined.pytorch.PyTorchTrial subclass"):
        harness.load_trial_class("defs:Keras", str(tmp_path))
    with pytest.raises(ImportError, match="module 'defs' has no 'Missing'"):
        harness.load_trial_class("defs:Missing", str(tmp_path))
    with pytest.raises(ValueError, match="module:ClassName"):
        harness.load_trial_class("defs", str(tmp_path))


def test_hyperparameters_are_drawn_as_a_random_searcher_draws_them():
    from determined.experimental._test_one_batch import sample_hparams

    spec = {
        "global_batch_size": 32,
        "lr": {"type": "log", "minval": -3, "maxval": -1, "base": 10},
        "layers": {"type": "int", "minval": 1, "maxval": 3},
        "dropout": {"type": "double", "minval": 0.1, "maxval": 0.2},
        "act": {"type": "categorical", "vals": ["relu", "tanh"]},
        "optimizer": {"name": {"type": "const", "val": "sgd"}, "momentum": 0.9},
    }
    for seed in range(20):
        hp = sample_hparams(spec, random.Random(seed))
        assert hp["global_batch_size"] == 32
        assert 0.001 <= hp["lr"] <= 0.1
        assert hp["layers"] in (1, 2, 3)
        assert 0.1 <= hp["dropout"] <= 0.2
        assert hp["act"] in ("relu", "tanh")
        assert hp["optimizer"] == {"name": "sgd", "momentum": 0.9}
    with pytest.raises(ValueError, match=r"hyperparameters.x.type: 'uniform' is not one of"):
        sample_hparams({"x": {"type": "uniform"}}, random.Random(0))


def test_local_test_mode_trains_and_validates_one_batch_of_the_example(tmp_path, monkeypatch, caplog):
    """``det experiment create --local --test const.yaml .`` runs this, in the context directory."""
    det._info._reset_cluster_info_for_test()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(EXAMPLE)
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "entrypoint": "model_def:DigitsTrial",
        "hyperparameters": {"global_batch_size": 32, "hidden_size": {"type": "int", "minval": 16, "maxval": 64},
                            "learning_rate": 0.1},
    }))
    caplog.set_level(logging.INFO)
    assert harness.main(["--local-test", str(config), "model_def:DigitsTrial"]) == 0
    assert re.search(r"report_training_metrics\(steps_completed=1,", caplog.text), caplog.text
    assert re.search(r"report_validation_metrics\(steps_completed=1,", caplog.text), caplog.text
    assert "saved checkpoint" in caplog.text
    assert "its code runs" in caplog.text
    assert not (tmp_path / "xdg").exists()  # the checkpoint went to a temporary directory

    assert harness.main(["--local-test", str(config), "model_def:Missing"]) == 1
    assert "cannot load the trial class 'model_def:Missing'" in caplog.text


def test_local_test_mode_lets_the_trials_errors_through(tmp_path, monkeypatch):
    det._info._reset_cluster_info_for_test()
    (tmp_path / "broken.py").write_text(
        "import torch\n"
        "from determined import pytorch\n"
        "class Broken(pytorch.PyTorchTrial):\n"
        "    def __init__(self, context):\n"
        "        raise RuntimeError('the model does not build')\n"
        "    def build_training_data_loader(self): pass\n"
        "    def build_validation_data_loader(self): pass\n"
        "    def train_batch(self, batch, epoch_idx, batch_idx): pass\n"
    )
    (tmp_path / "config.json").write_text(json.dumps({"entrypoint": "broken:Broken"}))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="the model does not build"):
        harness.main(["--local-test", "config.json", "broken:Broken"])
