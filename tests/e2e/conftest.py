"""Fixtures that start a real local cluster (master + agents) with `det deploy local cluster-up`."""
import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest
import requests
import yaml

REPO = pathlib.Path(os.environ.get("DET_REPO_ROOT", pathlib.Path(__file__).resolve().parents[2]))
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))


def run_browser_script(script, screenshots, **env):
    """Runs webui/e2e/SCRIPT (npm playwright-core driving Debian's chromium) with `env` and SCREENSHOT_DIR
    added to this environment; asserts that it succeeded and returns the JSON of its last line."""
    webui = REPO / "webui"
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    assert os.path.exists(chromium), "chromium is missing: run scripts/install-deps.sh"
    assert (webui / "build" / "index.html").exists(), "the web UI is not built: run make build"
    assert (webui / "node_modules" / "playwright-core").exists(), "webui/node_modules is missing: run make build"
    proc = subprocess.run(["node", f"e2e/{script}"], cwd=webui, capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, SCREENSHOT_DIR=str(screenshots), CHROMIUM=chromium, **env))
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}\n(screenshots in {screenshots})"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def det(*args, master=None, check=True, timeout=600, env=None, **kwargs):
    """Runs the real `det` binary; returns the CompletedProcess."""
    full_env = dict(os.environ)
    if master:
        full_env["DET_MASTER"] = master
    full_env.update(env or {})
    proc = subprocess.run([str(BIN / "det"), *args], capture_output=True, text=True, timeout=timeout,
                          env=full_env, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"det {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def log_texts(output):
    """The text of each log line `det ... logs` printed: what follows upstream's "[timestamp] container || "."""
    return [line.split("|| ", 1)[1] if "|| " in line else line for line in output.splitlines()]


def login(cluster, username, password=""):
    """A requests session logged in as `username` on the cluster's master."""
    resp = requests.post(f"{cluster.master_url}/api/v1/auth/login",
                         json={"username": username, "password": password}, timeout=30)
    resp.raise_for_status()
    s = requests.Session()
    s.headers["Authorization"] = "Bearer " + resp.json()["token"]
    return s


class Cluster:
    def __init__(self, data_dir: pathlib.Path, auth_file: pathlib.Path):
        self.data_dir = data_dir
        self.auth_file = auth_file
        info = json.loads((data_dir / "cluster.json").read_text())
        self.master_url = info["master_url"]
        self.session = login(self, "determined")

    def det(self, *args, **kwargs):
        env = {"DET_AUTH_FILE": str(self.auth_file)}
        return det(*args, master=self.master_url, env=env, **kwargs)

    def get(self, path, **kwargs):
        resp = self.session.get(self.master_url + path, timeout=60, **kwargs)
        resp.raise_for_status()
        return resp.json()

    def create_experiment(self, config, model_dir, *extra):
        """`det experiment create CONFIG DIR [extra...]`; returns the new experiment's id."""
        out = self.det("experiment", "create", str(config), str(model_dir), *extra)
        return int(re.search(r"Created experiment (\d+)", out.stdout).group(1))

    def run_script(self, model_dir, name, script):
        """Writes `script` to MODEL_DIR/NAME.py, submits it as a single-trial experiment (no restarts) and
        waits for its trial; returns (experiment id, trial id)."""
        (model_dir / f"{name}.py").write_text(script)
        (model_dir / f"{name}.yaml").write_text(
            f"name: {name}\nentrypoint: python3 {name}.py\nsearcher: {{name: single, metric: loss}}\nmax_restarts: 0\n")
        exp_id = self.create_experiment(model_dir / f"{name}.yaml", model_dir)
        return exp_id, wait_for(lambda: (self.trials(exp_id) or [None])[0], "the trial")["id"]

    def trials(self, exp_id):
        return self.get(f"/api/v1/experiments/{exp_id}/trials", params={"limit": 1000})["trials"]

    def trial_logs(self, trial_id):
        return self.det("trial", "logs", str(trial_id)).stdout

    def task_logs(self, task_id):
        return self.det("task", "logs", task_id).stdout

    def metrics(self, trial_id, group):
        """The trial's metric reports of one group (training, validation, ...), oldest first, each with
        `metrics` the reported values (the API nests them as upstream's: under validation_metrics, or
        under avg_metrics beside batch_metrics)."""
        resp = self.session.get(f"{self.master_url}/api/v1/trials/metrics/trial_metrics",
                                params={"trialIds": trial_id, "group": group}, timeout=60)
        resp.raise_for_status()
        key = "validation_metrics" if group == "validation" else "avg_metrics"
        return [dict(m, metrics=m["metrics"][key])
                for line in resp.text.splitlines() if line for m in json.loads(line)["result"]["metrics"]]

    def wait_for_experiment(self, exp_id, timeout=600):
        deadline = time.time() + timeout
        state = None
        while time.time() < deadline:
            state = self.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"]
            if state in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"):
                return state
            time.sleep(0.5)
        raise AssertionError(f"experiment {exp_id} still {state} after {timeout}s")


class ConfigFileCluster(Cluster):
    """A master started from a config file of its own (a resource manager other than the agents': Kubernetes,
    Slurm), which the test can SIGKILL and start again on the same data; `env` is the master's environment."""

    def __init__(self, data_dir, master_config, env=None):
        self.env = env
        self.config_file = data_dir / "master.yaml"
        self.config_file.write_text(master_config)
        self.port = int(yaml.safe_load(master_config)["port"])
        self.master = None
        self.start_master(data_dir)
        (data_dir / "cluster.json").write_text(json.dumps({"master_url": f"http://127.0.0.1:{self.port}"}))
        super().__init__(data_dir, data_dir / "auth.json")

    def start_master(self, data_dir):
        log = open(data_dir / "master.log", "ab")
        self.master = subprocess.Popen([str(BIN / "determined-master"), "--config-file", str(self.config_file)],
                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=self.env)
        wait_for_master(f"http://127.0.0.1:{self.port}", self.master, data_dir / "master.log")

    def kill_master(self):
        os.killpg(self.master.pid, signal.SIGKILL)
        self.master.wait()

    def stop(self):
        if self.master and self.master.poll() is None:
            os.killpg(self.master.pid, signal.SIGTERM)
            try:
                self.master.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.master.pid, signal.SIGKILL)


def open_notebook(cluster, config=None):
    """Starts a notebook (POST /api/v1/notebooks with `config`), waits until it is ready and checks that
    Jupyter answers through the master's proxy; returns its id."""
    resp = cluster.session.post(cluster.master_url + "/api/v1/notebooks", json={"config": config or {}}, timeout=60)
    assert resp.status_code == 200, resp.text
    nid = resp.json()["notebook"]["id"]
    wait_for(lambda: (a := cluster.get(f"/api/v1/tasks/{nid}")["task"]["allocations"]) and a[-1]["isReady"],
             "the notebook to be ready", timeout=120)
    page = cluster.session.get(f"{cluster.master_url}/proxy/{nid}/api/status", timeout=30)
    assert page.status_code == 200 and "started" in page.json(), page.text
    return nid


def start_shell(cluster, key_dir, config=None):
    """Starts a shell (POST /api/v1/shells with `config`), waits until its sshd is ready and writes its
    private key to `key_dir`; returns the shell (GET /api/v1/shells/ID) with "key_file" added."""
    resp = cluster.session.post(cluster.master_url + "/api/v1/shells", json={"config": config or {}}, timeout=60)
    assert resp.status_code == 200, resp.text
    sid = resp.json()["shell"]["id"]
    wait_for(lambda: (a := cluster.get(f"/api/v1/tasks/{sid}")["task"]["allocations"]) and a[-1]["isReady"],
             "the shell", timeout=120)
    shell = cluster.get(f"/api/v1/shells/{sid}")["shell"]
    key = key_dir / "id_rsa"
    key.write_text(shell["privateKey"])
    key.chmod(0o600)
    shell["key_file"] = str(key)
    return shell


def ssh_through_tunnel(cluster, shell, *command):
    """Runs `command` in `shell` (from start_shell) over ssh, through the master's proxy with
    determined.cli.tunnel as the ProxyCommand."""
    proxy = f"/usr/bin/python3 -m determined.cli.tunnel {cluster.master_url} %h"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run(
        ["ssh", "-o", f"ProxyCommand={proxy}", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-i", shell["key_file"],
         f"{shell['agentUserGroup']['user']}@{shell['id']}", *command],
        capture_output=True, text=True, timeout=60, env=env)


def restart_master(cluster):
    """SIGKILLs the master and starts a new one on the same port and data directory."""
    record_file = cluster.data_dir / "cluster.json"
    record = json.loads(record_file.read_text())
    os.kill(record["master_pid"], signal.SIGKILL)
    port = int(record["master_url"].rsplit(":", 1)[1])
    time.sleep(0.5)
    log = open(cluster.data_dir / "master-restarted.log", "ab")
    master = subprocess.Popen([str(BIN / "determined-master"), "--data-dir", str(cluster.data_dir),
                               "--host", "127.0.0.1", "--port", str(port), *record.get("master_db_flags", [])],
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    record["master_pid"] = master.pid  # so that cluster-down stops the new master
    record_file.write_text(json.dumps(record))
    wait_for_master(record["master_url"], master, cluster.data_dir / "master-restarted.log")


def wait_for_master(master_url, process, log_path, timeout=30):
    """Waits until the master started as `process` answers /health; fails with its log if it exits or never
    answers."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert process.poll() is None, f"the master exited:\n{log_path.read_text()}"
        try:
            if requests.get(f"{master_url}/health", timeout=2).ok:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the master did not come up:\n{log_path.read_text()}")


def wait_for(predicate, what, timeout=60):
    """Polls until `predicate()` is truthy and returns that value; fails after `timeout` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


# A trial script that counts `STEPS` steps of 0.1 s, resumes from its checkpoint, and on the
# preemption signal checkpoints and stops ("stopped at step N").
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
    print("running from step", start, flush=True)
    for step in range(start, STEPS):
        time.sleep(0.1)
        if ctx.preempt.should_preempt():
            with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
                (path / "step").write_text(str(step))
            print("stopped at step", step, flush=True)
            break
    else:
        ctx.train.report_training_metrics(steps_completed=STEPS, metrics={"loss": 0.0})
        print("finished", flush=True)
"""


def stepper(steps):
    return STEPPER.replace("STEPS", str(steps))


def steps_printed(steps):
    """A trial script that prints "step N" for N in 0..steps-1, 0.1 s apart, then reports one metric."""
    return f"""
import time
import determined as det

with det.core.init() as ctx:
    for step in range({steps}):
        print("step", step, flush=True)
        time.sleep(0.1)
    ctx.train.report_training_metrics(steps_completed={steps}, metrics={{"loss": 0.0}})
"""


@contextlib.contextmanager
def local_cluster(data_dir, agents=1, slots=2, master_config=None, db=None, env=None):
    """A cluster started with `det deploy local cluster-up` in `data_dir` (with `master_config` as the
    master's config file, if given, and `env` added to its processes' environment), stopped on exit. With DET_TEST_DB=postgres in the environment
    (the e2e_pg_* tests), or db="postgres", its master runs on a PostgreSQL server of its own
    (`--db postgres`)."""
    auth_file = data_dir / "auth.json"
    env = dict(env or {}, DET_AUTH_FILE=str(auth_file))
    config_flags = []
    if master_config is not None:
        (data_dir / "master.yaml").write_text(master_config)
        config_flags = ["--master-config-path", str(data_dir / "master.yaml")]
    db = db or os.environ.get("DET_TEST_DB")
    db_flags = ["--db", db] if db else []
    det("deploy", "local", "cluster-up", "--agents", str(agents), "--slots", str(slots), "--master-port", "0",
        *config_flags, *db_flags, "--data-dir", str(data_dir), env=env, timeout=120)
    try:
        yield Cluster(data_dir, auth_file)
    finally:
        postgres_dir = json.loads((data_dir / "cluster.json").read_text()).get("postgres_dir")
        det("deploy", "local", "cluster-down", "--data-dir", str(data_dir), env=env, check=False, timeout=60)
        if postgres_dir and postgres_dir.startswith("/var/tmp/determined-postgres/"):
            shutil.rmtree(postgres_dir, ignore_errors=True)  # a test's server outside its tmp dir


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("cluster")) as c:
        yield c
