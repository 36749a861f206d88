"""
The GPU figures of a trial: each of the task's GPUs is sampled through NVML every second, and every ten
samples their averages are reported as upstream's system metrics group ``gpu``:
``{AGENT_ID: {GPU_UUID: {"gpu_util": PERCENT, "gpu_free_memory": BYTES}}}``. As upstream, only for trials
whose config has ``profiling: {enabled: true}``; NVML is loaded at run time (libnvidia-ml.so.1), and without
it (or without GPUs) nothing is reported and nothing fails.
"""
import logging
import threading
from typing import Any, Callable, Dict, List, Optional

logger = logging.getLogger("determined.core")


class GpuFigures(threading.Thread):
    def __init__(
        self,
        reader: Any,
        uuids: List[str],
        agent_id: str,
        report: Callable[[Dict[str, Any]], None],
        sampling_interval: float = 1.0,
        samples_per_report: int = 10,
    ) -> None:
        super().__init__(daemon=True, name="gpu-figures")
        self._reader = reader
        self._uuids = set(uuids)
        self._agent_id = agent_id
        self._report = report
        self._interval = sampling_interval
        self._per_report = samples_per_report
        self._stopping = threading.Event()
        self._samples: List[List[Dict[str, Any]]] = []

    def run(self) -> None:
        try:
            while not self._stopping.wait(self._interval):
                self._samples.append([r for r in self._reader.read() if r["uuid"] in self._uuids])
                if len(self._samples) >= self._per_report:
                    self._flush()
        except Exception as e:  # a GPU figure is never worth a failed trial
            logger.warning(f"GPU figures stopped: {e}")

    def _flush(self) -> None:
        sums: Dict[str, Dict[str, float]] = {}
        counts: Dict[str, int] = {}
        for sample in self._samples:
            for r in sample:
                s = sums.setdefault(r["uuid"], {"gpu_util": 0.0, "gpu_free_memory": 0.0})
                s["gpu_util"] += r["gpu_util"]
                s["gpu_free_memory"] += r["gpu_free_memory"]
                counts[r["uuid"]] = counts.get(r["uuid"], 0) + 1
        self._samples = []
        if sums:
            self._report({self._agent_id: {u: {k: v / counts[u] for k, v in s.items()} for u, s in sums.items()}})

    def close(self) -> None:
        """Stops sampling and reports what was sampled since the last report."""
        self._stopping.set()
        if self.is_alive():
            self.join()
        if self._samples:
            self._flush()


def start(
    info: Any, report: Callable[[Dict[str, Any]], None], library: str = "libnvidia-ml.so.1"
) -> Optional[GpuFigures]:
    """A started GpuFigures for the trial of ``info``, or None when there is nothing to sample."""
    config = (info.trial._config if info.trial else {}) or {}
    if not (config.get("profiling") or {}).get("enabled"):
        return None
    uuids = info.gpu_uuids
    if not uuids:
        return None
    from determined._native import native

    try:
        reader = native().NvmlReader.open(library)
    except Exception as e:
        logger.info(f"no GPU figures: {e}")
        return None
    figures = GpuFigures(reader, uuids, info.agent_id, report)
    figures.start()
    return figures
