"""A network cut between an agent and the master (not a crash): the agent reaches the master through a
loopback TCP proxy the test controls. While the link is down the agent retries; its running trial is
not killed, and once the link is back the same process finishes the trial without a restart."""
import os
import socket
import subprocess
import threading
import time

import pytest

from conftest import BIN, local_cluster, wait_for

STEPPER = """
import os
import time
import determined as det

with det.core.init() as ctx:
    print("process", os.getpid(), "running", flush=True)
    for step in range(1, 121):
        time.sleep(0.1)
        if step % 20 == 0:
            ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
    ctx.train.report_validation_metrics(steps_completed=120, metrics={"loss": 0.5})
    print("finished", flush=True)
"""


class CuttableProxy:
    """Forwards 127.0.0.1:<port> to the master; cut() drops every connection and refuses new ones."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.sockets = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            client, _ = self.listener.accept()
            if not self.up:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.up = False
        with self.lock:
            for s in self.sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self.sockets = []

    def restore(self):
        self.up = True


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A cluster whose only agent reaches the master through a CuttableProxy."""
    with local_cluster(tmp_path_factory.mktemp("netcut"), agents=0) as cluster:
        proxy = CuttableProxy(int(cluster.master_url.rsplit(":", 1)[1]))
        work = cluster.data_dir / "agent-work"
        work.mkdir()
        agent_env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
        agent = subprocess.Popen([str(BIN / "determined-agent"), "--master-url", f"http://127.0.0.1:{proxy.port}",
                                  "--id", "cut-agent", "--slots", "1", "--work-dir", str(work)],
                                 stdout=open(cluster.data_dir / "cut-agent.log", "w"), stderr=subprocess.STDOUT,
                                 env=agent_env, start_new_session=True)
        try:
            wait_for(lambda: cluster.get("/api/v1/agents")["agents"], "the agent to register")
            yield cluster, proxy
        finally:
            agent.terminate()
            try:
                agent.wait(timeout=20)
            except subprocess.TimeoutExpired:
                agent.kill()


def test_a_short_cut_keeps_the_trial_running_and_the_agent_reconnects(setup, tmp_path):
    cluster, proxy = setup
    exp_id, trial_id = cluster.run_script(tmp_path, "stepper", STEPPER)
    wait_for(lambda: "running" in cluster.trial_logs(trial_id), "the trial process to start")

    proxy.cut()
    wait_for(lambda: not cluster.get("/api/v1/agents")["agents"], "the master to see the agent go", timeout=30)
    time.sleep(3)  # the trial keeps training while cut off; the agent keeps retrying
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_RUNNING"
    proxy.restore()
    wait_for(lambda: cluster.get("/api/v1/agents")["agents"], "the agent to reconnect", timeout=60)

    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    logs = cluster.trial_logs(trial_id)
    assert logs.count(" running") == 1, "one process, never restarted:\n" + logs
    assert "finished" in logs
    trial = cluster.trials(exp_id)[0]
    assert trial["restarts"] == 0
    steps = [m["totalBatches"] for m in cluster.metrics(trial_id, "training")]
    assert steps == [20, 40, 60, 80, 100, 120], "no report lost across the cut"
    assert "retrying" in (cluster.data_dir / "cut-agent.log").read_text(), "the agent said it retries"
