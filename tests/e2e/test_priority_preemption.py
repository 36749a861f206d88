"""Priority scheduling with preemption on a real two-agent cluster: a higher-priority experiment takes
the slots of a running lower-priority one, which checkpoints, waits in the queue, resumes from its
checkpoint and completes. The job queue shows both, in order."""
import re

import pytest

from conftest import local_cluster, stepper, wait_for




@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "resource_manager:\n  type: agent\n  scheduler:\n    type: priority\n    preemption: true\n"
    with local_cluster(tmp_path_factory.mktemp("priority"), agents=2, slots=1, master_config=config) as c:
        yield c


def create(cluster, tmp_path, name, priority, steps, trials):
    (tmp_path / "stepper.py").write_text(stepper(steps))
    (tmp_path / f"{name}.yaml").write_text(
        f"name: {name}\nentrypoint: python3 stepper.py\nsearcher: {{name: grid, metric: loss}}\nmax_restarts: 0\n"
        f"hyperparameters: {{x: {{type: categorical, vals: {list(range(trials))}}}}}\n"
        f"resources: {{slots_per_trial: 1, priority: {priority}}}\n")
    return cluster.create_experiment(tmp_path / f"{name}.yaml", tmp_path)


def queue(cluster):
    return [j["full"] for j in cluster.get("/api/v1/job-queues-v2")["jobs"]]


def test_a_higher_priority_experiment_preempts_a_lower_one_which_resumes(cluster, tmp_path):
    # Two low-priority trials hold both agents' slots.
    low = create(cluster, tmp_path, "low", priority=60, steps=150, trials=2)
    low_trials = wait_for(lambda: len(cluster.trials(low)) == 2 and cluster.trials(low), "the low trials")
    for t in low_trials:
        wait_for(lambda: "running from step 0" in cluster.trial_logs(t["id"]), "the low trials to run")

    high = create(cluster, tmp_path, "high", priority=10, steps=30, trials=1)
    preempted = wait_for(lambda: [t["id"] for t in low_trials if "stopped at step" in cluster.trial_logs(t["id"])],
                         "a low trial to be preempted")
    assert len(preempted) == 1, "one slot is enough for the high-priority trial"
    logs = cluster.trial_logs(preempted[0])
    assert "The priority scheduler of pool default preempts this task" in logs
    stopped = int(re.search(r"stopped at step (\d+)", logs).group(1))

    # The queue lists the high job first; the preempted low trial waits behind it.
    jobs = wait_for(lambda: [j for j in queue(cluster) if j["name"] == "high" and
                             j["summary"]["state"] == "STATE_SCHEDULED"] and queue(cluster),
                    "the high job to be scheduled")
    assert [j["name"] for j in jobs] == ["high", "low"]
    assert jobs[0]["priority"] == 10 and jobs[1]["priority"] == 60
    assert jobs[1]["summary"]["jobsAhead"] == 1

    assert cluster.wait_for_experiment(high, timeout=300) == "STATE_COMPLETED"
    assert cluster.wait_for_experiment(low, timeout=300) == "STATE_COMPLETED"
    text = cluster.trial_logs(preempted[0])
    assert f"resumed at step {stopped}" in text
    assert "finished" in text
    for trial in cluster.trials(low):
        assert trial["state"] == "STATE_COMPLETED"
        assert trial["restarts"] == 0, "a preemption does not count as a restart"


def test_a_request_larger_than_the_pool_is_refused_at_submission(cluster, tmp_path):
    (tmp_path / "big.yaml").write_text(
        "name: big\nentrypoint: python3 stepper.py\nsearcher: {name: single, metric: loss}\n"
        "resources: {slots_per_trial: 3}\n")
    (tmp_path / "stepper.py").write_text("print('never runs')\n")
    proc = cluster.det("experiment", "create", str(tmp_path / "big.yaml"), str(tmp_path), check=False)
    assert proc.returncode != 0
    assert "slots_per_trial" in proc.stderr
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text(
        "name: unknown\nentrypoint: python3 stepper.py\nsearcher: {name: single, metric: loss}\n"
        "resources: {resource_pool: gpus}\n")
    proc = cluster.det("experiment", "create", str(unknown), str(tmp_path), check=False)
    assert proc.returncode != 0
    assert 'no resource pool named "gpus"' in proc.stderr
