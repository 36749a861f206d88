"""
What the profiler (``core._profiler``) samples: one collector per system metrics group, with upstream's
group and metric names, so that upstream's Web UI and dashboards read them unchanged.

======== ==========================================================================================
group    one sample (the profiler nests each report under the agent id)
======== ==========================================================================================
cpu      ``cpu_util_simple``: percent of all CPUs busy since the previous sample
memory   ``memory_free``: bytes available to new processes (psutil's ``available``)
disk     ``disk_iops``, ``disk_throughput_read``, ``disk_throughput_write`` (bytes/s, every disk of
         the machine) and ``{MOUNT: {"disk_util": PERCENT_USED}}`` per watched mount point
network  ``net_throughput_sent``, ``net_throughput_recv``: bytes/s over all interfaces
gpu      ``{GPU_UUID: {"gpu_util": PERCENT, "gpu_free_memory": BYTES}}`` (``core._gpu_figures``)
======== ==========================================================================================

Rates are per second over the time since the collector's previous sample (its creation for the
first one). A collector's ``sample()`` is called on the profiler's sampling thread only.
"""
import os
import time
from typing import Any, Callable, Dict, Iterable, List, Optional

import psutil

Sample = Dict[str, Any]


class CpuCollector:
    group = "cpu"

    def __init__(self) -> None:
        psutil.cpu_percent(interval=None)  # the first reading measures from this call

    def sample(self) -> Sample:
        return {"cpu_util_simple": float(psutil.cpu_percent(interval=None))}


class MemoryCollector:
    group = "memory"

    def sample(self) -> Sample:
        return {"memory_free": float(psutil.virtual_memory().available)}


class _Rates:
    """Per-second increase of named counters between two readings."""

    def __init__(self, counters: Dict[str, float], clock: Callable[[], float]) -> None:
        self._clock = clock
        self._last = counters
        self._at = clock()

    def update(self, counters: Dict[str, float]) -> Dict[str, float]:
        now = self._clock()
        elapsed = max(now - self._at, 1e-9)
        # A counter that went backwards (a device removed, a counter wrapped) counts as no traffic.
        rates = {k: max(v - self._last.get(k, v), 0.0) / elapsed for k, v in counters.items()}
        self._last, self._at = counters, now
        return rates


def _disk_counters() -> Optional[Dict[str, float]]:
    io = psutil.disk_io_counters()
    if io is None:  # no disk statistics in this machine's /proc (some containers)
        return None
    return {
        "ops": float(io.read_count + io.write_count),
        "read": float(io.read_bytes),
        "write": float(io.write_bytes),
    }


def mount_point(path: str) -> str:
    """The mount point holding ``path`` (which must exist)."""
    path = os.path.realpath(path)
    while not os.path.ismount(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


class DiskCollector:
    group = "disk"

    def __init__(self, paths: Iterable[str], clock: Callable[[], float] = time.monotonic) -> None:
        """``paths``: the directories whose file systems' use to report (missing ones are skipped)."""
        self._mounts = sorted({mount_point(p) for p in paths if p and os.path.exists(p)})
        counters = _disk_counters()
        self._rates = _Rates(counters, clock) if counters is not None else None

    @property
    def mounts(self) -> List[str]:
        return list(self._mounts)

    def sample(self) -> Sample:
        out: Sample = {}
        counters = _disk_counters() if self._rates is not None else None
        if self._rates is not None and counters is not None:
            rates = self._rates.update(counters)
            out["disk_iops"] = rates["ops"]
            out["disk_throughput_read"] = rates["read"]
            out["disk_throughput_write"] = rates["write"]
        for mount in self._mounts:
            out[mount] = {"disk_util": float(psutil.disk_usage(mount).percent)}
        return out


def _net_counters() -> Dict[str, float]:
    io = psutil.net_io_counters()
    return {"sent": float(io.bytes_sent), "recv": float(io.bytes_recv)}


class NetworkCollector:
    group = "network"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._rates = _Rates(_net_counters(), clock)

    def sample(self) -> Sample:
        rates = self._rates.update(_net_counters())
        return {"net_throughput_sent": rates["sent"], "net_throughput_recv": rates["recv"]}


def average(samples: List[Sample]) -> Sample:
    """
    The mean of each number over the samples that have it, key by key, nested dicts (a GPU's or a
    mount's figures) averaged the same way. ``[{"a": 1, "g": {"u": 2}}, {"a": 3, "g": {"u": 4}}]``
    gives ``{"a": 2.0, "g": {"u": 3.0}}``. Values that are neither numbers nor dicts are dropped.
    """
    sums: Dict[str, float] = {}
    counts: Dict[str, int] = {}
    nested: Dict[str, List[Sample]] = {}
    for sample in samples:
        for key, value in sample.items():
            if isinstance(value, dict):
                nested.setdefault(key, []).append(value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                sums[key] = sums.get(key, 0.0) + value
                counts[key] = counts.get(key, 0) + 1
    out: Sample = {key: total / counts[key] for key, total in sums.items()}
    for key, dicts in nested.items():
        inner = average(dicts)
        if inner:
            out[key] = inner
    return out


def machine_collectors(disk_paths: Iterable[str], gpu_uuids: Iterable[str]) -> List[Any]:
    """The collectors of every group this machine can give: ``gpu`` only with GPUs and NVML."""
    from determined.core import _gpu_figures

    collectors: List[Any] = [
        CpuCollector(),
        MemoryCollector(),
        DiskCollector(disk_paths),
        NetworkCollector(),
    ]
    gpu = _gpu_figures.open_collector(gpu_uuids)
    if gpu is not None:
        collectors.append(gpu)
    return collectors
