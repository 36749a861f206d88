"""The GPU figures of a trial (determined.core._gpu_figures): averages of NVML samples of the task's own GPUs,
reported as upstream's "gpu" group; nothing without profiling, GPUs or NVML."""
import time
import types

from determined.core import _gpu_figures


class Reader:
    """NVML as the real one answers (shared/fixtures/gpu-h200/nvml.json), with a utilisation per sample."""

    def __init__(self, utils):
        self.utils = list(utils)

    def read(self):
        util = self.utils.pop(0) if self.utils else 0
        return [{"uuid": "GPU-a", "gpu_util": util, "gpu_free_memory": 150109880320},
                {"uuid": "GPU-other-task", "gpu_util": 99, "gpu_free_memory": 1}]


def test_averages_of_the_tasks_own_gpus_in_upstreams_shape():
    reports = []
    figures = _gpu_figures.GpuFigures(Reader([10, 20, 30, 40]), ["GPU-a"], "agent-0", reports.append,
                                      sampling_interval=0.01, samples_per_report=2)
    figures.start()
    deadline = time.time() + 10
    while len(reports) < 2 and time.time() < deadline:
        time.sleep(0.01)
    figures.close()
    assert reports[0] == {"agent-0": {"GPU-a": {"gpu_util": 15.0, "gpu_free_memory": 150109880320.0}}}
    assert reports[1]["agent-0"]["GPU-a"]["gpu_util"] == 35.0


def test_close_reports_what_was_sampled_since_the_last_report():
    reports = []
    figures = _gpu_figures.GpuFigures(Reader([50]), ["GPU-a"], "agent-0", reports.append,
                                      sampling_interval=0.01, samples_per_report=1000)
    figures.start()
    deadline = time.time() + 10
    while not figures._samples and time.time() < deadline:
        time.sleep(0.01)
    figures.close()
    assert reports and reports[0]["agent-0"]["GPU-a"]["gpu_util"] >= 0


def info(profiling, uuids):
    return types.SimpleNamespace(trial=types.SimpleNamespace(_config={"profiling": {"enabled": profiling}}),
                                 gpu_uuids=uuids, agent_id="agent-0")


def test_nothing_without_profiling_gpus_or_nvml():
    assert _gpu_figures.start(info(False, ["GPU-a"]), print) is None
    assert _gpu_figures.start(info(True, []), print) is None
    assert _gpu_figures.start(info(True, ["GPU-a"]), print, library="libnvidia-ml-not-here.so.1") is None
