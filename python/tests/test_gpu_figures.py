"""The profiler's gpu group (determined.core._gpu_figures): NVML readings of the task's own GPUs in
upstream's shape, averaged by the profiler; no collector without GPUs or NVML."""
import time

from determined.core import _gpu_figures, _profiler


class Reader:
    """NVML as the real one answers (shared/fixtures/gpu-h200/nvml.json), with a utilisation per sample."""

    def __init__(self, utils):
        self.utils = list(utils)

    def read(self):
        util = self.utils.pop(0) if self.utils else 0
        return [{"uuid": "GPU-a", "gpu_util": util, "gpu_free_memory": 150109880320},
                {"uuid": "GPU-other-task", "gpu_util": 99, "gpu_free_memory": 1}]


def test_a_sample_holds_the_tasks_own_gpus_only():
    collector = _gpu_figures.GpuCollector(Reader([10]), ["GPU-a"])
    assert collector.group == "gpu"
    assert collector.sample() == {"GPU-a": {"gpu_util": 10.0, "gpu_free_memory": 150109880320.0}}


def test_the_profiler_reports_averages_per_gpu_under_the_agent_id():
    reports = []
    profiler = _profiler.ProfilerContext(
        lambda group, metrics, steps: reports.append((group, metrics)), "agent-0",
        lambda: [_gpu_figures.GpuCollector(Reader([10, 20, 30, 40]), ["GPU-a"])])
    profiler.on(sampling_interval=0.1, samples_per_report=2)
    deadline = time.time() + 10
    while len(reports) < 2 and time.time() < deadline:
        time.sleep(0.02)
    profiler.off()
    assert reports[0] == ("gpu", {"agent-0": {"GPU-a": {"gpu_util": 15.0, "gpu_free_memory": 150109880320.0}}})
    assert reports[1][1]["agent-0"]["GPU-a"]["gpu_util"] == 35.0


def test_no_collector_without_gpus_or_nvml():
    assert _gpu_figures.open_collector([]) is None
    assert _gpu_figures.open_collector(["GPU-a"], library="libnvidia-ml-not-here.so.1") is None
