"""The `det` command tree against a real cluster: users, experiment create --follow, failing trials."""
import json
import re


def test_user_login_whoami_logout(cluster):
    login = cluster.det("user", "login", "admin", input="\n")
    assert login.returncode == 0
    whoami = cluster.det("user", "whoami")
    assert "admin" in whoami.stdout
    cluster.det("user", "logout")
    # Logged out: the next command logs in again as the default user.
    assert "determined" in cluster.det("user", "whoami").stdout


def test_failing_trial_restarts_from_its_checkpoint(cluster, tmp_path):
    (tmp_path / "crash_once.py").write_text(
        "import sys\nimport determined as det\n"
        "info = det.get_cluster_info()\n"
        "with det.core.init() as ctx:\n"
        "    if info.latest_checkpoint is None:\n"
        "        with ctx.checkpoint.store_path({'steps_completed': 1}) as (path, uuid):\n"
        "            (path / 'state').write_text('from run 1')\n"
        "        print('crashing after the checkpoint', flush=True)\n"
        "        sys.exit(2)\n"
        "    with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:\n"
        "        print('resumed', (path / 'state').read_text(), 'at step', info.trial.steps_completed, flush=True)\n"
        "    ctx.train.report_training_metrics(steps_completed=2, metrics={'loss': 1.0})\n")
    (tmp_path / "crash.yaml").write_text(
        "entrypoint: python3 crash_once.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 1\n")
    created = cluster.det("experiment", "create", str(tmp_path / "crash.yaml"), str(tmp_path))
    exp_id = int(re.search(r"Created experiment (\d+)", created.stdout).group(1))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    trial = cluster.get(f"/api/v1/experiments/{exp_id}/trials")["trials"][0]
    assert trial["restarts"] == 1
    logs = cluster.det("trial", "logs", str(trial["id"])).stdout
    assert "crashing after the checkpoint" in logs
    assert "resumed from run 1 at step 1" in logs


def test_failing_trial_ends_in_error_and_its_output_is_in_the_logs(cluster, tmp_path):
    (tmp_path / "fail.py").write_text(
        "import sys\nimport determined as det\n"
        "info = det.get_cluster_info()\n"
        "print('trial', info.trial.trial_id, 'hparams', info.trial.hparams, flush=True)\n"
        "print('something went wrong', file=sys.stderr)\n"
        "sys.exit(3)\n")
    (tmp_path / "fail.yaml").write_text(
        "name: failing\nentrypoint: python3 fail.py\n"
        "searcher: {name: single, metric: loss}\nhyperparameters: {lr: 0.5}\nmax_restarts: 0\n")
    follow = cluster.det("experiment", "create", str(tmp_path / "fail.yaml"), str(tmp_path), "--follow",
                         check=False)
    assert follow.returncode != 0, follow.stdout
    assert "something went wrong" in follow.stdout + follow.stderr
    exp_id = int(re.search(r"Created experiment (\d+)", follow.stdout).group(1))
    assert cluster.wait_for_experiment(exp_id) == "STATE_ERROR"

    described = json.loads(cluster.det("experiment", "describe", str(exp_id), "--json").stdout)
    trial = described["trials"][0]
    assert trial["state"] == "STATE_ERROR"
    assert trial["hparams"] == {"lr": 0.5}
    logs = cluster.det("trial", "logs", str(trial["id"])).stdout
    assert f"trial {trial['id']} hparams {{'lr': 0.5}}" in logs
    assert "exited with code 3" in logs
    assert cluster.det("trial", "logs", str(trial["id"]), "--tail", "1").stdout.strip().endswith(
        f"Trial {trial['id']} is ERROR")
    assert "queued" in cluster.det("trial", "logs", str(trial["id"]), "--head", "1").stdout

    # `det experiment list` shows the caller's own experiments; --all shows everyone's.
    mine = json.loads(cluster.det("experiment", "list", "--json").stdout)
    assert exp_id in [e["id"] for e in mine]
    as_admin = json.loads(cluster.det("-u", "admin", "experiment", "list", "--json").stdout)
    assert exp_id not in [e["id"] for e in as_admin]
    everyone = json.loads(cluster.det("-u", "admin", "experiment", "list", "--all", "--json").stdout)
    assert exp_id in [e["id"] for e in everyone]


def test_master_logs_and_task_logs(cluster, tmp_path):
    exp_id, trial_id = cluster.run_script(
        tmp_path, "hello", "import sys\nprint('hello from the task', flush=True)\nprint('oops', file=sys.stderr)\n")
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"

    # The master's own log: upstream's entry shape, and `det master logs` prints it line by line.
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/master/logs", timeout=30)
    entries = [json.loads(line)["result"]["logEntry"] for line in resp.text.splitlines() if line]
    assert entries and set(entries[0]) == {"id", "message", "timestamp", "level"}
    assert [e["id"] for e in entries] == sorted(e["id"] for e in entries)
    assert any(f"experiment {exp_id} is COMPLETED" in e["message"] for e in entries)
    assert all(e["level"].startswith("LOG_LEVEL_") for e in entries)
    out = cluster.det("master", "logs").stdout
    assert re.search(rf"\[INFO\]: experiment {exp_id} is COMPLETED", out), out
    tail = cluster.det("master", "logs", "--tail", "2").stdout.splitlines()
    assert len(tail) == 2
    assert cluster.det("master", "logs", "--tail", "x", check=False).returncode != 0

    # A trial's task: the same lines as `det trial logs`.
    task_id = cluster.trials(exp_id)[0]["taskId"]
    task_logs = cluster.det("task", "logs", task_id)
    assert "hello from the task" in task_logs.stdout
    assert f"det task logs -f {task_id}" in task_logs.stderr
    assert cluster.det("task", "logs", task_id, "--tail", "1").stdout.count("\n") == 1
    # Filters are applied by the master, and bad ones named.
    stderr_only = cluster.det("trial", "logs", str(trial_id), "--stdtype", "stderr").stdout
    assert "oops" in stderr_only and "hello from the task" not in stderr_only
    assert "hello from the task" in cluster.det("task", "logs", task_id, "--stdtype", "stdout").stdout
    for query, problem in (("levels=LOG_LEVEL_LOUD", "levels"), ("rankIds=x", "rankIds"),
                           ("timestampBefore=yesterday", "timestampBefore")):
        bad = cluster.session.get(f"{cluster.master_url}/api/v1/trials/{trial_id}/logs?{query}", timeout=30)
        assert bad.status_code == 400 and problem in bad.json()["error"]["error"], bad.text
    missing = cluster.det("task", "logs", "no-such-task", check=False)
    assert missing.returncode != 0 and "no-such-task" in missing.stderr


CHECKPOINTER = """
import determined as det

with det.core.init() as ctx:
    with ctx.checkpoint.store_path({"steps_completed": 5}) as (path, uuid):
        (path / "weights").write_text("w" * 1000)
        (path / "sub").mkdir()
        (path / "sub" / "state").write_text("s")
    ctx.train.report_validation_metrics(steps_completed=5, metrics={"loss": 0.1})
"""


def test_checkpoint_list_describe_download(cluster, tmp_path):
    exp_id, trial_id = cluster.run_script(tmp_path, "checkpointer", CHECKPOINTER)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"

    listed = json.loads(cluster.det("checkpoint", "list", str(exp_id), "--json").stdout)
    assert len(listed) == 1
    uuid = listed[0]["uuid"]
    table = cluster.det("checkpoint", "list", str(exp_id)).stdout
    assert uuid in table and "COMPLETED" in table

    described = json.loads(cluster.det("checkpoint", "describe", uuid, "--json").stdout)
    assert described["training"]["trialId"] == trial_id
    assert described["metadata"]["steps_completed"] == 5
    assert "Trial ID" in cluster.det("checkpoint", "describe", uuid).stdout

    out = tmp_path / "downloaded"
    downloaded = cluster.det("checkpoint", "download", uuid, "-o", str(out))
    assert f"Local checkpoint path: {out}" in downloaded.stdout
    assert (out / "weights").read_text() == "w" * 1000
    assert (out / "sub" / "state").read_text() == "s"

    missing = cluster.det("checkpoint", "describe", "no-such-uuid", check=False)
    assert missing.returncode != 0 and "no-such-uuid" in missing.stderr
