"""determined-master reads a config file, DET_* variables and flags (flags > env > file);
`det master config` shows the effective config with secrets masked."""
import json
import os
import subprocess
import time

import pytest
import requests

from conftest import BIN, REPO, Cluster, det, local_cluster, wait_for

PASSWORD = "file-Secret-123"


def wait_for_port(port_file, proc, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if port_file.exists() and port_file.read_text().strip():
            return int(port_file.read_text())
        if proc.poll() is not None:
            raise AssertionError(f"master exited with {proc.returncode}")
        time.sleep(0.1)
    raise AssertionError("master did not write its port file")


@pytest.fixture(scope="module")
def master(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("master_config")
    config = tmp / "master.yaml"
    config.write_text(f"""
port: 0
host: 127.0.0.1
data_dir: {tmp / "data"}
cluster_name: from-file
log:
  level: info
security:
  initial_user_password: {PASSWORD}
checkpoint_storage:
  type: shared_fs
  host_path: {tmp / "ckpt"}
resource_manager:
  type: agent
  scheduler:
    type: priority
    preemption: true
  default_aux_resource_pool: aux
  default_compute_resource_pool: compute
resource_pools:
  - pool_name: aux
    description: cheap CPUs
  - pool_name: compute
    scheduler:
      fitting_policy: worst
""")
    port_file = tmp / "port"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
    env["DET_CLUSTER_NAME"] = "from-env"
    log = open(tmp / "master.log", "w")
    proc = subprocess.Popen([str(BIN / "determined-master"), "--config-file", str(config),
                             "--port-file", str(port_file)], env=env, stdout=log, stderr=log)
    try:
        port = wait_for_port(port_file, proc)
        yield {"url": f"http://127.0.0.1:{port}", "tmp": tmp}
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


def det_as(master, *args, **kwargs):
    env = {"DET_AUTH_FILE": str(master["tmp"] / "auth.json"), "DET_PASS": PASSWORD}
    return det(*args, master=master["url"], env=env, timeout=60, **kwargs)


def test_initial_user_password_is_required(master):
    blank = requests.post(f"{master['url']}/api/v1/auth/login",
                          json={"username": "determined", "password": ""}, timeout=10)
    assert blank.status_code == 401
    det_as(master, "user", "login", "admin")
    assert "admin" in det_as(master, "user", "whoami").stdout


def test_master_config_shows_file_and_env_values_with_secrets_masked(master):
    det_as(master, "user", "login", "determined")
    out = det_as(master, "master", "config", "--json").stdout
    assert PASSWORD not in out
    config = json.loads(out)
    assert config["cluster_name"] == "from-env"  # env beats the file
    assert config["security"]["initial_user_password"] == "********"
    assert config["checkpoint_storage"]["host_path"] == str(master["tmp"] / "ckpt")
    assert config["resource_manager"]["default_compute_resource_pool"] == "compute"
    pools = {p["pool_name"]: p for p in config["resource_pools"]}
    assert pools["aux"]["description"] == "cheap CPUs"
    assert pools["aux"]["scheduler"]["type"] == "priority"  # inherited whole
    assert pools["aux"]["scheduler"]["preemption"] is True
    assert pools["compute"]["scheduler"] == {"type": "fair_share", "fitting_policy": "worst",
                                             "allow_heterogeneous_fits": False}
    assert config["db"]["type"] == "sqlite"

    yaml_out = det_as(master, "master", "config").stdout
    assert PASSWORD not in yaml_out
    assert "from-env" in yaml_out and "********" in yaml_out

    info = json.loads(det_as(master, "master", "info", "--json").stdout)
    assert info["clusterName"] == "from-env"


def test_config_endpoint_needs_authentication(master):
    resp = requests.get(f"{master['url']}/api/v1/master/config", timeout=10)
    assert resp.status_code == 401


def test_master_names_an_unreachable_postgres_and_refuses_bad_config(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
    env.update({"DET_DB_HOST": "127.0.0.1", "DET_DB_PORT": "1", "DET_DB_NAME": "determined", "DET_DB_USER": "det"})
    proc = subprocess.run([str(BIN / "determined-master"), "--data-dir", str(tmp_path), "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "postgres://det@127.0.0.1:1/determined" in proc.stderr
    assert "database is unreachable" in proc.stderr

    bad = tmp_path / "bad.yaml"
    bad.write_text("resource_pools:\n  - pool_name: a\n  - pool_name: a\nbogus: 1\n")
    proc = subprocess.run([str(BIN / "determined-master"), "--config-file", str(bad)],
                          env={k: v for k, v in os.environ.items() if not k.startswith("DET_")},
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert 'resource_pools[1].pool_name: duplicate pool name "a"' in proc.stderr
    assert "bogus: unknown key" in proc.stderr


def test_the_pools_task_container_defaults_reach_experiments_and_commands(tmp_path_factory, tmp_path):
    master_config = (
        "task_container_defaults:\n"
        "  environment_variables: [FROM_POOL=pool-value, OVERRIDDEN=pool]\n"
        "  startup_hook: |\n"
        "    echo pool-hook-ran\n"
        "    export FROM_HOOK=hook-value\n")
    code = tmp_path / "code"
    code.mkdir()
    (code / "train.py").write_text(
        "import os\n"
        "import determined as det\n"
        "print('seen', os.environ['FROM_POOL'], os.environ['OVERRIDDEN'], os.environ['FROM_HOOK'], flush=True)\n"
        "with det.core.init() as ctx:\n"
        "    ctx.train.report_training_metrics(steps_completed=1, metrics={'loss': 0.0})\n")
    (code / "exp.yaml").write_text(
        "name: tcd\nentrypoint: python3 train.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 0\n"
        "environment: {environment_variables: [OVERRIDDEN=user]}\n")
    with local_cluster(tmp_path_factory.mktemp("tcd"), agents=1, slots=1, master_config=master_config) as c:
        exp_id = c.create_experiment(code / "exp.yaml", code)
        assert c.wait_for_experiment(exp_id) == "STATE_COMPLETED"
        config = c.get(f"/api/v1/experiments/{exp_id}")["config"]
        assert config["environment"]["environment_variables"]["cpu"][:2] == ["FROM_POOL=pool-value", "OVERRIDDEN=pool"]
        [trial] = c.trials(exp_id)
        logs = c.det("trial", "logs", str(trial["id"])).stdout
        assert "pool-hook-ran" in logs and "seen pool-value user hook-value" in logs, logs

        out = c.det("cmd", "run", "sh", "-c", 'echo "cmd $FROM_POOL $FROM_HOOK"').stdout
        assert "pool-hook-ran" in out and "cmd pool-value hook-value" in out, out


def test_expired_trial_logs_are_deleted_on_the_retention_schedule(tmp_path_factory, tmp_path):
    code = tmp_path / "code"
    code.mkdir()
    (code / "train.py").write_text("print('a line to keep or not', flush=True)\n")
    for name, retention in (("gone", "retention_policy: {log_retention_days: 0}\n"), ("kept", "")):
        (code / f"{name}.yaml").write_text(
            f"name: {name}\nentrypoint: python3 train.py\nsearcher: {{name: single, metric: loss}}\n"
            f"max_restarts: 0\n{retention}")
    with local_cluster(tmp_path_factory.mktemp("retention"), agents=1, slots=1,
                       master_config="retention_policy: {schedule: 1s}\n") as c:
        ids = {name: c.create_experiment(code / f"{name}.yaml", code) for name in ("gone", "kept")}
        trials = {}
        for name, exp_id in ids.items():
            assert c.wait_for_experiment(exp_id) == "STATE_COMPLETED"
            [trials[name]] = c.trials(exp_id)

        def logs(name):
            return c.det("trial", "logs", str(trials[name]["id"])).stdout

        # Kept for 0 days by its config: gone at the next run; the other is kept.
        assert trials["gone"]["logRetentionDays"] == 0 and "logRetentionDays" not in trials["kept"]
        wait_for(lambda: logs("gone").strip() == "", "the expired trial's logs to be deleted", timeout=60)
        assert "a line to keep or not" in logs("kept")
        remaining = c.get(f"/api/v1/trials/{trials['kept']['id']}/remaining_log_retention_days")
        assert remaining == {"remainingDays": -1}, remaining

        out = c.det("experiment", "set", "log-retention", str(ids["kept"]), "--days", "0").stdout
        assert f"Set log retention of experiment {ids['kept']} to 0 days" in out, out
        wait_for(lambda: logs("kept").strip() == "", "the other trial's logs to be deleted", timeout=60)
        assert c.get(f"/api/v1/trials/{trials['kept']['id']}/remaining_log_retention_days") == {"remainingDays": 0}
        # Several at once (upstream's bulk action): one result per experiment, an error for an unknown one.
        resp = c.session.put(f"{c.master_url}/api/v1/projects/1/experiments/retain_logs", timeout=30,
                             json={"experimentIds": [ids["gone"], 999999], "numDays": -1})
        assert resp.status_code == 200, resp.text
        results = {r["id"]: r["error"] for r in resp.json()["results"]}
        assert results[ids["gone"]] == "" and "999999" in results[999999], results
        assert c.get(f"/api/v1/trials/{trials['gone']['id']}")["trial"]["logRetentionDays"] == -1
        out = c.det("trial", "set", "log-retention", str(trials["gone"]["id"]), "--days", "30").stdout
        assert f"Set log retention of trial {trials['gone']['id']} to 30 days" in out, out
        assert c.get(f"/api/v1/trials/{trials['gone']['id']}/remaining_log_retention_days")["remainingDays"] == 30
        bad = c.det("experiment", "set", "log-retention", str(ids["kept"]), check=False)
        assert bad.returncode != 0 and "--days" in bad.stderr and "--forever" in bad.stderr, bad


def test_cluster_up_agents_join_the_default_compute_pool_or_the_one_named(tmp_path_factory):
    config = ("resource_manager: {type: agent, default_compute_resource_pool: compute, default_aux_resource_pool: aux}\n"
              "resource_pools: [{pool_name: compute}, {pool_name: aux}]\n")
    for extra, pool in (([], "compute"), (["--agent-resource-pool", "aux"], "aux")):
        data_dir = tmp_path_factory.mktemp("pools")
        (data_dir / "master.yaml").write_text(config)
        env = {"DET_AUTH_FILE": str(data_dir / "auth.json")}
        det("deploy", "local", "cluster-up", "--agents", "1", "--slots", "1", "--master-port", "0", "--no-gpu",
            "--cluster-name", "named-cluster", "--master-config-path", str(data_dir / "master.yaml"), *extra,
            "--data-dir", str(data_dir), env=env, timeout=120)
        try:
            c = Cluster(data_dir, data_dir / "auth.json")
            [agent] = c.get("/api/v1/agents")["agents"]
            assert agent["resourcePools"] == [pool], agent
            assert requests.get(f"{c.master_url}/info", timeout=30).json()["cluster_name"] == "named-cluster"
        finally:
            det("deploy", "local", "cluster-down", "--data-dir", str(data_dir), env=env, check=False, timeout=60)


def test_master_up_then_agent_up_and_down(tmp_path_factory, tmp_path):
    data_dir = tmp_path_factory.mktemp("master-up")
    env = {"DET_AUTH_FILE": str(data_dir / "auth.json")}
    up = det("deploy", "local", "master-up", "--master-port", "0", "--data-dir", str(data_dir), env=env, timeout=120)
    assert "Master: http://127.0.0.1:" in up.stdout, up.stdout
    try:
        c = Cluster(data_dir, data_dir / "auth.json")
        assert c.get("/api/v1/agents")["agents"] == []
        port = c.master_url.rsplit(":", 1)[1]
        joined = det("deploy", "local", "agent-up", "127.0.0.1", "--master-port", port, "--agent-name", "extra",
                     "--slots", "1", "--no-gpu", "--data-dir", str(data_dir), env=env, timeout=60)
        assert "Agent extra (1 slot) connected to" in joined.stdout, joined.stdout
        [agent] = c.get("/api/v1/agents")["agents"]
        assert agent["id"] == "extra" and agent["resourcePools"] == ["default"], agent
        again = det("deploy", "local", "agent-up", "127.0.0.1", "--master-port", port, "--agent-name", "extra",
                    "--data-dir", str(data_dir), env=env, check=False, timeout=60)
        assert again.returncode != 0 and "already running" in again.stderr, again.stderr
        exp_id = c.create_experiment(REPO / "examples" / "noop" / "noop.yaml", REPO / "examples" / "noop")
        assert c.wait_for_experiment(exp_id) == "STATE_COMPLETED"

        down = det("deploy", "local", "agent-down", "--agent-name", "extra", "--data-dir", str(data_dir), env=env)
        assert "Stopped agent extra" in down.stdout, down.stdout
        wait_for(lambda: not c.get("/api/v1/agents")["agents"], "the agent to leave", timeout=60)
        unknown = det("deploy", "local", "agent-down", "--agent-name", "extra", "--data-dir", str(data_dir),
                      env=env, check=False)
        assert unknown.returncode != 0 and "no agent named extra" in unknown.stderr, unknown.stderr
    finally:
        det("deploy", "local", "master-down", "--data-dir", str(data_dir), env=env, check=False, timeout=60)
