"""Determined 0.38.1's own `det` (unmodified, ../shared/upstream-client) against our master: commands,
notebooks, shells, TensorBoards, generic tasks, jobs, agents, slots, resource-pool bindings, templates,
users, workspaces and the master. Each step checks what a user reads (table rows, ids, states, text),
and the REST replies behind them are decoded with the class of upstream's `bindings.py` the stock
client uses (`upstream.check_reply`).

One cluster for the module (one agent, two slots, a second pool for bindings); every task is short or
killed by its test."""
import datetime
import json
import os
import re
import shutil
import subprocess
import threading

import pytest
import requests
import yaml

import upstream
from conftest import local_cluster, wait_for

upstream.require_client()

HAS_SSH = os.path.exists("/usr/sbin/sshd") and shutil.which("ssh") is not None
HAS_JUPYTER = os.path.exists("/usr/bin/jupyter-notebook")
ADMIN_PASSWORD = ""  # the local cluster's admin has a blank password


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "resource_pools: [{pool_name: default}, {pool_name: extra}]\n"
    with local_cluster(tmp_path_factory.mktemp("upstream-cli"), agents=1, slots=2, master_config=config) as c:
        yield c


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """HOME for upstream's client: its token cache and shell keys stay in the test's directory."""
    return tmp_path_factory.mktemp("upstream-home")


@pytest.fixture(autouse=True)
def kill_leftovers(cluster):
    """After each test, kill whatever it left running, so that a failure does not hold slots the next
    test needs."""
    yield
    for kind in ("commands", "notebooks", "shells", "tensorboards"):
        for t in cluster.get(f"/api/v1/{kind}")[kind]:
            if t["state"] != "STATE_TERMINATED":
                cluster.session.post(f"{cluster.master_url}/api/v1/{kind}/{t['id']}/kill", timeout=30)
    for summary in cluster.get("/api/v1/tasks")["allocationIdToSummary"].values():
        cluster.session.post(f"{cluster.master_url}/api/v1/tasks/{summary['taskId']}/kill", timeout=30)


@pytest.fixture(scope="module")
def sdet(cluster, home):
    """Upstream's `det ARGS...` as admin (or `user=`); returns the CompletedProcess (check=True: exit 0)."""
    def run(*args, user="admin", password=ADMIN_PASSWORD, check=True, env=None, timeout=180):
        proc = upstream.stock_det(cluster.master_url, *args, user=user, password=password, check=check,
                                  env={"HOME": str(home), **(env or {})}, timeout=timeout)
        proc.stdout, proc.stderr = plain(proc.stdout), plain(proc.stderr)  # what a user reads, sans colours
        return proc
    return run


def det_without_tty(cluster, home, *args, stdin="", env=None):
    """Upstream's `det` in a session of its own (no controlling terminal, so getpass reads `stdin`),
    signed in by nothing but `env` and the token cache in `home`."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("DET_USER", "DET_PASS", "DET_USER_TOKEN",
                                                                 "PYTHONPATH")}
    full_env.update(DET_MASTER=cluster.master_url, HOME=str(home), **(env or {}))
    return subprocess.run([str(upstream.require_client() / "det"), *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=full_env, start_new_session=True)


def rows(output):
    """The rows of the table upstream's `det` printed: one dict per row, keyed by the header's columns."""
    lines = [line for line in output.splitlines() if line.strip()]
    for i, line in enumerate(lines[:-1]):
        if " | " in line and re.fullmatch(r"[-+]+", lines[i + 1].replace(" ", "")):
            header = [h.strip() for h in line.split("|")]
            return [dict(zip(header, (v.strip() for v in row.split("|")))) for row in lines[i + 2:] if "|" in row]
    raise AssertionError(f"no table in:\n{output}")


def row(output, **match):
    """The one row whose columns hold the given values."""
    found = [r for r in rows(output) if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, f"{match} matches {len(found)} rows of:\n{output}"
    return found[0]


def plain(output):
    """`output` without its ANSI colours."""
    return re.sub(r"\x1b\[[0-9;]*m", "", output)


def text(proc):
    """All a user reads: stdout and stderr, without colours."""
    return plain(proc.stdout + proc.stderr)


def get(cluster, path, binding, **params):
    """GET path as admin, checked against upstream's binding; returns the JSON."""
    reply = cluster.get(path, params=params)
    upstream.check_reply(binding, reply, f"GET {path}")
    return reply


def launched_id(proc, kind):
    """The id in upstream's "Launched KIND (id: ID, name: ...)" line."""
    m = re.search(rf"Launched {kind} \(id: ([0-9a-f-]{{36}}), name: ([^)]+\)?)\)", text(proc))
    assert m, text(proc)
    return m.group(1)


def job_row(sdet, job_id):
    return row(sdet("job", "list").stdout, ID=job_id)


# ---------------------------------------------------------------------------------------------
# The master and the client.

def test_version_and_master_info_config_logs(cluster, sdet):
    version = yaml.safe_load(sdet("version").stdout)
    assert version["client"]["version"] == "0.38.1"
    assert version["master"]["version"] == "0.38.1" and version["master_address"] == cluster.master_url
    info = get(cluster, "/api/v1/master", "v1GetMasterResponse")
    assert version["master"]["cluster_id"] == info["clusterId"]

    shown = yaml.safe_load(sdet("master", "info").stdout)
    assert shown["clusterId"] == info["clusterId"] and shown["version"] == "0.38.1"

    config = yaml.safe_load(sdet("master", "config").stdout)
    assert config["feature_switches"] == []
    assert config["resource_pools"][1]["pool_name"] == "extra"
    assert json.loads(sdet("master", "config", "--json").stdout)["data_dir"] == config["data_dir"]
    get(cluster, "/api/v1/master/config", "v1GetMasterConfigResponse")

    logs = sdet("master", "logs").stdout
    assert "agent agent-0 registered with 2 slot(s)" in logs, logs
    assert len(sdet("master", "logs", "--tail", "1").stdout.strip().splitlines()) == 1


def test_master_logs_follow_shows_new_lines(cluster, sdet, home):
    env = dict(os.environ, DET_MASTER=cluster.master_url, DET_USER="admin", DET_PASS=ADMIN_PASSWORD, HOME=str(home))
    env.pop("PYTHONPATH", None)
    follow = subprocess.Popen([str(upstream.require_client() / "det"), "master", "logs", "-f", "--tail", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    seen = []
    reader = threading.Thread(target=lambda: seen.extend(follow.stdout), daemon=True)
    reader.start()
    try:
        wait_for(lambda: seen, "the last line of the master's log")
        cid = sdet("cmd", "run", "-d", "true").stdout.strip()
        wait_for(lambda: any(f"Command {cid} created by admin" in line for line in seen),
                 "the new command in the followed log", timeout=30)
    finally:
        follow.kill()
        follow.wait()


# ---------------------------------------------------------------------------------------------
# Commands, jobs and the task list.

def test_cmd_run_shell_lines_and_argv(sdet):
    # One argument is a shell command line (upstream's command-entrypoint.sh: /bin/sh -c "$1").
    out = sdet("cmd", "run", "echo one && echo two | tr a-z A-Z").stdout
    assert re.search(r"\|\| one$", out, re.M) and re.search(r"\|\| TWO$", out, re.M), out
    # Several are an argv: no shell, the spaces stay in the argument.
    out = sdet("cmd", "run", "printf", "[%s]\\n", "a b", "$HOME").stdout
    assert re.search(r"\|\| \[a b\]$", out, re.M) and re.search(r"\|\| \[\$HOME\]$", out, re.M), out
    failed = sdet("cmd", "run", "exit 3", check=False)
    assert "exited with code 3" in text(failed), text(failed)


def test_cmd_list_config_logs_priority_jobs_and_kill(cluster, sdet):
    cid = sdet("cmd", "run", "-d", "echo started && sleep 600").stdout.strip()
    assert re.fullmatch(r"[0-9a-f-]{36}", cid), cid
    wait_for(lambda: get(cluster, f"/api/v1/commands/{cid}", "v1GetCommandResponse")["command"]["state"]
             == "STATE_RUNNING", "the command to run")
    listed = row(sdet("cmd", "list").stdout, id=cid)
    assert listed["state"] == "RUNNING" and listed["username"] == "admin" and listed["resourcePool"] == "default"
    assert listed["workspaceName"] == "Uncategorized" and listed["description"].startswith("Command (")
    get(cluster, "/api/v1/commands", "v1GetCommandsResponse")

    config = yaml.safe_load(sdet("cmd", "config", cid).stdout)
    assert config["entrypoint"] == ["echo started && sleep 600"] and config["resources"]["slots"] == 1
    wait_for(lambda: "started" in sdet("cmd", "logs", cid).stdout, "the command's output in its logs")

    # Priority: `det cmd set priority`, then `det job update`; `det job list` and `det task list` show it.
    assert f"Set priority of command {cid} to 20" in sdet("cmd", "set", "priority", cid, "20").stdout
    command = get(cluster, f"/api/v1/commands/{cid}", "v1GetCommandResponse")["command"]
    job = job_row(sdet, command["jobId"])
    assert job["Type"] == "TYPE_COMMAND" and job["Priority"] == "20" and job["State"] == "STATE_SCHEDULED"
    assert job["Slots (acquired/needed)"] == "1/1" and job["User"] == "admin"
    sdet("job", "update", command["jobId"], "--priority", "30")
    assert job_row(sdet, command["jobId"])["Priority"] == "30"
    sdet("job", "update-batch", f"{command['jobId']}.weight=2")
    jobs = json.loads(sdet("job", "list", "--json").stdout)["jobs"]
    assert [(j["priority"], j["weight"]) for j in jobs if j["jobId"] == command["jobId"]] == [(30, 2.0)]
    get(cluster, "/api/v1/job-queues-v2", "v1GetJobsV2Response")

    task = row(sdet("task", "list").stdout, **{"Task ID": cid})
    assert task["Allocation ID"] == f"{cid}.1" and task["Slots Needed"] == "1" and task["Agent"] == "agent-0"
    assert task["Priority"] == "30" and task["Resource Pool"] == "default"
    get(cluster, "/api/v1/tasks", "v1GetTasksResponse")
    slot = [s for s in rows(sdet("slot", "list").stdout) if s["Allocation ID"] == f"{cid}.1"]
    assert len(slot) == 1 and slot[0]["Task Name"] == command["description"], slot

    assert f"Killed command {cid}" in sdet("cmd", "kill", cid).stdout
    wait_for(lambda: row(sdet("cmd", "list").stdout, id=cid)["state"] == "TERMINATED", "the command to end")
    assert command["jobId"] not in sdet("job", "list").stdout


# ---------------------------------------------------------------------------------------------
# Notebooks, shells and TensorBoards.

def test_notebook_start_preview_launches_nothing(cluster, sdet):
    preview = yaml.safe_load(sdet("notebook", "start", "--preview", "--config", "resources.slots=0").stdout)
    assert preview["resources"]["slots"] == 0 and preview["entrypoint"][-1] == "determined.exec.notebook"
    assert cluster.get("/api/v1/notebooks")["notebooks"] == []


@pytest.mark.skipif(not HAS_JUPYTER, reason="jupyter-notebook is not installed (scripts/install-deps.sh)")
def test_notebook_start_list_config_logs_priority_open_kill(cluster, sdet):
    started = sdet("notebook", "start", "--no-browser", "--config", "description=upstream nb", timeout=180)
    nid = launched_id(started, "notebook")
    assert f"notebook (id: {nid}) is ready" in text(started), text(started)
    jupyter = re.search(r"Connect to remote Jupyter server: (\S+)", text(started)).group(1)
    assert jupyter.startswith(f"{cluster.master_url}/proxy/{nid}/?token=")
    assert requests.get(jupyter, timeout=30).status_code == 200  # Jupyter itself, through the proxy

    listed = row(sdet("notebook", "list").stdout, id=nid)
    assert listed["state"] == "RUNNING" and listed["description"] == "upstream nb"
    get(cluster, f"/api/v1/notebooks/{nid}", "v1GetNotebookResponse")
    get(cluster, "/api/v1/notebooks", "v1GetNotebooksResponse")
    config = yaml.safe_load(sdet("notebook", "config", nid).stdout)
    assert config["description"] == "upstream nb" and config["resources"]["slots"] == 1
    assert "Jupyter" in sdet("notebook", "logs", nid).stdout
    assert f"Set priority of notebook {nid} to 11" in sdet("notebook", "set", "priority", nid, "11").stdout
    opened = sdet("notebook", "open", nid, env={"BROWSER": "/bin/echo"}).stdout  # the browser gets the URL
    assert f"{cluster.master_url}/det/interactive/{nid}/jupyter-lab/" in opened, opened
    assert f"Killed notebook {nid}" in sdet("notebook", "kill", nid).stdout
    wait_for(lambda: row(sdet("notebook", "list").stdout, id=nid)["state"] == "TERMINATED", "the notebook to end")


@pytest.mark.skipif(not HAS_SSH, reason="openssh-server/client are not installed (scripts/install-deps.sh)")
def test_shell_start_open_ssh_command_list_config_logs_priority_kill(cluster, sdet):
    started = sdet("shell", "start", "--", "echo from the first ssh; echo $DET_TASK_ID", timeout=180)
    sid = launched_id(started, "shell")
    assert f"from the first ssh\n{sid}\n" in started.stdout, text(started)

    opened = sdet("shell", "open", sid, "--", "hostname; echo $((6*7))")
    assert f"\n{os.uname().nodename}\n42\n" in opened.stdout, text(opened)
    command = sdet("shell", "show-ssh-command", sid).stdout
    assert "ProxyCommand=" in command and "determined.cli.tunnel" in command and f"@{sid}" in command, command

    listed = row(sdet("shell", "list").stdout, id=sid)
    assert listed["state"] == "RUNNING" and listed["description"].startswith("Shell (")
    shell = get(cluster, f"/api/v1/shells/{sid}", "v1GetShellResponse")["shell"]
    assert shell["container"]["state"] == "STATE_RUNNING" and shell["addresses"]
    get(cluster, "/api/v1/shells", "v1GetShellsResponse")
    assert yaml.safe_load(sdet("shell", "config", sid).stdout)["resources"]["slots"] == 1
    assert "sshd" in sdet("shell", "logs", sid).stdout.lower()
    assert f"Set priority of shell {sid} to 12" in sdet("shell", "set", "priority", sid, "12").stdout
    assert job_row(sdet, shell["jobId"])["Priority"] == "12"
    assert f"Killed shell {sid}" in sdet("shell", "kill", sid).stdout
    wait_for(lambda: row(sdet("shell", "list").stdout, id=sid)["state"] == "TERMINATED", "the shell to end")


TB_TRIAL = """
import determined as det

with det.core.init() as ctx:
    (ctx.train.get_tensorboard_path() / "events.out.tfevents.upstream").write_bytes(b"not really events")
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
"""


def test_tensorboard_start_list_config_logs_kill(cluster, sdet, tmp_path):
    (tmp_path / "trial.py").write_text(TB_TRIAL)
    (tmp_path / "exp.yaml").write_text("name: tb\nentrypoint: python3 trial.py\nsearcher: {name: single, metric: loss}\n"
                                       "max_restarts: 0\n")
    exp_id = cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id, timeout=120) == "STATE_COMPLETED"

    have_tensorboard = shutil.which("tensorboard") is not None
    started = sdet("tensorboard", "start", str(exp_id), "--no-browser", check=have_tensorboard, timeout=180)
    tid = launched_id(started, "tensorboard")
    listed = row(sdet("tensorboard", "list").stdout, id=tid)
    assert listed["experimentIds"] == f"[{exp_id}]" and listed["description"].startswith("TensorBoard (")
    tb = get(cluster, f"/api/v1/tensorboards/{tid}", "v1GetTensorboardResponse")["tensorboard"]
    assert tb["experimentIds"] == [exp_id] and tb["serviceAddress"] == f"/proxy/{tid}/"
    get(cluster, "/api/v1/tensorboards", "v1GetTensorboardsResponse")
    config = yaml.safe_load(sdet("tensorboard", "config", tid).stdout)
    assert config["resources"]["slots"] == 0  # a TensorBoard holds no slot
    logs = sdet("tensorboard", "logs", tid).stdout
    assert "downloaded 1 files" in logs, logs
    if have_tensorboard:
        assert f"tensorboard (id: {tid}) is ready" in text(started), text(started)
        assert f"Set priority of tensorboard {tid} to 13" in sdet("tensorboard", "set", "priority", tid, "13").stdout
    else:  # it ends at once, saying why, and the client says so
        assert started.returncode != 0 and "task has been terminated" in text(started), text(started)
        assert "tensorboard is not installed" in logs, logs
        assert listed["state"] == "TERMINATED" and listed["exitStatus"] == "exited with code 1", listed
    assert f"Killed tensorboard {tid}" in sdet("tensorboard", "kill", tid).stdout
    wait_for(lambda: row(sdet("tensorboard", "list").stdout, id=tid)["state"] == "TERMINATED", "the TensorBoard to end")

    # By trial (-t), detached (-d): only the id is printed.
    trial_id = cluster.trials(exp_id)[0]["id"]
    by_trial = sdet("tensorboard", "start", "-t", str(trial_id), "-d").stdout.strip()
    listed = row(sdet("tensorboard", "list").stdout, id=by_trial)
    assert (listed["experimentIds"], listed["trialIds"]) == ("[]", f"[{trial_id}]"), listed
    sdet("tensorboard", "kill", by_trial)


# ---------------------------------------------------------------------------------------------
# Generic tasks.

def task_state(cluster, tid):
    return get(cluster, f"/api/v1/tasks/{tid}", "v1GetTaskResponse")["task"]


def test_task_create_list_config_logs_pause_unpause_kill(cluster, sdet, tmp_path):
    (tmp_path / "context").mkdir()
    (tmp_path / "context" / "hello.txt").write_text("from the context")
    (tmp_path / "task.yaml").write_text("entrypoint: cat hello.txt && echo && sleep 600\npreemption_timeout: 1\n")
    created = sdet("task", "create", str(tmp_path / "task.yaml"), "--context", str(tmp_path / "context")).stdout
    tid = re.search(r"Created task ([0-9a-f-]{36})", created).group(1)
    wait_for(lambda: (a := task_state(cluster, tid)["allocations"]) and a[-1]["state"] == "STATE_RUNNING",
             "the task to run")
    listed = row(sdet("task", "list").stdout, **{"Task ID": tid})
    assert listed["Allocation ID"] == f"{tid}.1" and listed["Slots Needed"] == "1" and listed["Agent"] == "agent-0"
    assert listed["Name"].startswith("Task (") and listed["Priority"] == "42"

    config = yaml.safe_load(sdet("task", "config", tid).stdout)
    assert config["entrypoint"] == "cat hello.txt && echo && sleep 600"
    assert config["resources"]["slots"] == 1 and config["preemption_timeout"] == 1
    assert json.loads(sdet("task", "config", tid, "--json").stdout)["resources"]["slots"] == 1
    upstream.check_reply("v1GetGenericTaskConfigResponse", cluster.get(f"/api/v1/tasks/{tid}/config"), "config")
    wait_for(lambda: "from the context" in sdet("task", "logs", tid).stdout, "the task's output in its logs")

    assert f"Paused task: {tid}" in sdet("task", "pause", tid).stdout
    wait_for(lambda: task_state(cluster, tid)["taskState"] == "GENERIC_TASK_STATE_PAUSED", "the task to pause")
    assert tid not in sdet("task", "list").stdout
    assert f"Unpaused task: {tid}" in sdet("task", "unpause", tid).stdout
    wait_for(lambda: row(sdet("task", "list").stdout, **{"Task ID": tid})["Allocation ID"] == f"{tid}.2",
             "the task's second allocation")
    allocations = task_state(cluster, tid)["allocations"]
    assert [a["state"] for a in allocations] == ["STATE_TERMINATED", "STATE_RUNNING"] and allocations[0]["slots"] == 1
    assert f"Sucessfully killed task: {tid}" in sdet("task", "kill", tid).stdout  # upstream's spelling
    wait_for(lambda: task_state(cluster, tid)["taskState"] == "GENERIC_TASK_STATE_CANCELED", "the task to end")

    # No retention is configured: nothing has expired, and the logs stay.
    assert sdet("task", "cleanup-logs").stdout.strip() == "Deleted 0 rows of log entries."
    assert "from the context" in sdet("task", "logs", tid).stdout
    refused = sdet("task", "cleanup-logs", user="determined", password="", check=False)
    assert refused.returncode != 0 and "only admins may" in text(refused), text(refused)


# ---------------------------------------------------------------------------------------------
# Templates.

def test_template_set_list_describe_use_remove(cluster, sdet, tmp_path):
    # What a command reads (resources.slots) beside what an experiment reads: a template serves both.
    (tmp_path / "tpl.yaml").write_text("description: from the template\nresources: {slots: 0}\nmax_restarts: 2\n"
                                       "environment: {environment_variables: [TPL_VAR=set by the template]}\n")
    assert "Set template tpl" in sdet("template", "set", "tpl", str(tmp_path / "tpl.yaml")).stdout
    assert row(sdet("template", "list").stdout, Name="tpl")["Workspace"] == "Uncategorized"
    upstream.check_reply("v1GetTemplatesResponse", cluster.get("/api/v1/templates"), "GET /api/v1/templates")
    details = sdet("template", "list", "-d").stdout
    assert re.search(r"\| tpl +\| Uncategorized +\| description: from the template", details), details
    described = yaml.safe_load(sdet("template", "describe", "tpl").stdout)
    assert described["resources"] == {"slots": 0} and described["max_restarts"] == 2

    out = sdet("cmd", "run", "--template", "tpl", "echo $TPL_VAR").stdout
    assert re.search(r"\|\| set by the template$", out, re.M), out
    ran = [c for c in cluster.get("/api/v1/commands")["commands"] if c["description"] == "from the template"]
    assert len(ran) == 1
    assert yaml.safe_load(sdet("cmd", "config", ran[0]["id"]).stdout)["resources"]["slots"] == 0

    bad = tmp_path / "bad.yaml"
    bad.write_text("resources: {slots: two}\n")
    refused = sdet("template", "set", "bad", str(bad), check=False)
    assert refused.returncode != 0 and "resources.slots: must be an integer" in text(refused), text(refused)
    assert "Removed template tpl" in sdet("template", "remove", "tpl").stdout
    assert "tpl" not in [r["Name"] for r in rows(sdet("template", "list").stdout)]


# ---------------------------------------------------------------------------------------------
# Users.

def test_user_create_list_activate_password_link_and_login(cluster, sdet, home, tmp_path):
    assert sdet("user", "whoami").stdout.strip() == "You are logged in as user 'admin'"
    sdet("user", "create", "upbob", "--password", "Bob-pass-1")
    bob = row(sdet("user", "list").stdout, Username="upbob")
    assert bob["Admin"] == "False" and bob["Active"] == "True" and bob["Agent Uid"] == "N/A"
    users = get(cluster, "/api/v1/users", "v1GetUsersResponse")["users"]
    modified = {u["username"]: datetime.datetime.fromisoformat(u["modifiedAt"].replace("Z", "+00:00")) for u in users}
    assert min(m.year for m in modified.values()) >= 2024, modified  # admin and determined too: not 1970
    assert sdet("user", "whoami", user="upbob", password="Bob-pass-1").stdout.strip() == \
        "You are logged in as user 'upbob'"

    sdet("user", "deactivate", "upbob")
    assert "upbob" not in sdet("user", "list").stdout  # active users only, unless --all
    assert row(sdet("user", "list", "--all").stdout, Username="upbob")["Active"] == "False"
    refused = sdet("user", "whoami", user="upbob", password="Bob-pass-1", check=False,
                   env={"HOME": str(tmp_path)})  # no cached token
    assert refused.returncode != 0
    sdet("user", "activate", "upbob")
    assert row(sdet("user", "list").stdout, Username="upbob")["Active"] == "True"

    # change-password prompts (getpass); without a terminal it reads stdin.
    changed = det_without_tty(cluster, home, "user", "change-password", "upbob",
                              stdin="Bob-pass-2\nBob-pass-2\n", env={"DET_USER": "admin", "DET_PASS": ""})
    assert changed.returncode == 0, text(changed)
    fresh = tmp_path / "fresh-home"
    fresh.mkdir()
    assert sdet("user", "whoami", user="upbob", password="Bob-pass-1", check=False,
                env={"HOME": str(fresh)}).returncode != 0
    assert "upbob" in sdet("user", "whoami", user="upbob", password="Bob-pass-2", env={"HOME": str(fresh)}).stdout

    sdet("user", "link-with-agent-user", "upbob", "--agent-uid", "1234", "--agent-gid", "1235",
         "--agent-user", "bobby", "--agent-group", "bobbies")
    linked = row(sdet("user", "list").stdout, Username="upbob")
    assert (linked["Agent Uid"], linked["Agent Gid"], linked["Agent User"], linked["Agent Group"]) == \
        ("1234", "1235", "bobby", "bobbies")
    sdet("user", "edit", "upbob", "--display-name", "Bob Up")
    assert row(sdet("user", "list").stdout, Username="upbob")["Display Name"] == "Bob Up"

    # `det user login` (the password from stdin), then commands use the cached token.
    login_home = tmp_path / "login-home"
    login_home.mkdir()
    logged = det_without_tty(cluster, login_home, "user", "login", "upbob", stdin="Bob-pass-2\n")
    assert logged.returncode == 0, text(logged)
    assert det_without_tty(cluster, login_home, "user", "whoami").stdout.strip() == \
        "You are logged in as user 'upbob'"
    store = json.loads((login_home / ".config" / "determined" / "auth.json").read_text())
    cached = store["masters"][cluster.master_url]["tokens"]["upbob"]
    assert det_without_tty(cluster, login_home, "user", "logout").returncode == 0
    me = requests.get(f"{cluster.master_url}/api/v1/me", headers={"Authorization": f"Bearer {cached}"}, timeout=30)
    assert me.status_code == 401, me.text  # the logged-out token is revoked
    # A token from the environment (as the master gives tasks): DET_USER and DET_USER_TOKEN.
    token = requests.post(f"{cluster.master_url}/api/v1/auth/login",
                          json={"username": "upbob", "password": "Bob-pass-2"}, timeout=30).json()["token"]
    by_token = det_without_tty(cluster, fresh / "unused", "user", "whoami",
                               env={"DET_USER": "upbob", "DET_USER_TOKEN": token})
    assert by_token.stdout.strip() == "You are logged in as user 'upbob'", text(by_token)
    get(cluster, "/api/v1/me", "v1GetMeResponse")


# ---------------------------------------------------------------------------------------------
# Workspaces and resource-pool bindings.

def workspace_json(sdet, name):
    return json.loads(sdet("workspace", "describe", name, "--json").stdout)


def test_workspace_create_list_describe_edit_archive_projects_delete(cluster, sdet, tmp_path):
    storage = tmp_path / "storage.yaml"
    storage.write_text(f"type: shared_fs\nhost_path: {tmp_path}\n")
    created = sdet("workspace", "create", "up-ws", "--checkpoint-storage-config-file", str(storage)).stdout
    shown = row(created, Name="up-ws")
    assert shown["# Projects"] == "0" and str(tmp_path) in shown["Checkpoint Storage Config"], created
    wid = int(shown["ID"])
    reply = cluster.session.post(f"{cluster.master_url}/api/v1/workspaces", json={"name": "up-ws-rest"}, timeout=30)
    upstream.check_reply("v1PostWorkspaceResponse", reply.json(), "POST /api/v1/workspaces")
    patched = cluster.session.patch(f"{cluster.master_url}/api/v1/workspaces/{reply.json()['workspace']['id']}",
                                    json={"defaultAuxResourcePool": "extra"}, timeout=30)
    upstream.check_reply("v1PatchWorkspaceResponse", patched.json(), "PATCH /api/v1/workspaces/{id}")
    assert patched.json()["workspace"]["defaultAuxPool"] == "extra"

    assert [r["Name"] for r in rows(sdet("workspace", "list").stdout)] == ["Uncategorized", "up-ws", "up-ws-rest"]
    get(cluster, "/api/v1/workspaces", "v1GetWorkspacesResponse")
    described = workspace_json(sdet, "up-ws")
    assert described["id"] == wid and described["checkpointStorageConfig"] == {"type": "shared_fs",
                                                                                 "host_path": str(tmp_path)}
    get(cluster, f"/api/v1/workspaces/{wid}", "v1GetWorkspaceResponse")

    edited = json.loads(sdet("workspace", "edit", "up-ws", "--name", "up-ws2", "--checkpoint-storage-config", "{}",
                             "--default-compute-pool", "extra", "--json").stdout)
    assert edited["name"] == "up-ws2" and edited["checkpointStorageConfig"] is None
    assert edited["defaultComputePool"] == "extra"
    assert row(sdet("workspace", "list").stdout, ID=str(wid))["Default Compute Pool"] == "extra"

    # Work in the workspace runs in its default compute pool (no agents there: it waits), and the
    # command and its job say where they are.
    cid = sdet("cmd", "run", "-w", "up-ws2", "-d", "sleep 600").stdout.strip()
    listed = row(sdet("cmd", "list", "-w", "up-ws2").stdout, id=cid)
    assert (listed["workspaceName"], listed["resourcePool"], listed["state"]) == ("up-ws2", "extra", "QUEUED")
    command = get(cluster, f"/api/v1/commands/{cid}", "v1GetCommandResponse")["command"]
    assert command["workspaceId"] == wid
    jobs = json.loads(sdet("job", "list", "-p", "extra", "--json").stdout)["jobs"]
    assert [(j["workspaceId"], j["summary"]["state"]) for j in jobs if j["jobId"] == command["jobId"]] == \
        [(wid, "STATE_QUEUED")]
    sdet("cmd", "kill", cid)

    assert "Successfully archived workspace up-ws2." in sdet("workspace", "archive", "up-ws2").stdout
    assert workspace_json(sdet, "up-ws2")["archived"] is True
    assert "Successfully un-archived workspace up-ws2." in sdet("workspace", "unarchive", "up-ws2").stdout
    assert workspace_json(sdet, "up-ws2")["archived"] is False

    sdet("project", "create", "up-ws2", "up-project")
    projects = rows(sdet("workspace", "list-projects", "up-ws2").stdout)
    assert [p["Name"] for p in projects] == ["up-project"], projects
    get(cluster, f"/api/v1/workspaces/{wid}/projects", "v1GetWorkspaceProjectsResponse")

    deleted = sdet("workspace", "delete", "up-ws2", "--yes").stdout
    assert "Successfully deleted workspace up-ws2." in deleted, deleted
    assert "up-ws2" not in [r["Name"] for r in rows(sdet("workspace", "list").stdout)]
    sdet("workspace", "delete", "up-ws-rest", "--yes")


def test_resource_pool_bindings(cluster, sdet):
    sdet("workspace", "create", "bound-ws")
    sdet("resource-pool", "bindings", "add", "extra", "bound-ws")
    assert row(sdet("resource-pool", "bindings", "list-workspaces", "extra").stdout,
               **{"resource pool": "extra"})["workspaces"] == "bound-ws"
    upstream.check_reply("v1ListWorkspacesBoundToRPResponse",
                         cluster.get("/api/v1/resource-pools/extra/workspace-bindings"), "bindings")
    pools = row(sdet("workspace", "list-pools", "bound-ws").stdout, Workspace="bound-ws")["Available Resource Pools"]
    assert set(pools.split(", ")) == {"default", "extra"}, pools
    refused = sdet("resource-pool", "bindings", "add", "default", "bound-ws", check=False)
    assert refused.returncode != 0 and "default pool" in text(refused)
    sdet("workspace", "create", "bound-ws2")
    sdet("resource-pool", "bindings", "replace", "extra", "bound-ws2")
    assert row(sdet("resource-pool", "bindings", "list-workspaces", "extra").stdout,
               **{"resource pool": "extra"})["workspaces"] == "bound-ws2"
    sdet("resource-pool", "bindings", "remove", "extra", "bound-ws2")
    assert row(sdet("resource-pool", "bindings", "list-workspaces", "extra").stdout,
               **{"resource pool": "extra"})["workspaces"] == ""
    sdet("workspace", "delete", "bound-ws", "--yes")
    sdet("workspace", "delete", "bound-ws2", "--yes")


# ---------------------------------------------------------------------------------------------
# Agents and slots (last: disabling the agent stops what runs there).

def test_agent_and_slot_list_enable_disable(cluster, sdet):
    agent = row(sdet("agent", "list").stdout, **{"Agent ID": "agent-0"})
    assert agent["Slots"] == "2" and agent["Enabled"] == "True" and agent["Resource Pool"] == "default"
    assert agent["Version"] == "0.38.1" and agent["Draining"] == "False"
    get(cluster, "/api/v1/agents", "v1GetAgentsResponse")
    slots = rows(sdet("slot", "list").stdout)
    assert [(s["Slot ID"], s["Enabled"]) for s in slots] == [("0", "True"), ("1", "True")], slots
    get(cluster, "/api/v1/agents/agent-0/slots", "v1GetSlotsResponse")

    assert "Disabled agent agent-0." in text(sdet("agent", "disable", "agent-0"))
    assert row(sdet("agent", "list").stdout, **{"Agent ID": "agent-0"})["Enabled"] == "False"
    assert {s["Enabled"] for s in rows(sdet("slot", "list").stdout)} == {"False"}
    assert "Enabled agent agent-0." in text(sdet("agent", "enable", "agent-0"))
    sdet("agent", "disable", "--drain", "agent-0")
    drained = row(sdet("agent", "list").stdout, **{"Agent ID": "agent-0"})
    assert (drained["Enabled"], drained["Draining"]) == ("False", "True")
    sdet("agent", "enable", "agent-0")

    assert "Disabled slot 1 of agent agent-0" in text(sdet("slot", "disable", "agent-0", "1"))
    assert [s["Enabled"] for s in rows(sdet("slot", "list").stdout)] == ["True", "False"]
    assert "Enabled slot 1 of agent agent-0" in text(sdet("slot", "enable", "agent-0", "1"))
    assert [s["Enabled"] for s in rows(sdet("slot", "list").stdout)] == ["True", "True"]
