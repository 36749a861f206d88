"""The Trainer's profiling (determined.pytorch._profiling): the profiler is on for the batches of the
configured window only, and the loop's phases are timed and reported as the "timings" group."""
from typing import Any, Dict, List

import pytest
import torch

from determined import core, pytorch
from determined.pytorch import _profiling
from test_pytorch_trainer import HP, FakeSearcher, RecordedTrial, make_context, on_cluster_kwargs


class SpyProfiler:
    """Stands in for core_context.profiler: records on/off with the batch being trained, and reports."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.is_on = False
        self.events: List[Any] = []
        self.reports: List[Any] = []

    def on(self, sampling_interval: float = 1, samples_per_report: int = 10) -> None:
        self.is_on = True
        self.events.append(("on", self.context._current_batch_idx))

    def off(self) -> None:
        self.is_on = False
        self.events.append(("off", self.context._current_batch_idx))

    def _report_nested(self, group: str, values: Dict[str, Any], steps_completed: int = 0) -> None:
        self.reports.append((group, steps_completed, values))

    def _close(self) -> None:
        self.off()


def fit_on_cluster(tmp_path, monkeypatch, profiling: Dict[str, Any], **fit_kwargs: Any):
    ctx_kwargs, config = on_cluster_kwargs(tmp_path, monkeypatch, FakeSearcher([], core.Unit.BATCHES),
                                           config_extra={"profiling": profiling} if profiling else None)
    torch.manual_seed(0)
    context = make_context(tmp_path / "ckpts", dict(HP), config, **ctx_kwargs)
    spy = SpyProfiler(context)
    context._core.profiler = spy
    trial = RecordedTrial(context)
    pytorch.Trainer(trial, context).fit(checkpoint_policy="none", max_length=pytorch.Batch(10),
                                        reporting_period=pytorch.Batch(2), **fit_kwargs)
    return spy


def test_the_window_turns_the_profiler_on_and_off_and_times_the_batches_inside(tmp_path, monkeypatch):
    spy = fit_on_cluster(tmp_path, monkeypatch, {"enabled": True, "begin_on_batch": 3, "end_after_batch": 6})
    assert spy.events == [("on", 3), ("off", 7)]
    # Training reports after batches 2, 4, ..., 10; batches 3..6 were timed.
    assert [(g, s) for g, s, _ in spy.reports] == [("timings", 4), ("timings", 6), ("timings", 8)]
    for _, _, values in spy.reports:
        assert set(values) == {"dataloader_next", "to_device", "train_batch", "backward", "optimizer_step"}
        assert all(0 < v < 5 for v in values.values()), values
        assert values["train_batch"] >= values["backward"] + values["optimizer_step"]


def test_fit_profiling_enabled_profiles_from_the_first_batch(tmp_path, monkeypatch):
    spy = fit_on_cluster(tmp_path, monkeypatch, {}, profiling_enabled=True)
    assert spy.events == [("on", 0)]
    assert [s for _, s, _ in spy.reports] == [2, 4, 6, 8, 10]


def test_no_profiling_no_profiler_calls(tmp_path, monkeypatch):
    spy = fit_on_cluster(tmp_path, monkeypatch, {"enabled": False})
    assert spy.events == [] and spy.reports == []


def test_off_cluster_profiling_enabled_warns_and_trains(tmp_path, caplog):
    context = make_context(tmp_path / "ckpts", dict(HP))
    pytorch.Trainer(RecordedTrial(context), context).fit(
        max_length=pytorch.Batch(2), checkpoint_policy="none", profiling_enabled=True)
    assert "off-cluster there is no trial to report system metrics to" in caplog.text


def test_settings_from_the_config():
    assert _profiling.settings_from({}, False) is None
    assert _profiling.settings_from({"profiling": {"enabled": False}}, False) is None
    assert _profiling.settings_from({}, True) == _profiling.ProfilingSettings(0, None, True)
    s = _profiling.settings_from(
        {"profiling": {"enabled": True, "begin_on_batch": 2, "end_after_batch": 2, "sync_timings": False}}, False)
    assert s == _profiling.ProfilingSettings(2, 2, False)
    assert [s.covers(i) for i in range(4)] == [False, False, True, False]
    with pytest.raises(ValueError, match=r"profiling.end_after_batch: must be >= begin_on_batch \(5\), got 1"):
        _profiling.settings_from({"profiling": {"begin_on_batch": 5, "end_after_batch": 1}}, True)
    with pytest.raises(ValueError, match="profiling.begin_on_batch: must be an integer >= 0, got -1"):
        _profiling.settings_from({"profiling": {"begin_on_batch": -1}}, True)


def test_timings_are_means_per_call_and_start_over():
    synced = []
    timings = _profiling.LoopTimings(lambda: synced.append(1))
    for _ in range(2):
        timings.stop("a", timings.start())
    means = timings.take_means()
    assert set(means) == {"a"} and means["a"] >= 0
    assert len(synced) == 4, "sync_timings: the device is waited for at both ends"
    assert timings.take_means() == {}
