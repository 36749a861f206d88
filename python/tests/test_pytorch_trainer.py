"""determined.pytorch's Trainer off-cluster: lengths and periods in batches and epochs, reducers,
callbacks, LR schedulers, preemption, searcher operations, and checkpoints that resume exactly
where they left off and load for inference.

The trials run on the Core API's local ("dummy") context, with a recording train context (and a
fake preemption or searcher where a test needs one) swapped in."""

import json
import pathlib
import pickle
from typing import Any, Dict, List, Optional

import pytest
import torch
from torch import nn

import determined as det
from determined import core, pytorch

N_TRAIN = 40
N_VAL = 12


# --- a small trial ---------------------------------------------------------------------------------


class IndexedDataset(torch.utils.data.Dataset):
    """(index, x, y) records of a fixed linear regression problem."""

    def __init__(self, n: int, seed: int) -> None:
        gen = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, 4, generator=gen)
        self.y = self.x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.1

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> Any:
        return i, self.x[i], self.y[i]


class RegressionTrial(pytorch.PyTorchTrial):
    """Records every batch it trains on: (batch_idx, epoch_idx, record indices)."""

    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        hp = context.get_hparams()
        self.model = context.wrap_model(
            nn.Sequential(nn.Linear(4, 8), nn.Dropout(hp.get("dropout", 0.0)), nn.Linear(8, 1))
        )
        self.opt = context.wrap_optimizer(
            torch.optim.SGD(self.model.parameters(), lr=hp.get("lr", 0.05), momentum=0.9)
        )
        self.lr_steps = 0
        if "lr_mode" in hp:
            self.sched = context.wrap_lr_scheduler(
                torch.optim.lr_scheduler.LambdaLR(self.opt, lambda step: 0.9**step),
                step_mode=pytorch.LRScheduler.StepMode[hp["lr_mode"]],
                frequency=hp.get("lr_frequency", 1),
            )
        self.seen: List[Any] = []
        self.optimizer_steps = 0

    def build_training_data_loader(self) -> pytorch.DataLoader:
        return pytorch.DataLoader(
            IndexedDataset(N_TRAIN, seed=1),
            batch_size=self.context.get_per_slot_batch_size(),
            shuffle=self.context.get_hparams().get("shuffle", False),
        )

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        return pytorch.DataLoader(IndexedDataset(N_VAL, seed=2), batch_size=4)

    def train_batch(self, batch: Any, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        ids, x, y = batch
        self.seen.append((batch_idx, epoch_idx, ids.tolist()))
        loss = nn.functional.mse_loss(self.model(x), y)
        self.context.backward(loss)
        before = [p.detach().clone() for p in self.model.parameters()]
        self.context.step_optimizer(self.opt)
        if any(not torch.equal(b, p) for b, p in zip(before, self.model.parameters())):
            self.optimizer_steps += 1
        return {"loss": loss}

    def evaluate_batch(self, batch: Any) -> Dict[str, Any]:
        ids, x, y = batch
        return {"validation_loss": nn.functional.mse_loss(self.model(x), y), "first_id": ids[0]}


# --- the recording Core API context ----------------------------------------------------------------


class RecordingTrain(core.DummyTrainContext):
    def __init__(self, best: Optional[float] = None) -> None:
        super().__init__()
        self.training: List[Any] = []
        self.validation: List[Any] = []
        self.progress: List[float] = []
        self.best = best

    def report_training_metrics(
        self, steps_completed: int, metrics: Dict[str, Any], batch_metrics: Any = None
    ) -> None:
        self.training.append((steps_completed, dict(metrics), batch_metrics))

    def report_validation_metrics(self, steps_completed: int, metrics: Dict[str, Any]) -> None:
        self.validation.append((steps_completed, dict(metrics)))

    def report_progress(self, progress: float) -> None:
        self.progress.append(progress)

    def set_status(self, status: str) -> None:
        pass

    def get_experiment_best_validation(self) -> Optional[float]:
        return self.best


class PreemptAfter(core.DummyPreemptContext):
    """should_preempt() turns True at its n-th call (the Trainer asks once per batch)."""

    def __init__(self, n: int) -> None:
        super().__init__(core.DummyDistributedContext())
        self.n = n
        self.calls = 0

    def should_preempt(self, auto_ack: bool = True) -> bool:
        self.calls += 1
        return self.calls >= self.n


class FakeOp:
    def __init__(self, length: int) -> None:
        self.length = length
        self.progress: List[float] = []
        self.completed: List[Any] = []

    def report_progress(self, length: float) -> None:
        self.progress.append(length)

    def report_completed(self, searcher_metric: Any) -> None:
        self.completed.append(searcher_metric)


class FakeSearcher:
    def __init__(self, lengths: List[int], units: core.Unit) -> None:
        self.ops = [FakeOp(n) for n in lengths]
        self.units = units

    def operations(self) -> Any:
        yield from self.ops

    def get_configured_units(self) -> core.Unit:
        return self.units


def cluster_info(hparams: Dict[str, Any], config: Dict[str, Any], trial_id: int = 7) -> det.ClusterInfo:
    return det.ClusterInfo(
        master_url="http://master:8080", cluster_id="c", agent_id="a", slot_ids=[0],
        task_id="1.1", allocation_id="1.1.1", session_token="t", task_type="TRIAL",
        trial_info=det.TrialInfo(trial_id=trial_id, experiment_id=3, trial_seed=1, hparams=hparams,
                                 config=config, steps_completed=0, trial_run_id=1))


def make_context(
    storage: pathlib.Path,
    hparams: Dict[str, Any],
    exp_conf: Optional[Dict[str, Any]] = None,
    *,
    preempt: Optional[core.PreemptContext] = None,
    info: Optional[det.ClusterInfo] = None,
    searcher: Any = None,
    best: Optional[float] = None,
    aggregation_frequency: int = 1,
) -> pytorch.PyTorchTrialContext:
    core_context = core._dummy_init(checkpoint_storage=str(storage))
    core_context.train = RecordingTrain(best)
    if preempt is not None:
        core_context.preempt = preempt
    core_context.info = info
    core_context.searcher = searcher
    core_context.start()
    return pytorch.PyTorchTrialContext(
        core_context=core_context, trial_seed=0, hparams=hparams, slots_per_trial=1, num_gpus=0,
        exp_conf=exp_conf, aggregation_frequency=aggregation_frequency, steps_completed=0,
        managed_training=True, debug_enabled=False, enable_tensorboard_logging=False)


class Recorder(pytorch.PyTorchCallback):
    """Records the hooks called, and the checkpoints written; has a state that counts epochs."""

    def __init__(self) -> None:
        self.events: List[str] = []
        self.uuids: List[str] = []
        self.epochs_done = 0
        self.loaded: Optional[Dict[str, Any]] = None

    def on_trial_startup(self, first_batch_idx: int, checkpoint_uuid: Optional[str]) -> None:
        self.events.append(f"startup:{first_batch_idx}:{checkpoint_uuid is not None}")

    def on_trial_shutdown(self) -> None:
        self.events.append("shutdown")

    def on_training_start(self) -> None:
        self.events.append("training_start")

    def on_training_epoch_start(self, epoch_idx: int) -> None:
        self.events.append(f"epoch_start:{epoch_idx}")

    def on_training_epoch_end(self, epoch_idx: int) -> None:
        self.epochs_done += 1
        self.events.append(f"epoch_end:{epoch_idx}")

    def on_training_workload_end(self, avg_metrics: Dict[str, Any], batch_metrics: Any) -> None:
        self.events.append(f"workload_end:{len(batch_metrics)}")

    def on_validation_start(self) -> None:
        self.events.append("validation_start")

    def on_validation_epoch_start(self) -> None:
        self.events.append("validation_epoch_start")

    def on_validation_epoch_end(self, outputs: List[Any]) -> None:
        self.events.append(f"validation_epoch_end:{len(outputs)}")

    def on_validation_end(self, metrics: Dict[str, Any]) -> None:
        self.events.append("validation_end")

    def on_checkpoint_load_start(self, checkpoint: Dict[str, Any]) -> None:
        self.events.append("checkpoint_load_start")

    def on_checkpoint_save_start(self, checkpoint: Dict[str, Any]) -> None:
        self.events.append("checkpoint_save_start")

    def on_checkpoint_write_end(self, checkpoint_dir: str) -> None:
        self.events.append("checkpoint_write_end")

    def on_checkpoint_upload_end(self, uuid: str) -> None:
        self.uuids.append(uuid)
        self.events.append("checkpoint_upload_end")

    def state_dict(self) -> Dict[str, Any]:
        return {"epochs_done": self.epochs_done}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self.loaded = state_dict
        self.epochs_done = state_dict["epochs_done"]


class RecordedTrial(RegressionTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        super().__init__(context)
        self.recorder = Recorder()

    def build_callbacks(self) -> Dict[str, pytorch.PyTorchCallback]:
        return {"recorder": self.recorder}


HP = {"global_batch_size": 4, "lr": 0.05}  # 10 batches per epoch


def fit(tmp_path: pathlib.Path, hparams: Dict[str, Any] = HP, trial_cls: type = RecordedTrial,
        context_kwargs: Optional[Dict[str, Any]] = None, **fit_kwargs: Any) -> Any:
    torch.manual_seed(0)
    context = make_context(tmp_path / "ckpts", dict(hparams), **(context_kwargs or {}))
    trial = trial_cls(context)
    fit_kwargs.setdefault("checkpoint_policy", "none")
    pytorch.Trainer(trial, context).fit(**fit_kwargs)
    context._core.close()
    return trial, context._core.train


def steps(reports: List[Any]) -> List[int]:
    return [r[0] for r in reports]


def params(trial: RegressionTrial) -> List[torch.Tensor]:
    return [p.detach().clone() for p in trial.model.parameters()]


# --- lengths and periods -------------------------------------------------------------------------


def test_periods_in_batches(tmp_path):
    trial, train = fit(tmp_path, max_length=pytorch.Batch(10), validation_period=pytorch.Batch(4),
                       checkpoint_period=pytorch.Batch(5), reporting_period=pytorch.Batch(3))
    assert [b for b, _, _ in trial.seen] == list(range(10))
    # Training metrics are reported at every boundary (report, validate, checkpoint, the end).
    assert steps(train.training) == [3, 4, 5, 6, 8, 9, 10]
    assert steps(train.validation) == [4, 8, 10]
    assert [len(r[2]) for r in train.training] == [3, 1, 1, 1, 2, 1, 1]
    assert trial.recorder.uuids and len(trial.recorder.uuids) == 2  # after batches 5 and 10
    # Validation metrics carry the time metrics ASHA may use.
    assert train.validation[0][1]["batches"] == 4 and train.validation[0][1]["epochs"] == 0
    assert train.training[-1][1]["batches"] == 10 and train.training[-1][1]["epochs"] == 1
    assert train.progress[-1] == 1.0


def test_periods_in_epochs_and_schedules(tmp_path):
    trial, train = fit(tmp_path, max_length=pytorch.Epoch(3), validation_period=pytorch.Epoch(1),
                       checkpoint_period=pytorch.Batch([7]), reporting_period=pytorch.Batch(1000))
    assert len(trial.seen) == 30
    assert [e for _, e, _ in trial.seen] == [i // 10 for i in range(30)]
    assert steps(train.validation) == [10, 20, 30]
    assert [v[1]["epochs"] for v in train.validation] == [1, 2, 3]
    assert steps(train.training) == [7, 10, 20, 30]
    ev = trial.recorder.events
    assert [e for e in ev if e.startswith("epoch_")] == [
        "epoch_start:0", "epoch_end:0", "epoch_start:1", "epoch_end:1", "epoch_start:2", "epoch_end:2"]
    assert len(trial.recorder.uuids) == 2  # batch 7, and the end


def test_every_batch_when_the_period_is_below_one(tmp_path):
    trial, train = fit(tmp_path, max_length=pytorch.Batch(3), validation_period=pytorch.Batch(0))
    assert steps(train.validation) == [1, 2, 3]


def test_max_length_is_required_off_cluster(tmp_path):
    with pytest.raises(ValueError, match="max_length"):
        fit(tmp_path)


def test_test_mode_trains_and_validates_one_batch(tmp_path):
    trial, train = fit(tmp_path, max_length=pytorch.Epoch(5), test_mode=True)
    assert len(trial.seen) == 1
    assert steps(train.validation) == [1]
    assert "validation_epoch_end:1" in trial.recorder.events
    assert len(trial.recorder.uuids) == 1


def test_step_zero_validation(tmp_path):
    trial, train = fit(tmp_path, max_length=pytorch.Batch(2), step_zero_validation=True)
    assert steps(train.validation) == [0, 2]


# --- metrics and reducers ------------------------------------------------------------------------


class ReducerTrial(RegressionTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        super().__init__(context)
        self.ids = context.wrap_reducer(lambda values: sorted(values), name="all_ids",
                                        for_training=False)
        self.count = context.wrap_reducer(CountReducer(), name=None)

    def train_batch(self, batch: Any, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        self.count.update(len(batch[0]))
        out = super().train_batch(batch, epoch_idx, batch_idx)
        return {**out, "batch_idx": torch.tensor(float(batch_idx))}

    def evaluate_batch(self, batch: Any, batch_idx: int) -> Dict[str, Any]:
        ids = batch[0].float()
        self.ids.update(int(batch_idx))
        self.count.update(len(ids))
        return {"sum_ids": ids.sum(), "max_id": ids.max(), "min_id": ids.min(), "avg_id": ids.mean(),
                "vector": ids[:2]}

    def evaluation_reducer(self) -> Dict[str, pytorch.Reducer]:
        return {"sum_ids": pytorch.Reducer.SUM, "max_id": pytorch.Reducer.MAX,
                "min_id": pytorch.Reducer.MIN}


class CountReducer(pytorch.MetricReducer):
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.n = 0

    def update(self, n: int) -> None:
        self.n += n

    def per_slot_reduce(self) -> int:
        return self.n

    def cross_slot_reduce(self, per_slot_metrics: List[int]) -> Dict[str, int]:
        return {"records": sum(per_slot_metrics)}


def test_reducers(tmp_path):
    trial, train = fit(tmp_path, trial_cls=ReducerTrial, max_length=pytorch.Batch(6),
                       reporting_period=pytorch.Batch(3))
    (t1, m1, b1), (t2, m2, b2) = train.training
    assert (t1, t2) == (3, 6)
    # Training metrics: the mean over the period's batches, plus the custom reducer (reset each period).
    assert m1["batch_idx"] == pytest.approx(1.0) and m2["batch_idx"] == pytest.approx(4.0)
    assert m1["records"] == 12 and m2["records"] == 12
    assert [b["batch_idx"] for b in b2] == [3.0, 4.0, 5.0]
    ((step, val),) = train.validation
    # 12 validation records in batches of 4: ids 0..11.
    assert val["sum_ids"] == sum(range(12))
    assert val["max_id"] == 11 and val["min_id"] == 0
    assert val["avg_id"] == pytest.approx(5.5)  # AVG, the default
    assert val["vector"].tolist() == pytest.approx([4.0, 5.0])  # arrays are averaged elementwise
    assert val["all_ids"] == [0, 1, 2]  # the function reducer gets every update() value
    assert val["records"] == 12  # validation's own count, not training's


class FullDatasetTrial(RegressionTrial):
    evaluate_batch = pytorch.PyTorchTrial.evaluate_batch  # type: ignore[assignment]

    def evaluate_full_dataset(self, data_loader: Any) -> Dict[str, Any]:
        n = sum(len(b[0]) for b in data_loader)
        return {"records": n}


def test_evaluate_full_dataset(tmp_path):
    trial, train = fit(tmp_path, trial_cls=FullDatasetTrial, max_length=pytorch.Batch(2))
    assert train.validation == [(2, {"records": N_VAL, "batches": 2, "epochs": 0})]


class BothEvaluations(FullDatasetTrial):
    evaluate_batch = RegressionTrial.evaluate_batch  # type: ignore[assignment]


def test_exactly_one_evaluation_method(tmp_path):
    with pytest.raises(ValueError, match="exactly one of evaluate_batch"):
        fit(tmp_path, trial_cls=BothEvaluations, max_length=pytorch.Batch(2))


class TorchLoaderTrial(RegressionTrial):
    def build_training_data_loader(self) -> Any:
        return torch.utils.data.DataLoader(IndexedDataset(N_TRAIN, seed=1), batch_size=4)


def test_plain_torch_loaders_need_the_checks_disabled(tmp_path):
    with pytest.raises(RuntimeError, match="disable_dataset_reproducibility_checks"):
        fit(tmp_path, trial_cls=TorchLoaderTrial, max_length=pytorch.Batch(2))


# --- callbacks ---------------------------------------------------------------------------------


def test_callback_order(tmp_path):
    # Two batches of 20 per epoch.
    trial, _ = fit(tmp_path, hparams={"global_batch_size": 20}, max_length=pytorch.Batch(3),
                   validation_period=pytorch.Batch(2), checkpoint_policy="all")
    assert trial.recorder.events == [
        "startup:0:False", "training_start",
        "epoch_start:0", "epoch_end:0",
        "workload_end:2",
        "validation_start", "validation_epoch_start", "validation_epoch_end:3", "validation_end",
        "checkpoint_save_start", "checkpoint_write_end", "checkpoint_upload_end",
        "epoch_start:1",
        "workload_end:1",
        "validation_start", "validation_epoch_start", "validation_epoch_end:3", "validation_end",
        "checkpoint_save_start", "checkpoint_write_end", "checkpoint_upload_end",
        "shutdown",
    ]


def test_shutdown_runs_after_an_error(tmp_path):
    class Failing(RecordedTrial):
        def train_batch(self, batch: Any, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
            raise ValueError("boom")

    trial_holder: List[Any] = []

    class Keep(Failing):
        def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
            super().__init__(context)
            trial_holder.append(self)

    with pytest.raises(ValueError, match="boom"):
        fit(tmp_path, trial_cls=Keep, max_length=pytorch.Batch(2))
    assert trial_holder[0].recorder.events[-1] == "shutdown"


# --- LR schedulers and gradient aggregation -----------------------------------------------------


@pytest.mark.parametrize(
    "mode,frequency,aggregation,expected",
    [
        ("STEP_EVERY_BATCH", 1, 1, 25),
        ("STEP_EVERY_BATCH", 2, 1, 12),
        ("STEP_EVERY_EPOCH", 1, 1, 2),
        ("MANUAL_STEP", 1, 1, 0),
        ("STEP_EVERY_OPTIMIZER_STEP", 1, 2, 12),
        ("STEP_EVERY_BATCH", 1, 2, 24),  # no LR step on the last batch: its optimizer step is due
    ],
)
def test_lr_scheduler_step_modes(tmp_path, mode, frequency, aggregation, expected):
    hp = dict(HP, lr_mode=mode, lr_frequency=frequency)
    trial, _ = fit(tmp_path, hparams=hp, max_length=pytorch.Batch(25),
                   context_kwargs={"aggregation_frequency": aggregation})
    assert trial.sched.last_epoch == expected


def test_aggregation_frequency_steps_the_optimizer_every_n_batches(tmp_path):
    trial, _ = fit(tmp_path, max_length=pytorch.Batch(6), context_kwargs={"aggregation_frequency": 3})
    assert trial.optimizer_steps == 2


# --- preemption, stopping and searcher operations ------------------------------------------------


def test_preemption_checkpoints_and_returns(tmp_path):
    trial, train = fit(tmp_path, max_length=pytorch.Batch(20), reporting_period=pytorch.Batch(4),
                       context_kwargs={"preempt": PreemptAfter(6)})
    assert len(trial.seen) == 6
    assert steps(train.training) == [4, 6]  # the batches since the last report are reported too
    assert len(trial.recorder.uuids) == 1
    ckpt = tmp_path / "ckpts" / trial.recorder.uuids[0]
    assert json.loads((ckpt / "metadata.json").read_text())["steps_completed"] == 6
    assert train.validation == []  # exiting early does not validate


def test_stop_requested_stops_at_the_end_of_the_period(tmp_path):
    class Stopping(RecordedTrial):
        def train_batch(self, batch: Any, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
            if batch_idx == 4:
                self.context.set_stop_requested(True)
            return super().train_batch(batch, epoch_idx, batch_idx)

    trial, _ = fit(tmp_path, trial_cls=Stopping, max_length=pytorch.Batch(20),
                   reporting_period=pytorch.Batch(3))
    assert len(trial.seen) == 6
    assert len(trial.recorder.uuids) == 1


def on_cluster_kwargs(tmp_path, monkeypatch, searcher: Any, best: Optional[float] = None,
                      config_extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    context_dir = tmp_path / "context"
    context_dir.mkdir()
    (context_dir / "model_def.py").write_text("# the experiment's code\n")
    monkeypatch.chdir(context_dir)
    config = {"searcher": {"name": "single", "metric": "validation_loss", "smaller_is_better": True},
              **(config_extra or {})}
    return {"info": cluster_info(HP, config), "searcher": searcher, "best": best}, config


def test_searcher_operations_on_cluster(tmp_path, monkeypatch):
    searcher = FakeSearcher([2], core.Unit.EPOCHS)
    ctx_kwargs, config = on_cluster_kwargs(tmp_path, monkeypatch, searcher)
    torch.manual_seed(0)
    context = make_context(tmp_path / "ckpts", dict(HP), config, **ctx_kwargs)
    trial = RecordedTrial(context)
    pytorch.Trainer(trial, context).fit(validation_period=pytorch.Epoch(1),
                                        reporting_period=pytorch.Batch(5))
    train = context._core.train
    assert len(trial.seen) == 20
    (op,) = searcher.ops
    assert op.progress == [0, 1, 1, 2]  # in the searcher's units (epochs)
    assert op.completed == [train.validation[-1][1]["validation_loss"]]
    # checkpoint_policy "best" with no best validation yet: a checkpoint after each validation.
    assert len(trial.recorder.uuids) == 2
    ckpt = tmp_path / "ckpts" / trial.recorder.uuids[-1]
    assert (ckpt / "code" / "model_def.py").is_file()  # on a cluster, the context directory
    load_data = json.loads((ckpt / "load_data.json").read_text())
    assert load_data["experiment_config"] == config
    with (ckpt / "trial_state.pkl").open("rb") as f:
        assert pickle.load(f)["trial_id"] == 7


def test_checkpoint_policy_best_compares_with_the_experiments_best(tmp_path, monkeypatch):
    searcher = FakeSearcher([4], core.Unit.BATCHES)
    ctx_kwargs, config = on_cluster_kwargs(tmp_path, monkeypatch, searcher, best=-1.0)
    torch.manual_seed(0)
    context = make_context(tmp_path / "ckpts", dict(HP), config, **ctx_kwargs)
    trial = RecordedTrial(context)
    pytorch.Trainer(trial, context).fit(validation_period=pytorch.Batch(2))
    # No validation beats -1.0, so only the final checkpoint (end of training) is taken.
    assert len(trial.recorder.uuids) == 1
    assert steps(context._core.train.validation) == [2, 4]


def test_searcher_metric_must_be_reported(tmp_path, monkeypatch):
    searcher = FakeSearcher([2], core.Unit.BATCHES)
    ctx_kwargs, config = on_cluster_kwargs(tmp_path, monkeypatch, searcher)
    config["searcher"]["metric"] = "accuracy"
    context = make_context(tmp_path / "ckpts", dict(HP), config, **ctx_kwargs)
    with pytest.raises(RuntimeError, match="'accuracy'"):
        pytorch.Trainer(RecordedTrial(context), context).fit()


def test_max_length_wins_over_the_searcher_on_cluster(tmp_path, monkeypatch):
    searcher = FakeSearcher([8], core.Unit.BATCHES)
    ctx_kwargs, config = on_cluster_kwargs(tmp_path, monkeypatch, searcher)
    context = make_context(tmp_path / "ckpts", dict(HP), config, **ctx_kwargs)
    trial = RecordedTrial(context)
    pytorch.Trainer(trial, context).fit(max_length=pytorch.Batch(3))
    assert len(trial.seen) == 3
    assert searcher.ops[0].completed == []
    assert context._core.train.progress[-1] == 1.0


# --- checkpoints: resuming and loading -----------------------------------------------------------


RESUME_HP = dict(HP, shuffle=True, dropout=0.2, lr_mode="STEP_EVERY_BATCH")


def test_resume_continues_exactly_where_the_checkpoint_left_off(tmp_path):
    length = pytorch.Batch(27)  # 2.7 epochs
    whole, whole_train = fit(tmp_path / "a", RESUME_HP, max_length=length,
                             validation_period=pytorch.Batch(10))

    first, _ = fit(tmp_path / "b", RESUME_HP, max_length=length, validation_period=pytorch.Batch(10),
                   context_kwargs={"preempt": PreemptAfter(13)})
    assert len(first.seen) == 13
    uuid = first.recorder.uuids[-1]

    # A fresh process would seed differently: the checkpoint restores the random states.
    torch.manual_seed(1234)
    context = make_context(tmp_path / "b" / "ckpts", dict(RESUME_HP))
    second = RecordedTrial(context)
    pytorch.Trainer(second, context).fit(max_length=length, validation_period=pytorch.Batch(10),
                                         latest_checkpoint=uuid, checkpoint_policy="none")

    batches = [b for b, _, _ in first.seen] + [b for b, _, _ in second.seen]
    assert batches == list(range(27))  # strictly increasing, none repeated or missed
    assert first.seen + second.seen == whole.seen  # the same records in the same order
    assert second.recorder.events[:3] == ["startup:0:True", "checkpoint_load_start", "training_start"]
    assert second.recorder.loaded == {"epochs_done": 1}
    assert second.sched.last_epoch == 27
    for a, b in zip(params(whole), params(second)):
        assert torch.equal(a, b)
    assert steps(context._core.train.validation) == [20, 27]
    assert context._core.train.validation[-1][1] == whole_train.validation[-1][1]


def test_checkpoint_layout(tmp_path):
    trial, _ = fit(tmp_path, hparams=dict(HP, lr_mode="STEP_EVERY_EPOCH"), max_length=pytorch.Batch(3))
    ckpt = tmp_path / "ckpts" / trial.recorder.uuids[-1]
    state = torch.load(ckpt / "state_dict.pth")
    assert set(state) >= {"models_state_dict", "optimizers_state_dict", "lr_schedulers_state_dict",
                          "callbacks", "rng_state"}
    assert set(state["rng_state"]) >= {"cpu_rng_state", "np_rng_state", "random_rng_state"}
    assert state["callbacks"] == {"recorder": {"epochs_done": 0}}
    with (ckpt / "trial_state.pkl").open("rb") as f:
        assert pickle.load(f) == {"trial_id": 0, "last_ckpt": 3, "step_id": 0, "last_val": 3,
                                  "batches_trained": 3, "epochs_trained": 0}
    load_data = json.loads((ckpt / "load_data.json").read_text())
    assert load_data == {"trial_type": "PyTorchTrial", "experiment_config": None,
                         "hparams": dict(HP, lr_mode="STEP_EVERY_EPOCH"),
                         "trial_cls_spec": "test_pytorch_trainer:RecordedTrial", "is_trainer": True}
    assert (ckpt / "code" / "test_pytorch_trainer.py").is_file()
    metadata = json.loads((ckpt / "metadata.json").read_text())
    assert metadata["steps_completed"] == 3 and metadata["format"] == "pickle"
    assert metadata["framework"].startswith("torch-")


def test_load_trial_from_checkpoint_path_predicts_like_the_trained_trial(tmp_path):
    trained, _ = fit(tmp_path, max_length=pytorch.Batch(5))
    ckpt = tmp_path / "ckpts" / trained.recorder.uuids[-1]
    loaded = pytorch.load_trial_from_checkpoint_path(str(ckpt))
    assert type(loaded).__name__ == "RecordedTrial"
    assert loaded.context.get_hparams() == HP
    x = torch.randn(3, 4)
    trained.model.eval()
    loaded.model.eval()
    with torch.no_grad():
        assert torch.equal(trained.model(x), loaded.model(x))

    class WithArg(RecordedTrial):
        def __init__(self, context: pytorch.PyTorchTrialContext, scale: int) -> None:
            super().__init__(context)
            self.scale = scale

    other = pytorch.load_trial_from_checkpoint_path(
        str(ckpt), trial_class=WithArg, trial_kwargs={"scale": 3},
        torch_load_kwargs={"map_location": "cpu"})
    assert other.scale == 3
    assert all(torch.equal(a, b) for a, b in zip(params(trained), params(other)))


def test_load_an_upstream_style_checkpoint_without_code(tmp_path):
    """A checkpoint of upstream's harness layout (a DDP model's keys, no trial_state.pkl)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.0), nn.Linear(8, 1))
    ckpt = tmp_path / "upstream"
    ckpt.mkdir()
    torch.save({"models_state_dict": [{f"module.{k}": v for k, v in model.state_dict().items()}],
                "optimizers_state_dict": [], "lr_schedulers_state_dict": [], "callbacks": {}},
               ckpt / "state_dict.pth")
    (ckpt / "load_data.json").write_text(json.dumps({
        "trial_type": "PyTorchTrial", "experiment_config": {"searcher": {}}, "hparams": HP,
        "trial_cls_spec": "model_def:Missing"}))
    with pytest.raises(ImportError, match="trial_class="):
        pytorch.load_trial_from_checkpoint_path(str(ckpt))
    trial = pytorch.load_trial_from_checkpoint_path(str(ckpt), trial_class=RegressionTrial)
    for a, b in zip(model.parameters(), trial.model.parameters()):
        assert torch.equal(a, b)


# --- pytorch.init() off-cluster ------------------------------------------------------------------


def test_init_off_cluster_trains_with_the_local_context(tmp_path):
    torch.manual_seed(0)
    with pytorch.init(hparams=dict(HP), exp_conf={"data": {"url": "x"}}) as context:
        assert context.distributed.size == 1 and context.device.type in ("cpu", "cuda")
        assert context.get_data_config() == {"url": "x"}
        assert context.get_per_slot_batch_size() == 4 and context.get_global_batch_size() == 4
        assert context.get_trial_id() == 0
        trial = RecordedTrial(context)
        pytorch.Trainer(trial, context).fit(max_length=pytorch.Batch(2))
    # conftest points XDG_DATA_HOME at the test's directory: the default local storage.
    stored = list((tmp_path / "xdg" / "determined").iterdir())
    assert [p.name for p in stored] == trial.recorder.uuids


def test_context_errors_name_the_fix(tmp_path):
    context = make_context(tmp_path, {"lr": 0.1})
    with pytest.raises(ValueError, match="global_batch_size"):
        context.get_per_slot_batch_size()
    with pytest.raises(ValueError, match="exp_conf"):
        context.get_experiment_config()
    with pytest.raises(ValueError, match="'missing'"):
        context.get_hparam("missing")
    with pytest.raises(RuntimeError, match="training has not started"):
        context.current_train_batch()


def test_the_code_copy_honours_detignore_and_the_default_ignores(tmp_path, monkeypatch):
    from determined.pytorch import _checkpoint

    src = tmp_path / "src"
    (src / "data").mkdir(parents=True)
    (src / "__pycache__").mkdir()
    (src / "pkg").mkdir()
    (src / "model_def.py").write_text("x = 1\n")
    (src / "pkg" / "layers.py").write_text("y = 2\n")
    (src / "data" / "big.bin").write_bytes(b"\0" * 10)
    (src / "__pycache__" / "model_def.cpython-311.pyc").write_bytes(b"\0")
    (src / "notes.log").write_text("log\n")
    (src / ".detignore").write_text("data/\n*.log\n")
    monkeypatch.chdir(src)
    _checkpoint.write_user_code(tmp_path / "ckpt", object, on_cluster=True)
    copied = sorted(str(p.relative_to(tmp_path / "ckpt" / "code")) for p in (tmp_path / "ckpt" / "code").rglob("*"))
    assert copied == ["model_def.py", "pkg", "pkg/layers.py"]
