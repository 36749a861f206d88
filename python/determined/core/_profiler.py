"""
``core_context.profiler``: system metrics of the machine a trial runs on, sampled in the background
and reported as trial metrics in upstream's profiling groups (``cpu``, ``memory``, ``disk``,
``network``, ``gpu``; names in ``core._system_metrics``), each report nested under the agent id:
``{"agent-0": {"cpu_util_simple": 12.5}}``. The Web UI's Profiler tab charts them, and
``GET /api/v1/trials/metrics/trial_metrics?trialIds=ID&group=cpu`` returns them.

One thread samples every collector each ``sampling_interval`` seconds and, every
``samples_per_report`` samples, reports each group's averages. Reporting only queues the report
(the train context's native reporter sends it in the background), so upstream's second thread,
which ships reports, is not needed here.
"""
import logging
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from determined.core import _system_metrics

logger = logging.getLogger("determined.core")

# report(group, metrics, steps_completed): queues one trial metrics report of ``group``.
Report = Callable[[str, Dict[str, Any], int], None]

MIN_SAMPLING_INTERVAL = 0.1
_STOP_TIMEOUT = 10.0  # seconds off() waits for a sample in progress (a hung NFS statvfs, say)


def _check_arguments(sampling_interval: Any, samples_per_report: Any) -> Tuple[float, int]:
    if isinstance(sampling_interval, bool) or not isinstance(sampling_interval, (int, float)):
        raise TypeError(
            f"sampling_interval: must be a number of seconds, got {sampling_interval!r}"
        )
    if not sampling_interval >= MIN_SAMPLING_INTERVAL:  # also refuses NaN
        raise ValueError(
            f"sampling_interval: must be at least {MIN_SAMPLING_INTERVAL} (seconds), got "
            f"{sampling_interval}"
        )
    if isinstance(samples_per_report, bool) or not isinstance(samples_per_report, int):
        raise TypeError(
            f"samples_per_report: must be an int (samples averaged into one report), got "
            f"{samples_per_report!r}"
        )
    if samples_per_report < 1:
        raise ValueError(f"samples_per_report: must be at least 1, got {samples_per_report}")
    return float(sampling_interval), samples_per_report


class _Sampler(threading.Thread):
    """Samples ``collectors`` every ``interval`` seconds; reports averages every ``per_report``
    samples, and what it has left when stopped."""

    def __init__(
        self,
        collectors: List[Any],
        report: Callable[[str, Dict[str, Any]], None],
        interval: float,
        per_report: int,
    ) -> None:
        super().__init__(daemon=True, name="det-profiler")
        self._collectors = collectors
        self._report = report
        self._interval = interval
        self._per_report = per_report
        self._stopping = threading.Event()
        self._samples: Dict[str, List[Dict[str, Any]]] = {c.group: [] for c in collectors}
        self._count = 0

    def run(self) -> None:
        next_at = time.monotonic() + self._interval
        # Deadlines on a fixed grid: a slow sample shortens the next wait instead of drifting.
        while not self._stopping.wait(max(next_at - time.monotonic(), 0.0)):
            next_at += self._interval
            self._sample()
            if self._count >= self._per_report:
                self._flush()
        self._flush()

    def _sample(self) -> None:
        for collector in list(self._collectors):
            try:
                self._samples[collector.group].append(collector.sample())
            except Exception as e:  # a figure is never worth a failed trial
                logger.warning(f"profiler: stopped sampling the {collector.group} group: {e}")
                self._collectors.remove(collector)
                self._samples.pop(collector.group, None)
        self._count += 1

    def _flush(self) -> None:
        for group, samples in self._samples.items():
            values = _system_metrics.average(samples)
            samples.clear()
            if not values:
                continue
            try:
                self._report(group, values)
            except Exception as e:
                logger.warning(f"profiler: reporting the {group} group failed: {e}")
        self._count = 0

    def stop(self) -> None:
        self._stopping.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(_STOP_TIMEOUT)
            if self.is_alive():
                logger.warning("profiler: a sample is still running; leaving it behind")


class ProfilerContext:
    """
    Turns system metrics profiling on and off (``core_context.profiler``):

    .. code:: python

        with det.core.init() as core_context:
            core_context.profiler.on()   # or profiling: {enabled: true} in the experiment config
            ...
            core_context.profiler.off()  # optional: leaving the context turns it off

    Only the first worker of each machine (local rank 0) samples: the figures are the machine's.
    """

    def __init__(
        self,
        report: Report,
        agent_id: str,
        collectors: Callable[[], List[Any]],
        local_chief: bool = True,
    ) -> None:
        """
        ``report(group, metrics, steps_completed)`` queues a trial metrics report;
        ``collectors()`` builds the collectors (``core._system_metrics``) when profiling starts.
        """
        self._report = report
        self._agent_id = agent_id
        self._make_collectors = collectors
        self._local_chief = local_chief
        self._lock = threading.Lock()
        self._settings: Optional[Tuple[float, int]] = None
        self._sampler: Optional[_Sampler] = None

    @property
    def is_on(self) -> bool:
        return self._settings is not None

    def on(self, sampling_interval: float = 1, samples_per_report: int = 10) -> None:
        """
        Starts sampling every ``sampling_interval`` seconds (at least 0.1) and reporting the
        averages of every ``samples_per_report`` samples (at least 1). Does nothing when already
        on (call :meth:`off` first to change the settings).
        """
        settings = _check_arguments(sampling_interval, samples_per_report)
        with self._lock:
            if self._settings is not None:
                if settings != self._settings:
                    logger.warning(
                        f"profiler.on{settings}: already on with {self._settings}; call off() "
                        "first to change the settings"
                    )
                return
            self._settings = settings
            if not self._local_chief:
                return
            collectors = self._make_collectors()
            logger.info(
                f"profiler on: groups {', '.join(c.group for c in collectors)}, a sample every "
                f"{settings[0]:g} s, a report every {settings[1]} samples"
            )
            self._sampler = _Sampler(collectors, self._report_nested, *settings)
            self._sampler.start()

    def off(self) -> None:
        """Stops sampling; what was sampled since the last report is reported. Idempotent."""
        with self._lock:
            sampler, self._sampler, self._settings = self._sampler, None, None
        if sampler is not None:
            sampler.stop()
            logger.info("profiler off")

    def _report_nested(self, group: str, values: Dict[str, Any], steps_completed: int = 0) -> None:
        """Reports ``values`` as ``group``, nested under this machine's agent id, as upstream."""
        self._report(group, {self._agent_id: values}, steps_completed)

    def _close(self) -> None:
        self.off()


class DummyProfilerContext(ProfilerContext):
    """Where there is no trial to report to (off-cluster, non-trial tasks): nothing is sampled."""

    def __init__(self, why: str = "off-cluster") -> None:
        self._why = why
        self._settings = None
        self._lock = threading.Lock()
        self._sampler = None

    def on(self, sampling_interval: float = 1, samples_per_report: int = 10) -> None:
        _check_arguments(sampling_interval, samples_per_report)
        if self._settings is None:
            logger.info(f"profiler.on(): {self._why}, system metrics are not collected")
        self._settings = (float(sampling_interval), samples_per_report)

    def off(self) -> None:
        self._settings = None

    def _report_nested(self, group: str, values: Dict[str, Any], steps_completed: int = 0) -> None:
        logger.debug(f"profiler ({self._why}): {group} {values}")
