"""An agent killed with SIGKILL and restarted within the pool's agent_reconnect_wait adopts the task it
left running: the same trial process (never restarted) finishes, every line it printed reaches the
trial log, including those printed while no agent was up, and no metric is lost."""
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import BIN, local_cluster, log_texts, wait_for

STEPS = 160

STEPPER = f"""
import os
import sys
import time
import determined as det

with det.core.init() as ctx:
    print("process", os.getpid(), "running", flush=True)
    for step in range(1, {STEPS} + 1):
        time.sleep(0.05)
        print("step", step, flush=True)
        if step % 40 == 0:
            print("stderr step", step, file=sys.stderr, flush=True)
            ctx.train.report_training_metrics(steps_completed=step, metrics={{"loss": 1.0 / step}})
    ctx.train.report_validation_metrics(steps_completed={STEPS}, metrics={{"loss": 0.5}})
    print("finished", flush=True)
"""


class Agent:
    """One determined-agent process that the test can kill and start again on the same work dir."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.work = cluster.data_dir / "restart-agent"
        self.work.mkdir()
        self.runs = 0
        self.process = None

    def start(self):
        self.runs += 1
        env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
        self.process = subprocess.Popen(
            [str(BIN / "determined-agent"), "--master-url", self.cluster.master_url, "--id", "restart-agent",
             "--slots", "1", "--work-dir", str(self.work)],
            stdout=open(self.log(self.runs), "w"), stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def log(self, run):
        return self.cluster.data_dir / f"restart-agent.{run}.log"

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    config = "resource_pools:\n  - pool_name: default\n    agent_reconnect_wait: 60s\n"
    with local_cluster(tmp_path_factory.mktemp("agent_restart"), agents=0, master_config=config) as cluster:
        agent = Agent(cluster)
        agent.start()
        try:
            wait_for(lambda: cluster.get("/api/v1/agents")["agents"], "the agent to register")
            yield cluster, agent
        finally:
            agent.stop()


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def test_a_restarted_agent_adopts_its_running_trial(setup, tmp_path):
    cluster, agent = setup
    exp_id, trial_id = cluster.run_script(tmp_path, "stepper", STEPPER)
    text = wait_for(lambda: (lambda t: "step 40\n" in t and t)(cluster.trial_logs(trial_id)), "step 40", timeout=120)
    pid = int(re.search(r"Process started on agent \S+ \(pid (\d+)\)", text).group(1))

    agent.kill()
    time.sleep(2)  # the trial keeps printing while no agent is up
    assert alive(pid), "killing the agent does not kill its tasks"
    agent.start()

    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    assert "adopted the task left running" in agent.log(2).read_text()
    logs = cluster.trial_logs(trial_id)
    assert logs.count(" running") == 1, "one process, never restarted:\n" + logs
    assert "finished" in logs
    printed = [line for line in log_texts(logs) if re.fullmatch(r"step \d+", line)]
    expected = [f"step {n}" for n in range(1, STEPS + 1)]
    assert sorted(set(printed), key=lambda s: int(s.split()[1])) == expected, "no line lost across the restart"
    # A batch shipped just before the kill but not yet recorded as shipped is sent again; nothing more.
    assert len(printed) - len(expected) <= 10, f"{len(printed) - len(expected)} lines shipped twice"
    assert logs.count("stderr step") == STEPS // 40
    trial = cluster.trials(exp_id)[0]
    assert trial["restarts"] == 0
    steps = [m["totalBatches"] for m in cluster.metrics(trial_id, "training")]
    assert steps == [40, 80, 120, 160], "no report lost across the restart"
    assert not (agent.work / "runtime" / "").exists() or not any((agent.work / "runtime").iterdir()), \
        "the task's state is cleaned up once its exit was reported"
