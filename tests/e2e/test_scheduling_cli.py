"""Scheduling from the command line against a real master and one agent (2 slots): `det agent list`,
`det slot list`, `det resource-pool list` (tables and --json); a disabled agent keeps a new experiment
QUEUED in `det job list` and enabling it lets the experiment run to completion; `det job update` and
`det experiment set priority|weight|max-slots` change what the job queue reports; bad input and
other users' jobs give clear errors, and only admins may disable agents (403)."""
import json
import re
import time

import requests

from conftest import REPO, det, local_cluster, wait_for

NOOP = REPO / "examples" / "noop"


def output(proc):
    return proc.stdout + proc.stderr


def agent_id(det_as):
    agents = json.loads(det_as("agent", "list", "--json").stdout)
    assert len(agents) == 1, agents
    return agents[0]["id"]


def job_of(det_as, exp_id):
    """The experiment's job in `det job list --json`, or None."""
    jobs = json.loads(det_as("job", "list", "--json").stdout)["jobs"]
    return next((j for j in jobs if j["entityId"] == str(exp_id)), None)


def create_noop(det_as):
    out = det_as("experiment", "create", str(NOOP / "noop.yaml"), str(NOOP)).stdout
    return int(re.search(r"Created experiment (\d+)", out).group(1))


def as_user(cluster, tmp_path, username, *args, check=True):
    """`det` as one user, with that user's own token cache."""
    env = {"DET_AUTH_FILE": str(tmp_path / f"auth-{username}.json"), "DET_USER": username, "DET_PASS": ""}
    return det(*args, master=cluster.master_url, env=env, check=check, timeout=120)


def test_agent_slot_and_pool_lists(cluster):
    table = cluster.det("agent", "list").stdout
    assert re.search(r"Agent ID\s*\|\s*Version\s*\|\s*Registered Time\s*\|\s*Slots\s*\|\s*Containers\s*\|"
                     r"\s*Resource Pool\s*\|\s*Enabled\s*\|\s*Draining\s*\|\s*Addresses", table)
    agents = json.loads(cluster.det("a", "list", "--json").stdout)
    assert len(agents) == 1
    agent = agents[0]
    assert agent["num_slots"] == 2 and agent["num_containers"] == 0
    assert agent["resource_pools"] == "default"
    assert agent["enabled"] is True and agent["draining"] is False
    assert re.search(rf"{re.escape(agent['id'])}\s*\|.*\|\s*2\s*\|\s*0\s*\|\s*default\s*\|\s*True\s*\|\s*False",
                     table)
    assert cluster.det("agent", "list", "--csv").stdout.startswith("Agent ID,Version,Registered Time,")

    slots = json.loads(cluster.det("slot", "list", "--json").stdout)
    assert [s["slot_id"] for s in slots] == ["0", "1"]
    assert all(s["allocation_id"] == "FREE" and s["task_name"] == "None" and s["enabled"] for s in slots)
    assert all(s["type"] == "TYPE_CPU" and s["agent_id"] == agent["id"] for s in slots)
    assert re.search(r"Agent ID\s*\|\s*Resource Pool\s*\|\s*Slot ID\s*\|\s*Enabled\s*\|\s*Draining\s*\|"
                     r"\s*Allocation ID\s*\|\s*Task Name\s*\|\s*Type\s*\|\s*Device", cluster.det("slot", "list").stdout)

    pools = cluster.det("resource-pool", "list").stdout
    assert re.search(r"default\s*\|\s*1\s*\|\s*-1\s*\|\s*2\s*\|\s*0\s*\|\s*True\s*\|\s*True\s*\|\s*priority", pools)
    [pool] = json.loads(cluster.det("rp", "list", "--json").stdout)
    assert pool["name"] == "default" and pool["type"] == "RESOURCE_POOL_TYPE_STATIC"
    assert pool["schedulerType"] == "SCHEDULER_TYPE_PRIORITY"
    assert pool["details"]["priorityScheduler"]["defaultPriority"] == 42
    assert pool["slotsAvailable"] == 2 and pool["numAgents"] == 1

    # REST: one agent, its slots, one slot, and clear 404s.
    aid = agent["id"]
    assert cluster.get(f"/api/v1/agents/{aid}")["agent"]["id"] == aid
    assert len(cluster.get(f"/api/v1/agents/{aid}/slots")["slots"]) == 2
    assert cluster.get(f"/api/v1/agents/{aid}/slots/1")["slot"]["id"] == "1"
    missing = cluster.session.get(f"{cluster.master_url}/api/v1/agents/nope", timeout=30)
    assert missing.status_code == 404 and 'agent "nope" not found' in missing.json()["error"]["error"]


def test_disabled_agent_queues_work_and_job_changes(cluster, tmp_path):
    def admin(*args, check=True):
        return as_user(cluster, tmp_path, "admin", *args, check=check)

    def user(*args, check=True):
        return as_user(cluster, tmp_path, "determined", *args, check=check)

    def bob(*args, check=True):
        return as_user(cluster, tmp_path, "sched-bob", *args, check=check)

    aid = agent_id(user)
    # Only admins may disable an agent; the default user is not one.
    denied = user("agent", "disable", aid, check=False)
    assert denied.returncode != 0 and "only admins can disable agents" in output(denied)
    token = requests.post(f"{cluster.master_url}/api/v1/auth/login",
                          json={"username": "determined", "password": ""}, timeout=30).json()["token"]
    resp = requests.post(f"{cluster.master_url}/api/v1/agents/{aid}/disable",
                         headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert resp.status_code == 403

    # Drain mode with nothing running, then a plain disable.
    drained = admin("agent", "disable", "--drain", aid)
    assert f"Disabled agent {aid}." in drained.stdout
    assert "No tasks in progress on draining nodes." in drained.stdout
    assert json.loads(user("agent", "list", "--json").stdout)[0]["draining"] is True
    admin("agent", "enable", aid)
    assert f"Disabled agent {aid}." in admin("agent", "disable", aid).stdout
    agent = json.loads(user("agent", "list", "--json").stdout)[0]
    assert agent["enabled"] is False and agent["draining"] is False
    assert all(not s["enabled"] for s in json.loads(user("slot", "list", "--json").stdout))
    unknown = admin("agent", "disable", "nope", check=False)
    assert unknown.returncode != 0 and "cannot disable agent nope: agent nope is not connected" in output(unknown)

    try:
        exp_id = create_noop(user)
        job = wait_for(lambda: job_of(user, exp_id), "the experiment's job in `det job list`")
        assert job["summary"]["state"] == "STATE_QUEUED"
        assert job["type"] == "TYPE_EXPERIMENT" and job["username"] == "determined"
        assert job["requestedSlots"] == 1 and job["allocatedSlots"] == 0
        assert job["priority"] == 42 and job["summary"]["jobsAhead"] == 0
        job_id = job["jobId"]
        table = user("job", "list").stdout
        assert re.search(rf"0\s*\|\s*{job_id}\s*\|\s*TYPE_EXPERIMENT\s*\|\s*noop \({exp_id}\)\s*\|\s*42\s*\|.*"
                         r"\|\s*0/1\s*\|\s*STATE_QUEUED\s*\|\s*determined", table), table
        # Still queued a moment later: nothing starts on a disabled agent.
        assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_QUEUED"
        assert job_of(user, exp_id)["summary"]["state"] == "STATE_QUEUED"

        # det job update and det experiment set change what the queue reports.
        assert "Updated job" in user("job", "update", job_id, "--priority", "10").stdout
        assert job_of(user, exp_id)["priority"] == 10
        assert user("experiment", "set", "priority", str(exp_id), "20").stdout.strip() == \
            f"Set `priority` of experiment {exp_id} to 20"
        assert job_of(user, exp_id)["priority"] == 20
        # Weight and max_slots are the fair-share scheduler's; this pool's priority scheduler says so.
        pool = job["resourcePool"]
        assert user("e", "set", "weight", str(exp_id), "2").stdout.strip() == \
            f"Set `weight` of experiment {exp_id} to 2.0 (kept, but not enforced: resource pool \"{pool}\" " \
            "uses the priority scheduler, and only fair_share uses weight)"
        assert job_of(user, exp_id)["weight"] == 2
        assert "not enforced" in user("experiment", "set", "max-slots", str(exp_id), "1").stdout
        config = cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["config"]
        assert config["resources"]["priority"] == 20 and config["resources"]["max_slots"] == 1
        v1 = cluster.get("/api/v1/job-queues", params={"states": "STATE_QUEUED"})["jobs"]
        assert [j["jobId"] for j in v1] == [job_id]
        assert cluster.get("/api/v1/job-queues", params={"states": "STATE_SCHEDULED"})["jobs"] == []

        # Clear errors.
        bad = user("job", "update", "no-such-job", "--priority", "5", check=False)
        assert bad.returncode != 0 and 'job "no-such-job" not found' in output(bad)
        bad = user("job", "update", job_id, "--priority", "0", check=False)
        assert bad.returncode != 0 and "priority: must be between 1 and 99" in output(bad)
        bad = user("job", "update", job_id, check=False)
        assert bad.returncode != 0 and "exactly one of --priority" in output(bad)
        bad = user("experiment", "set", "priority", str(exp_id), "100", check=False)
        assert bad.returncode != 0 and "between 1 and 99" in output(bad)
        bad = user("experiment", "set", "weight", str(exp_id), "0", check=False)
        assert bad.returncode != 0 and "weight: must be greater than 0" in output(bad)
        bad = user("job", "list", "--resource-pool", "gpus", check=False)
        assert bad.returncode != 0 and 'resource pool "gpus" not found' in output(bad)
        resp = cluster.session.post(f"{cluster.master_url}/api/v1/job-queues",
                                    json={"updates": [{"jobId": job_id}, {"jobId": "x", "weight": -1}]}, timeout=30)
        assert resp.status_code == 400
        assert resp.json()["error"]["error"].startswith("encountered the following errors: updates[0]: no action")

        # Another user may not change the job.
        admin("user", "create", "sched-bob")
        refused = bob("job", "update", job_id, "--priority", "5", check=False)
        assert refused.returncode != 0 and "is not the owner of job" in output(refused)
        refused = bob("experiment", "set", "priority", str(exp_id), "5",
                      check=False)
        assert refused.returncode != 0 and "is not the owner of experiment" in output(refused)
    finally:
        admin("agent", "enable", aid)

    assert json.loads(user("agent", "list", "--json").stdout)[0]["enabled"] is True
    assert cluster.wait_for_experiment(exp_id, timeout=180) == "STATE_COMPLETED"
    assert job_of(user, exp_id) is None  # a finished experiment leaves the queue
    done = user("experiment", "set", "priority", str(exp_id), "5", check=False)
    assert done.returncode != 0 and "can be changed only while it is active or paused" in output(done)


WAITER = """
import pathlib
import time
import determined as det

with det.core.init() as ctx:
    print("waiting for RELEASE", flush=True)
    deadline = time.time() + 120
    while not pathlib.Path("RELEASE").exists() and time.time() < deadline:
        time.sleep(0.1)
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 0.0})
"""


def test_running_trial_in_the_lists_and_drain(cluster, tmp_path):
    def admin(*args, check=True):
        return as_user(cluster, tmp_path, "admin", *args, check=check)

    def user(*args, check=True):
        return as_user(cluster, tmp_path, "determined", *args, check=check)

    release = tmp_path / "release"
    model = tmp_path / "model"
    model.mkdir()
    (model / "waiter.py").write_text(WAITER.replace("RELEASE", str(release)))
    (model / "waiter.yaml").write_text(
        "name: waiter\nentrypoint: python3 waiter.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 0\n")
    out = user("experiment", "create", str(model / "waiter.yaml"), str(model)).stdout
    exp_id = int(re.search(r"Created experiment (\d+)", out).group(1))
    try:
        job = wait_for(lambda: (j := job_of(user, exp_id)) and j["summary"]["state"] == "STATE_SCHEDULED" and j,
                       "the waiter to be scheduled")
        assert job["allocatedSlots"] == 1 and job["requestedSlots"] == 1
        assert re.search(r"\|\s*1/1\s*\|\s*STATE_SCHEDULED\s*\|", user("job", "list").stdout)
        trial_id = wait_for(lambda: cluster.trials(exp_id), "the trial")[0]["id"]

        slots = json.loads(user("slot", "list", "--json").stdout)
        busy = [s for s in slots if s["allocation_id"] != "FREE"]
        assert len(busy) == 1, slots
        assert busy[0]["task_name"] == f"Trial {trial_id} (Experiment {exp_id})"
        assert json.loads(user("agent", "list", "--json").stdout)[0]["num_containers"] == 1
        [pool] = json.loads(user("rp", "list", "--json").stdout)
        assert pool["slotsUsed"] == 1 and pool["stats"] == {"queuedCount": 0, "scheduledCount": 1}

        # Draining leaves the running trial alone; nothing new would start.
        aid = busy[0]["agent_id"]
        drained = admin("agent", "disable", "--drain", aid)
        assert "Tasks still in progress on draining nodes." in drained.stdout
        assert job_of(user, exp_id)["summary"]["state"] == "STATE_SCHEDULED"
        admin("agent", "enable", aid)
    finally:
        release.write_text("go")
    assert cluster.wait_for_experiment(exp_id, timeout=180) == "STATE_COMPLETED"
    assert cluster.trials(exp_id)[0]["restarts"] == 0


def test_launch_error_false_queues_work_larger_than_the_cluster(tmp_path_factory, tmp_path):
    warning = "The requested job requires more slots than currently available"
    with local_cluster(tmp_path_factory.mktemp("launch-error"), agents=1, slots=1,
                       master_config="launch_error: false\n") as c:
        big = tmp_path / "big.yaml"
        big.write_text((NOOP / "noop.yaml").read_text().replace("slots_per_trial: 1", "slots_per_trial: 2"))
        created = c.det("experiment", "create", str(big), str(NOOP))
        assert warning in created.stderr, output(created)
        exp_id = int(re.search(r"Created experiment (\d+)", created.stdout).group(1))
        job = wait_for(lambda: job_of(c.det, exp_id), "the experiment's job")
        assert job["summary"]["state"] == "STATE_QUEUED", job
        assert c.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_QUEUED"

        command = c.det("cmd", "run", "-d", "--config", "resources.slots=2", "true")
        assert warning in command.stderr, output(command)
        assert c.get(f"/api/v1/commands/{command.stdout.strip()}")["command"]["state"] == "STATE_QUEUED"


def test_a_disabled_slot_takes_no_work_until_enabled(cluster, tmp_path):
    def admin(*args, check=True):
        return as_user(cluster, tmp_path, "admin", *args, check=check)

    aid = agent_id(admin)
    denied = as_user(cluster, tmp_path, "determined", "slot", "disable", aid, "0", check=False)
    assert denied.returncode != 0 and "only admins can disable slots" in output(denied), output(denied)
    for slot in ("0", "1"):
        assert f"Disabled slot {slot} of agent {aid}." in admin("slot", "disable", aid, slot).stdout
    slots = json.loads(admin("slot", "list", "--json").stdout)
    assert [s["enabled"] for s in slots] == [False, False], slots
    exp_id = create_noop(admin)
    time.sleep(2)
    assert job_of(admin, exp_id)["summary"]["state"] == "STATE_QUEUED", "no enabled slot: it waits"

    assert f"Enabled slot 1 of agent {aid}." in admin("slot", "enable", aid, "1").stdout
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    admin("slot", "enable", aid, "0")
    assert all(s["enabled"] for s in json.loads(admin("slot", "list", "--json").stdout))
    missing = admin("slot", "disable", aid, "9", check=False)
    assert missing.returncode != 0 and "slot 9 not found" in output(missing), output(missing)
