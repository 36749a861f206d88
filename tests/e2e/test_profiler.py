"""The profiler on a real cluster: the digits PyTorchTrial (examples/digits_trial) with `profiling.enabled:
true` stores upstream's system metrics groups (cpu, memory, disk, network; gpu only with GPUs) and the
loop's timings, nested under the agent id, readable through GET /api/v1/trials/metrics/trial_metrics
(ours and Determined 0.38.1's SDK); the same trial without profiling stores none. Then the web UI's
Profiler tab in Chromium charts the profiled trial's groups and shows the unprofiled one's empty state
(screenshots in $PROFILER_SCREENSHOT_DIR, default the test's temp dir)."""
import json
import os
import pathlib
import subprocess
import textwrap

import pytest

from conftest import REPO, local_cluster, run_browser_script
import upstream

EXAMPLE = REPO / "examples/digits_trial"
SYSTEM_GROUPS = {
    "cpu": {"cpu_util_simple"},
    "memory": {"memory_free"},
    "network": {"net_throughput_sent", "net_throughput_recv"},
}
DISK_RATES = {"disk_iops", "disk_throughput_read", "disk_throughput_write"}
TIMINGS = {"dataloader_next", "to_device", "train_batch", "backward", "optimizer_step"}
# Long enough (20 to 40 s here) for the default settings, a report every 10 s, to report more than once.
PROFILED = ["--config", "profiling.enabled=true", "--config", "searcher.max_length.batches=60000",
            "--config", "min_validation_period.batches=15000", "--config", "min_checkpoint_period.batches=30000",
            "--config", "name=digits-profiled"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("profiler"), agents=1, slots=2) as c:
        yield c


@pytest.fixture(scope="module")
def trials(cluster):
    """(profiled trial id, unprofiled trial id), both completed."""
    profiled = cluster.create_experiment(EXAMPLE / "const.yaml", EXAMPLE, *PROFILED)
    plain = cluster.create_experiment(EXAMPLE / "const.yaml", EXAMPLE, "--config", "name=digits-unprofiled")
    ids = []
    for exp_id in (profiled, plain):
        state = cluster.wait_for_experiment(exp_id, timeout=600)
        trial = cluster.trials(exp_id)[0]["id"]
        assert state == "STATE_COMPLETED", cluster.trial_logs(trial)
        ids.append(trial)
    return tuple(ids)


def test_a_profiled_trial_stores_upstreams_groups_under_the_agent_id(cluster, trials):
    profiled, _ = trials
    for group, names in SYSTEM_GROUPS.items():
        reports = cluster.metrics(profiled, group)
        assert reports, f"no {group} rows"
        for r in reports:
            assert r["group"] == group and r["trialId"] == profiled
            assert list(r["metrics"]) == ["agent-0"], r
            assert set(r["metrics"]["agent-0"]) == names, r
            assert all(v >= 0 for v in r["metrics"]["agent-0"].values()), r
    cpu = cluster.metrics(profiled, "cpu")
    assert len(cpu) >= 2, f"a report every 10 s over tens of seconds of training: {cpu}"
    times = [r["endTime"] for r in cpu]
    assert times == sorted(times)
    assert 0 < max(r["metrics"]["agent-0"]["cpu_util_simple"] for r in cpu) <= 100

    for r in cluster.metrics(profiled, "disk"):
        disk = r["metrics"]["agent-0"]
        mounts = {k: v for k, v in disk.items() if isinstance(v, dict)}
        assert "/" in mounts and all(set(v) == {"disk_util"} and 0 < v["disk_util"] <= 100
                                     for v in mounts.values()), disk
        assert set(disk) - set(mounts) in (DISK_RATES, set()), disk
    assert cluster.metrics(profiled, "gpu") == [], "no GPU on a CPU agent: no gpu group"


def test_the_loops_timings_are_reported_with_the_training_metrics(cluster, trials):
    profiled, _ = trials
    timings = cluster.metrics(profiled, "timings")
    training = [r["totalBatches"] for r in cluster.metrics(profiled, "training")]
    assert [r["totalBatches"] for r in timings] == training
    for r in timings:
        phases = r["metrics"]["agent-0"]
        assert set(phases) == TIMINGS, phases
        assert 0 < phases["train_batch"] < 1 and phases["train_batch"] >= phases["backward"], phases


def test_an_unprofiled_trial_stores_no_profiler_rows(cluster, trials):
    _, plain = trials
    for group in [*SYSTEM_GROUPS, "disk", "gpu", "timings"]:
        assert cluster.metrics(plain, group) == [], group
    assert cluster.metrics(plain, "training"), "it did train"


def test_upstreams_sdk_reads_the_groups(cluster, trials):
    upstream.require_client()
    profiled, _ = trials
    script = textwrap.dedent(f"""
        import json
        from determined.experimental import client
        client.login()
        out = {{}}
        for group in ("cpu", "memory", "disk", "network"):
            rows = list(client.iter_trials_metrics([{profiled}], group=group))
            out[group] = [[r.trial_id, r.group, r.metrics] for r in rows]
        print(json.dumps(out))
    """)
    env = dict(os.environ, PYTHONPATH=str(upstream.site_dir()), DET_MASTER=cluster.master_url,
               DET_USER="determined", DET_PASS="", HOME=os.environ.get("HOME", "/tmp"))
    proc = subprocess.run(["/usr/bin/python3", "-c", script], capture_output=True, text=True, env=env,
                          timeout=240)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    for group, rows in seen.items():
        assert len(rows) == len(cluster.metrics(profiled, group)) and rows, group
        assert all(trial == profiled and g == group and list(m) == ["agent-0"] for trial, g, m in rows), rows
    assert set(seen["cpu"][0][2]["agent-0"]) == {"cpu_util_simple"}


def test_the_profiler_tab_in_a_browser(cluster, trials, tmp_path):
    profiled, plain = trials
    shots = pathlib.Path(os.environ.get("PROFILER_SCREENSHOT_DIR", tmp_path / "screenshots"))
    seen = run_browser_script("profiler.e2e.mjs", shots, DET_MASTER=cluster.master_url, DET_USER="determined",
                              DET_PASSWORD="", PROFILED_TRIAL=str(profiled), PLAIN_TRIAL=str(plain))
    # One chart per metric: cpu 1, memory 1, disk 3 rates + disk_util, network 2, timings 5.
    assert seen["groups"] == ["CPU", "Memory", "Disk", "Network", "Training loop timings"], seen
    assert seen["charts"] >= 1 + 1 + 1 + 2 + 5, seen
    assert seen["cpuPoints"] == len(cluster.metrics(profiled, "cpu")), seen
    assert (shots / "profiler-tab.png").stat().st_size > 10_000
    assert (shots / "profiler-empty.png").exists()
