"""
The Trainer's side of profiling (``profiling:`` in the experiment config, ``fit(profiling_enabled=
True)``): it keeps ``core_context.profiler`` on for the batches between ``begin_on_batch`` and
``end_after_batch``, and times the phases of those batches, reported as the ``timings`` group:
``{AGENT_ID: {"dataloader_next": SECONDS, "to_device": ..., "train_batch": ..., "backward": ...,
"optimizer_step": ...}}``, each the mean time of one call over the batches since the last training
report. ``train_batch`` is the whole of the trial's ``train_batch()`` (forward pass included), so it
contains ``backward`` and ``optimizer_step`` (``context.backward()``, ``context.step_optimizer()``).
With ``sync_timings`` (the default) each timing waits for the GPU's queued work first, so that a
phase is charged with its own kernels rather than the next phase's.
"""
import dataclasses
import logging
import time
from typing import Any, Callable, Dict, Optional

logger = logging.getLogger("determined.pytorch")

TIMINGS_GROUP = "timings"


@dataclasses.dataclass(frozen=True)
class ProfilingSettings:
    begin_on_batch: int = 0
    end_after_batch: Optional[int] = None
    sync_timings: bool = True

    def covers(self, batch_idx: int) -> bool:
        """Whether batch ``batch_idx`` (0 is the first of the trial) is profiled."""
        if batch_idx < self.begin_on_batch:
            return False
        return self.end_after_batch is None or batch_idx <= self.end_after_batch


def settings_from(exp_conf: Any, profiling_enabled: bool) -> Optional[ProfilingSettings]:
    """The settings when profiling is on (the config's ``profiling.enabled`` or ``fit()``'s
    ``profiling_enabled``), else None."""
    section = exp_conf.get("profiling") if isinstance(exp_conf, dict) else None
    section = section if isinstance(section, dict) else {}
    if not (profiling_enabled or section.get("enabled")):
        return None
    begin = section.get("begin_on_batch") or 0
    end = section.get("end_after_batch")
    for name, value in (("begin_on_batch", begin), ("end_after_batch", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"profiling.{name}: must be an integer >= 0, got {value!r}")
    if end is not None and end < begin:
        raise ValueError(f"profiling.end_after_batch: must be >= begin_on_batch ({begin}), got {end}")
    return ProfilingSettings(begin, end, bool(section.get("sync_timings", True)))


class LoopTimings:
    """Sums of the time spent in each phase of the training loop, and how many calls each."""

    def __init__(self, synchronize: Optional[Callable[[], None]] = None) -> None:
        self._synchronize = synchronize
        self._sums: Dict[str, float] = {}
        self._counts: Dict[str, int] = {}

    def start(self) -> float:
        if self._synchronize is not None:
            self._synchronize()
        return time.perf_counter()

    def stop(self, name: str, started: float) -> None:
        if self._synchronize is not None:
            self._synchronize()
        self._sums[name] = self._sums.get(name, 0.0) + time.perf_counter() - started
        self._counts[name] = self._counts.get(name, 0) + 1

    def take_means(self) -> Dict[str, float]:
        """The mean seconds per call of each phase since the last take; starts over."""
        means = {name: total / self._counts[name] for name, total in self._sums.items()}
        self._sums, self._counts = {}, {}
        return means


def _cuda_synchronize() -> Optional[Callable[[], None]]:
    import torch

    return torch.cuda.synchronize if torch.cuda.is_available() else None


class TrainerProfiling:
    """Turns ``profiler`` (a core ``ProfilerContext``) on and off at the window's edges, and hands
    out the timings of the batches inside it."""

    def __init__(self, settings: ProfilingSettings, profiler: Any, time_loop: bool = True) -> None:
        """``time_loop``: whether this worker times its loop (one per machine: the local chief,
        whose timings are reported under the machine's agent id)."""
        self.settings = settings
        self._profiler = profiler
        sync = _cuda_synchronize() if settings.sync_timings else None
        self._timings = LoopTimings(sync) if time_loop else None

    def before_batch(self, batch_idx: int) -> Optional[LoopTimings]:
        """The timings to record batch ``batch_idx`` in, or None outside the window (where the
        profiler is turned off)."""
        inside = self.settings.covers(batch_idx)
        if inside and not self._profiler.is_on:
            logger.info(f"profiling from batch {batch_idx}")
            self._profiler.on()
        elif not inside and self._profiler.is_on:
            self._profiler.off()
        return self._timings if inside else None

    def report(self, steps_completed: int) -> None:
        """Reports the timings since the last report, if any."""
        means = self._timings.take_means() if self._timings is not None else None
        if means:
            self._profiler._report_nested(TIMINGS_GROUP, means, steps_completed)
