"""log_policies actions on a real two-agent cluster: `cancel_retries` makes a failure final although
max_restarts allows more, and `exclude_node` sends the retry to another agent."""
import re

import pytest

from conftest import local_cluster

FAILS_ON_FIRST_RUN = """
import os
import sys
import determined as det

info = det.get_cluster_info()
with det.core.init() as ctx:
    if int(os.environ["DET_TRIAL_RUN_ID"]) == 1:
        print(MESSAGE, flush=True)
        sys.exit(1)
    ctx.train.report_validation_metrics(steps_completed=1, metrics={"loss": 0.5})
    print("finished on", info.agent_id, flush=True)
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("log_policies"), agents=2, slots=1) as c:
        yield c


def run(cluster, tmp_path, message, policy):
    (tmp_path / "train.py").write_text(FAILS_ON_FIRST_RUN.replace("MESSAGE", repr(message)))
    (tmp_path / "exp.yaml").write_text(
        "name: log-policy\nentrypoint: python3 train.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 3\n"
        f"log_policies:\n  - {policy}\n")
    exp_id = cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)
    state = cluster.wait_for_experiment(exp_id, timeout=180)
    trial = cluster.trials(exp_id)[0]
    return state, trial, cluster.trial_logs(trial["id"])


def test_cancel_retries_makes_the_first_failure_final(cluster, tmp_path):
    state, trial, logs = run(cluster, tmp_path, "FATAL: the data is corrupt",
                             "{name: corrupt data, pattern: 'FATAL: .*corrupt', action: cancel_retries}")
    assert state == "STATE_ERROR"
    assert trial["restarts"] == 0
    assert 'Log policy "corrupt data" matched (cancel_retries)' in logs
    assert "finished" not in logs


def test_exclude_node_retries_on_another_agent(cluster, tmp_path):
    state, trial, logs = run(cluster, tmp_path, "uncorrectable ECC error encountered",
                             "{name: ECC, pattern: '.*uncorrectable ECC error encountered.*', action: exclude_node}")
    assert state == "STATE_COMPLETED"
    assert trial["restarts"] == 1
    first, second = re.findall(r"assigned to agent (agent-\d+)", logs)
    assert first != second
    assert f"the trial's retries avoid agent {first}" in logs
    assert f"finished on {second}" in logs
