"""An agent (and the trial it ran) killed with SIGKILL, as when its machine dies: once the pool's
agent_reconnect_wait has passed, the master restarts the trial from its latest checkpoint on the other
agent, without counting a restart, and no metric reported before the kill is lost."""
import json
import os
import re
import signal

import pytest

from conftest import local_cluster, wait_for

STEPPER = """
import time
import determined as det

info = det.get_cluster_info()
start = 0
with det.core.init() as ctx:
    if info.latest_checkpoint:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            start = int((path / "step").read_text())
        print("resumed at step", start, flush=True)
    for step in range(start + 1, 101):
        time.sleep(0.05)
        if step % 10 == 0:
            ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
            with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
                (path / "step").write_text(str(step))
            print("checkpointed step", step, flush=True)
    ctx.train.report_validation_metrics(steps_completed=100, metrics={"loss": 0.5})
    print("finished", flush=True)
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "resource_pools:\n  - pool_name: default\n    agent_reconnect_wait: 3s\n"
    with local_cluster(tmp_path_factory.mktemp("agent_kill"), agents=2, slots=1, master_config=config) as c:
        yield c


def test_a_killed_agents_trial_resumes_on_another_agent(cluster, tmp_path):
    exp_id, trial_id = cluster.run_script(tmp_path, "stepper", STEPPER)
    text = wait_for(lambda: (lambda t: "checkpointed step 30" in t and t)(cluster.trial_logs(trial_id)),
                    "step 30", timeout=120)
    agent = re.search(r"assigned to agent (agent-\d+)", text).group(1)
    pid = int(re.search(r"Process started on agent \S+ \(pid (\d+)\)", text).group(1))
    record = json.loads((cluster.data_dir / "cluster.json").read_text())
    os.kill(record["agent_pids"][int(agent.split("-")[1])], signal.SIGKILL)
    os.killpg(pid, signal.SIGKILL)  # the machine is gone: its processes with it

    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    text = cluster.trial_logs(trial_id)
    other = "agent-1" if agent == "agent-0" else "agent-0"
    assert f"assigned to agent {other}" in text
    resumed = int(re.search(r"resumed at step (\d+)", text).group(1))
    assert resumed >= 30
    trial = cluster.trials(exp_id)[0]
    assert trial["restarts"] == 0, "a lost agent is not the trial's fault"
    steps = [m["totalBatches"] for m in cluster.metrics(trial_id, "training")]
    assert steps[:3] == [10, 20, 30], "reports from before the kill are kept"
    assert steps[-1] == 100
    assert [a["id"] for a in cluster.get("/api/v1/agents")["agents"]] == [other]
