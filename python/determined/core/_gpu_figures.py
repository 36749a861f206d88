"""
The profiler's ``gpu`` group: the task's own GPUs read through NVML (``src/harness/nvml_reader.h``,
which loads libnvidia-ml.so.1 at run time), one sample ``{GPU_UUID: {"gpu_util": PERCENT,
"gpu_free_memory": BYTES}}``, as upstream's. GPUs of other tasks on the same machine are left out.
Without NVML or without GPUs there is no collector, hence no ``gpu`` group, and nothing fails.
"""
import logging
from typing import Any, Iterable, Optional

logger = logging.getLogger("determined.core")

NVML_LIBRARY = "libnvidia-ml.so.1"


class GpuCollector:
    group = "gpu"

    def __init__(self, reader: Any, uuids: Iterable[str]) -> None:
        """``reader.read()`` returns ``[{uuid, gpu_util, gpu_free_memory}]`` of every GPU NVML shows."""
        self._reader = reader
        self._uuids = set(uuids)

    def sample(self) -> dict:
        return {
            r["uuid"]: {"gpu_util": float(r["gpu_util"]), "gpu_free_memory": float(r["gpu_free_memory"])}
            for r in self._reader.read()
            if r["uuid"] in self._uuids
        }


def open_collector(uuids: Iterable[str], library: str = NVML_LIBRARY) -> Optional[GpuCollector]:
    """A collector of the GPUs ``uuids``, or None when there are none or NVML cannot be loaded."""
    uuids = list(uuids)
    if not uuids:
        return None
    from determined._native import native

    try:
        reader = native().NvmlReader.open(library)
    except Exception as e:
        logger.info(f"no gpu profiling group: {e}")
        return None
    return GpuCollector(reader, uuids)
