"""core_context.profiler (determined.core._profiler): arguments, sampling and averaging with fake
collectors, clean stops; the real collectors' names; and a real trial's profiler (det.core.init() in
a trial's environment) reporting upstream's groups to a recording master."""
import json
import logging
import math
import threading
import time

import pytest

import determined as det
from determined import _info, core
from determined.core import _profiler, _system_metrics


class Counting:
    """A collector whose n-th sample is {"value": n, "per": {"x": 10 * n}}."""

    def __init__(self, group="fake", fail_at=None):
        self.group = group
        self.n = 0
        self.fail_at = fail_at

    def sample(self):
        self.n += 1
        if self.n == self.fail_at:
            raise OSError("device gone")
        return {"value": self.n, "per": {"x": 10 * self.n}}


def wait_until(predicate, timeout=10):
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, "timed out"
        time.sleep(0.01)


def profiler_of(collectors, reports, **kwargs):
    return _profiler.ProfilerContext(
        lambda group, metrics, steps: reports.append((group, metrics, steps)), "agent-7",
        lambda: collectors, **kwargs)


def sampler_threads():
    return [t for t in threading.enumerate() if t.name == "det-profiler"]


@pytest.mark.parametrize("kwargs, error, words", [
    ({"sampling_interval": 0.05}, ValueError, "sampling_interval: must be at least 0.1 (seconds), got 0.05"),
    ({"sampling_interval": 0}, ValueError, "sampling_interval: must be at least 0.1"),
    ({"sampling_interval": float("nan")}, ValueError, "sampling_interval: must be at least 0.1"),
    ({"sampling_interval": "1"}, TypeError, "sampling_interval: must be a number of seconds, got '1'"),
    ({"sampling_interval": True}, TypeError, "sampling_interval: must be a number"),
    ({"samples_per_report": 0}, ValueError, "samples_per_report: must be at least 1, got 0"),
    ({"samples_per_report": 2.5}, TypeError, "samples_per_report: must be an int"),
])
def test_bad_arguments_are_refused_naming_the_argument(kwargs, error, words):
    reports = []
    made = []
    profiler = _profiler.ProfilerContext(lambda *a: reports.append(a), "agent-7",
                                         lambda: made.append(1) or [Counting()])
    with pytest.raises(error) as e:
        profiler.on(**kwargs)
    assert words in str(e.value)
    assert not profiler.is_on and not made and not sampler_threads()
    with pytest.raises(error):  # off-cluster too, so a script fails the same way everywhere
        _profiler.DummyProfilerContext().on(**kwargs)


def test_every_report_averages_its_samples_per_group_under_the_agent_id():
    reports = []
    profiler = profiler_of([Counting("cpu"), Counting("disk")], reports)
    profiler.on(sampling_interval=0.1, samples_per_report=3)
    wait_until(lambda: len(reports) >= 4)
    profiler.off()
    by_group = {}
    for group, metrics, steps in reports:
        by_group.setdefault(group, []).append(metrics)
        assert steps == 0
    # Samples 1..3 then 4..6 of each group.
    assert by_group["cpu"][:2] == [{"agent-7": {"value": 2.0, "per": {"x": 20.0}}},
                                   {"agent-7": {"value": 5.0, "per": {"x": 50.0}}}]
    assert by_group["disk"][:2] == by_group["cpu"][:2]


def test_off_reports_what_was_sampled_since_the_last_report_and_stops_the_thread():
    reports = []
    collector = Counting("memory")
    profiler = profiler_of([collector], reports)
    profiler.on(sampling_interval=0.1, samples_per_report=1000)
    wait_until(lambda: collector.n >= 2)
    profiler.off()
    assert not sampler_threads()
    sampled = collector.n
    assert len(reports) == 1 and reports[0][0] == "memory"
    assert reports[0][1]["agent-7"]["value"] == pytest.approx((1 + sampled) / 2)
    time.sleep(0.3)
    assert collector.n == sampled, "no sample after off()"
    profiler.off()  # idempotent
    assert len(reports) == 1


def test_on_twice_keeps_one_thread_and_on_after_off_starts_again(caplog):
    reports = []
    profiler = profiler_of([Counting()], reports)
    profiler.on(sampling_interval=0.1)
    profiler.on(sampling_interval=0.1)
    assert len(sampler_threads()) == 1
    profiler.on(sampling_interval=0.5)
    assert "already on" in caplog.text and len(sampler_threads()) == 1
    profiler.off()
    profiler.on(sampling_interval=0.1)
    assert profiler.is_on and len(sampler_threads()) == 1
    profiler._close()
    assert not profiler.is_on and not sampler_threads()


def test_a_worker_that_is_not_its_machines_first_samples_nothing():
    made = []
    profiler = _profiler.ProfilerContext(lambda *a: None, "agent-7", lambda: made.append(1) or [],
                                         local_chief=False)
    profiler.on()
    assert profiler.is_on and not made and not sampler_threads()
    profiler.off()


def test_a_failing_collector_is_dropped_and_the_others_go_on(caplog):
    reports = []
    failing, steady = Counting("gpu", fail_at=2), Counting("cpu")
    profiler = profiler_of([failing, steady], reports)
    profiler.on(sampling_interval=0.1, samples_per_report=2)
    wait_until(lambda: steady.n >= 5)
    profiler.off()
    assert "stopped sampling the gpu group: device gone" in caplog.text
    assert failing.n == 2, "not sampled again"
    assert [g for g, _, _ in reports].count("cpu") >= 2
    assert "gpu" not in [g for g, _, _ in reports]


def test_a_failing_report_does_not_stop_sampling(caplog):
    calls = []

    def report(group, metrics, steps):
        calls.append(group)
        raise RuntimeError("master unreachable")

    collector = Counting("cpu")
    profiler = _profiler.ProfilerContext(report, "agent-7", lambda: [collector])
    profiler.on(sampling_interval=0.1, samples_per_report=1)
    wait_until(lambda: len(calls) >= 3)
    profiler.off()
    assert "reporting the cpu group failed: master unreachable" in caplog.text


def test_average_is_per_key_and_nested():
    samples = [{"a": 1, "m": {"/": {"u": 10}}, "b": True, "s": "text"},
               {"a": 3, "m": {"/": {"u": 20}, "/data": {"u": 4}}, "only": 5}]
    assert _system_metrics.average(samples) == {
        "a": 2.0, "only": 5.0, "m": {"/": {"u": 15.0}, "/data": {"u": 4.0}}}
    assert _system_metrics.average([]) == {}


def test_rates_are_per_second_since_the_previous_reading():
    now = [100.0]
    rates = _system_metrics._Rates({"bytes": 1000.0}, lambda: now[0])
    now[0] = 102.0
    assert rates.update({"bytes": 5000.0}) == {"bytes": 2000.0}
    now[0] = 103.0
    assert rates.update({"bytes": 10.0}) == {"bytes": 0.0}, "a counter that went back counts as none"


def test_real_collectors_give_upstreams_names(tmp_path):
    collectors = _system_metrics.machine_collectors(["/", str(tmp_path), "/no/such/dir"], gpu_uuids=[])
    assert [c.group for c in collectors] == ["cpu", "memory", "disk", "network"], "no gpu without GPUs"
    time.sleep(0.05)
    cpu, memory, disk, network = (c.sample() for c in collectors)
    assert set(cpu) == {"cpu_util_simple"} and 0 <= cpu["cpu_util_simple"] <= 100
    assert set(memory) == {"memory_free"} and memory["memory_free"] > 0
    assert set(network) == {"net_throughput_sent", "net_throughput_recv"}
    assert all(v >= 0 for v in network.values())
    mounts = sorted({"/", _system_metrics.mount_point(str(tmp_path))})
    assert collectors[2].mounts == mounts
    for mount in mounts:
        assert 0 <= disk[mount]["disk_util"] <= 100
    rates = {k: v for k, v in disk.items() if not isinstance(v, dict)}
    assert set(rates) in ({"disk_iops", "disk_throughput_read", "disk_throughput_write"}, set())
    assert all(v >= 0 and math.isfinite(v) for v in rates.values())


def test_off_cluster_the_profiler_is_there_and_samples_nothing(caplog, tmp_path):
    caplog.set_level(logging.INFO, logger="determined.core")
    with core._dummy_init(checkpoint_storage=str(tmp_path)) as core_context:
        assert isinstance(core_context.profiler, core.DummyProfilerContext)
        core_context.profiler.on()
        core_context.profiler.off()
    assert "system metrics are not collected" in caplog.text
    assert not sampler_threads()


def metric_reports(posts):
    """The metric reports among the stand-in master's POSTs (one per report, batches unpacked)."""
    reports = []
    for path, body in list(posts):
        if "/metrics" in path:
            reports.extend(body["reports"] if path.endswith("/batch") else [body])
    return reports


def set_profiling(monkeypatch, env, profiling):
    config = json.loads(env["DET_EXPERIMENT_CONFIG"])
    config["profiling"] = profiling
    monkeypatch.setenv("DET_EXPERIMENT_CONFIG", json.dumps(config))
    _info._reset_cluster_info_for_test()


def test_a_trial_with_profiling_enabled_reports_upstreams_groups(stand_in_master, trial_env, monkeypatch):
    set_profiling(monkeypatch, trial_env, {"enabled": True})
    with det.core.init() as core_context:
        assert core_context.profiler.is_on
        time.sleep(1.3)  # one sample at the default interval; leaving reports it
    assert not sampler_threads()
    groups = {r["group"]: r["metrics"] for r in metric_reports(stand_in_master)}
    assert set(groups) == {"cpu", "memory", "disk", "network"}, "gpu only with GPUs and NVML"
    for group, body in groups.items():
        assert body["trialId"] == 7 and body["trialRunId"] == 2
        assert list(body["metrics"]["avgMetrics"]) == ["agent-1"], (group, body)
    assert set(groups["cpu"]["metrics"]["avgMetrics"]["agent-1"]) == {"cpu_util_simple"}
    assert set(groups["memory"]["metrics"]["avgMetrics"]["agent-1"]) == {"memory_free"}
    disk = groups["disk"]["metrics"]["avgMetrics"]["agent-1"]
    assert disk["/"]["disk_util"] > 0


def test_a_trial_without_profiling_reports_nothing_until_turned_on(stand_in_master, trial_env, monkeypatch):
    set_profiling(monkeypatch, trial_env, {"enabled": False})
    with det.core.init() as core_context:
        assert not core_context.profiler.is_on
        time.sleep(0.3)
        assert not sampler_threads()
        core_context.profiler.on(sampling_interval=0.1, samples_per_report=2)
        wait_until(lambda: any(r["group"] == "network" for r in metric_reports(stand_in_master)))
        core_context.profiler.off()
    assert {"cpu", "memory", "disk", "network"} <= {r["group"] for r in metric_reports(stand_in_master)}
