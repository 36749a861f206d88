"""Commands on a real 1-slot cluster: `det cmd run` prints the output and exits with the command's status,
a command waits behind a running trial for the one slot, priorities reorder queued commands, kill,
context upload, bad input, and a command that survives a SIGKILLed master with its whole output."""
import json
import re
import time

import pytest
import requests

from conftest import BIN, local_cluster, log_texts, login, restart_master, stepper, wait_for

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("cmd-cluster"), agents=1, slots=1) as c:
        yield c


def launch(cluster, *args):
    """`det cmd run -d ...`: returns the new command's id."""
    out = cluster.det("cmd", "run", "-d", *args).stdout.strip()
    assert UUID.fullmatch(out), out
    return out


def command(cluster, command_id):
    return cluster.get(f"/api/v1/commands/{command_id}")["command"]


def wait_terminated(cluster, command_id, timeout=120):
    return wait_for(lambda: (c := command(cluster, command_id))["state"] == "STATE_TERMINATED" and c,
                    f"command {command_id} to end", timeout=timeout)


def test_run_prints_the_output_and_exits_with_the_commands_status(cluster):
    ok = cluster.det("cmd", "run", "echo", "hello")
    assert "hello" in log_texts(ok.stdout), ok.stdout
    assert re.match(r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\] \S{8} \|\| hello$", ok.stdout.splitlines()[
        log_texts(ok.stdout).index("hello")]), ok.stdout
    failing = cluster.det("cmd", "run", "sh", "-c", "echo to-stderr >&2; exit 3", check=False)
    assert failing.returncode == 3, failing.stdout + failing.stderr
    assert "to-stderr" in failing.stdout + failing.stderr
    listed = cluster.det("cmd", "list").stdout
    assert "exited with code 3" in listed and "exited with code 0" in listed, listed
    # One argument is a shell command line (/bin/sh -c, as upstream's command-entrypoint.sh); several an argv.
    line = cluster.det("cmd", "run", "echo one && echo $((6*7))")
    assert [t for t in log_texts(line.stdout) if t in ("one", "42")] == ["one", "42"], line.stdout
    argv = cluster.det("cmd", "run", "echo", "a && b")
    assert "a && b" in log_texts(argv.stdout), argv.stdout
    jobs = cluster.get("/api/v1/commands", params={"users": "determined"})
    assert jobs["pagination"]["total"] >= 2
    assert all(c["description"].startswith("Command (") for c in jobs["commands"])


def test_a_command_waits_for_the_slot_a_running_trial_holds(cluster, tmp_path):
    (tmp_path / "stepper.py").write_text(stepper(40))
    (tmp_path / "exp.yaml").write_text(
        "name: holds-the-slot\nentrypoint: python3 stepper.py\nsearcher: {name: single, metric: loss}\n"
        "max_restarts: 0\n")
    exp_id = cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)
    trial = wait_for(lambda: [t for t in cluster.trials(exp_id) if t["state"] == "STATE_RUNNING"], "the trial")[0]
    cmd_id = launch(cluster, "echo", "after the trial")
    time.sleep(2)
    assert command(cluster, cmd_id)["state"] == "STATE_QUEUED"
    jobs = cluster.det("job", "list").stdout
    assert "TYPE_COMMAND" in jobs and "TYPE_EXPERIMENT" in jobs, jobs
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    ended = wait_terminated(cluster, cmd_id)
    assert ended["exitCode"] == 0
    assert "after the trial" in cluster.det("cmd", "logs", cmd_id).stdout
    assert cluster.get(f"/api/v1/tasks/{cmd_id}")["task"]["taskType"] == "TASK_TYPE_COMMAND"
    # Its process started only once the trial had ended (RFC 3339 UTC strings compare as times).
    trial_end = cluster.get(f"/api/v1/trials/{trial['id']}")["trial"]["endTime"]
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/tasks/{cmd_id}/logs", timeout=60)
    started = [json.loads(line)["result"] for line in resp.text.splitlines() if line]
    started = [entry["timestamp"] for entry in started if "Process started" in entry["log"]]
    assert len(started) == 1 and started[0] >= trial_end, (started, trial_end)


def test_priorities_reorder_queued_commands(cluster, tmp_path):
    order = tmp_path / "order"
    blocker = launch(cluster, "sleep", "4")
    wait_for(lambda: command(cluster, blocker)["state"] == "STATE_RUNNING", "the blocker to run")
    low = launch(cluster, "--config", "resources.priority=60", "sh", "-c", f"echo low >> {order}")
    high = launch(cluster, "--config", "resources.priority=60", "sh", "-c", f"echo high >> {order}")
    cluster.det("cmd", "set", "priority", high[:8], "10")
    for cmd_id in (blocker, low, high):
        wait_terminated(cluster, cmd_id)
    assert order.read_text().split() == ["high", "low"]


def test_kill_and_who_may_kill(cluster):
    cmd_id = launch(cluster, "sleep", "100")
    wait_for(lambda: command(cluster, cmd_id)["state"] == "STATE_RUNNING", "the command to run")
    # Another user cannot kill it (upstream allows that: determined-ai/determined#7088).
    admin = login(cluster, "admin")
    admin.post(f"{cluster.master_url}/api/v1/users",
               json={"user": {"username": "eve", "active": True}, "password": ""}, timeout=30)
    eve = login(cluster, "eve")
    denied = eve.post(f"{cluster.master_url}/api/v1/commands/{cmd_id}/kill", timeout=30)
    assert denied.status_code == 403, denied.text
    assert "not the owner of command" in denied.text
    cluster.det("cmd", "kill", cmd_id[:10])
    ended = wait_terminated(cluster, cmd_id)
    assert ended["exitStatus"] == "killed by request"
    assert ended["exitCode"] is None
    assert cluster.det("cmd", "run", "true").returncode == 0, "the slot is free again"


def test_the_context_becomes_the_working_directory(cluster, tmp_path):
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    (ctx / "data.txt").write_text("from the context\n")
    (ctx / "secret.txt").write_text("ignored\n")
    (ctx / ".detignore").write_text("secret.txt\n")
    out = cluster.det("cmd", "run", "-c", str(ctx), "sh", "-c", "cat data.txt; ls").stdout
    assert "from the context" in out
    assert "secret.txt" not in out
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    (mounted / "m.txt").write_text("through a bind mount\n")
    out = cluster.det("cmd", "run", "-v", f"{mounted}:data", "cat", "data/m.txt").stdout
    assert "through a bind mount" in out


def test_a_startup_hook_is_sourced_before_the_command_and_a_failing_one_fails_it(cluster, tmp_path):
    ctx = tmp_path / "hooked"
    ctx.mkdir()
    (ctx / "startup-hook.sh").write_text("echo hook-ran\nexport HOOK_VAR=from-the-hook\n")
    out = cluster.det("cmd", "run", "-c", str(ctx), "sh", "-c", 'echo "var=$HOOK_VAR"').stdout
    assert out.index("hook-ran") < out.index("var=from-the-hook"), out

    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "startup-hook.sh").write_text("echo hook-output\nfalse\necho after-the-failure\n")
    failed = cluster.det("cmd", "run", "-c", str(broken), "echo", "the-entrypoint", check=False)
    logs = failed.stdout + failed.stderr
    assert failed.returncode == 1, logs
    assert "hook-output" in logs and "startup hook failed with exit status 1" in logs, logs
    assert "after-the-failure" not in logs and "the-entrypoint" not in logs, logs


def test_det_in_a_task_is_this_clusters_cli_logged_in_as_the_tasks_user(cluster):
    admin = login(cluster, "admin")
    admin.post(f"{cluster.master_url}/api/v1/users",
               json={"user": {"username": "carol", "active": True}, "password": ""}, timeout=30)
    out = cluster.det("-u", "carol", "cmd", "run", "sh", "-c",
                      "command -v det; det user whoami; det cmd list --json | head -c 1").stdout
    assert str(BIN / "det") in out or str((BIN / "det").resolve()) in out, out
    assert "carol" in out, out
    assert "determined" not in out.replace(str(BIN), ""), out


def test_bad_input_is_refused_and_nothing_starts(cluster, tmp_path):
    before = cluster.get("/api/v1/commands")["pagination"]["total"]
    cases = [
        (["--config", "slotz=1", "true"], "slotz"),
        (["--config", "resources.slots=two", "true"], "resources.slots"),
        (["--config", "resources.slots=5", "true"], "5"),
        (["--config", "resources.resource_pool=nope", "true"], "no resource pool named \"nope\""),
        (["--template", "no-such-template", "true"], "no-such-template"),
        ([], "give the command to run"),
    ]
    for args, expected in cases:
        proc = cluster.det("cmd", "run", *args, check=False)
        assert proc.returncode != 0, args
        assert expected in proc.stdout + proc.stderr, (args, proc.stdout, proc.stderr)
    big = tmp_path / "big"
    big.mkdir()
    with open(big / "huge.bin", "wb") as f:
        f.truncate(96 * 1024 * 1024)
    proc = cluster.det("cmd", "run", "-c", str(big), "true", check=False)
    assert proc.returncode != 0 and "95.0MB" in proc.stdout + proc.stderr, proc.stderr
    assert cluster.get("/api/v1/commands")["pagination"]["total"] == before
    proc = cluster.det("cmd", "kill", "zzzz", check=False)
    assert proc.returncode != 0 and 'no command with id starting with "zzzz"' in proc.stdout + proc.stderr
    resp = cluster.session.post(f"{cluster.master_url}/api/v1/commands", json={"config": {"entrypoint": []}},
                                timeout=30)
    assert resp.status_code == 400 and "entrypoint" in resp.text


def test_a_command_survives_a_master_kill_with_its_whole_output(cluster, tmp_path):
    script = "for i in $(seq 1 40); do echo line-$i; sleep 0.15; done"
    cmd_id = launch(cluster, "sh", "-c", script)
    wait_for(lambda: "line-3" in cluster.det("cmd", "logs", cmd_id).stdout, "the first lines", timeout=60)
    restart_master(cluster)
    ended = wait_terminated(cluster, cmd_id)
    assert ended["exitCode"] == 0, ended
    logs = cluster.det("cmd", "logs", cmd_id).stdout
    lines = [l for l in log_texts(logs) if l.startswith("line-")]
    assert lines == [f"line-{i}" for i in range(1, 41)], logs
    assert logs.count("Process started") == 1, "its process was not restarted"
