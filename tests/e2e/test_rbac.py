"""RBAC end to end on a master with `security.authz.type: rbac`: the first start seeds roles (admins
ClusterAdmin, everyone else Editor on Uncategorized); groups and role assignments through the REST API and
Determined 0.38.1's own `det user-group` and `det rbac`; what a Viewer and an Editor may do in their
workspace and not in another's, through REST, Determined 0.38.1's stock `det` and our own; a group's role
reaching its members and leaving with them; refusals that name the missing permission; bad input that names
what is wrong and changes nothing; a task's own tokens (DET_USER_TOKEN, DET_SESSION_TOKEN) doing no more than
its owner may."""
import base64
import json
import re

import pytest
import requests

import upstream
from conftest import REPO, det, local_cluster, login, wait_for

NOOP = REPO / "examples" / "noop"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "security:\n  authz:\n    type: rbac\n    strict_job_queue_control: true\n"
    with local_cluster(tmp_path_factory.mktemp("rbac"), master_config=config) as c:
        yield c


class User:
    def __init__(self, cluster, name, password=""):
        self.url = cluster.master_url
        self.name = name
        self.s = login(cluster, name, password)

    def call(self, method, path, **kw):
        return self.s.request(method, self.url + path, timeout=60, **kw)

    def ok(self, method, path, **kw):
        r = self.call(method, path, **kw)
        assert r.status_code == 200, f"{self.name} {method} {path}: {r.status_code} {r.text}"
        return r.json()


@pytest.fixture(scope="module")
def people(cluster):
    admin = User(cluster, "admin")
    for name in ("alice", "bob", "carol"):
        admin.ok("POST", "/api/v1/users", json={"user": {"username": name, "active": True}, "password": ""})
    ws = {name: admin.ok("POST", "/api/v1/workspaces", json={"name": name})["workspace"]["id"]
          for name in ("ws-a", "ws-b")}
    projects = {name: admin.ok("POST", f"/api/v1/workspaces/{wid}/projects",
                               json={"name": "p", "workspaceId": wid})["project"]["id"]
                for name, wid in ws.items()}
    users = {u["username"]: u["id"] for u in admin.ok("GET", "/api/v1/users")["users"]}
    return {"admin": admin, "ws": ws, "projects": projects, "ids": users,
            **{name: User(cluster, name) for name in ("alice", "bob", "carol")}}


def create_experiment(user, project):
    """POST /api/v1/experiments of a paused no-op experiment in `project`, as `user`: the reply."""
    body = {"config": (NOOP / "noop.yaml").read_text(), "modelDefinition": [], "projectId": project,
            "activate": False}
    return user.call("POST", "/api/v1/experiments", json=body)


def assign(admin, role_id, *, user=None, group=None, workspace=None):
    ra = {"role": {"roleId": role_id}}
    if workspace is None:
        ra["scopeCluster"] = True
    else:
        ra["scopeWorkspaceId"] = workspace
    body = ({"userRoleAssignments": [{"userId": user, "roleAssignment": ra}]} if user is not None
            else {"groupRoleAssignments": [{"groupId": group, "roleAssignment": ra}]})
    return admin.call("POST", "/api/v1/roles/add-assignments", json=body)


def test_the_master_says_rbac_is_on_and_the_seed_keeps_everyone_working(cluster):
    info = requests.get(cluster.master_url + "/api/v1/master", timeout=30).json()
    assert info["rbacEnabled"] is True
    determined = User(cluster, "determined")
    summary = determined.ok("GET", "/api/v1/permissions/summary")
    assert summary["assignments"] == [{"roleId": 5, "scopeWorkspaceIds": [1], "scopeCluster": False}]
    assert [r["name"] for r in summary["roles"]] == ["Editor"]
    admin_roles = User(cluster, "admin").ok("GET", "/api/v1/permissions/summary")["assignments"]
    assert admin_roles == [{"roleId": 1, "scopeWorkspaceIds": [], "scopeCluster": True}]
    upstream.check_reply("v1GetPermissionsSummaryResponse", summary, "GET /api/v1/permissions/summary")


def test_roles_are_upstreams_ten(people):
    roles = people["alice"].ok("POST", "/api/v1/roles/search", json={"offset": 0, "limit": 100})
    upstream.check_reply("v1ListRolesResponse", roles, "POST /api/v1/roles/search")
    assert [r["name"] for r in roles["roles"]] == [
        "ClusterAdmin", "WorkspaceAdmin", "WorkspaceCreator", "Viewer", "Editor", "ModelRegistryViewer",
        "EditorRestricted", "GenAIUser", "EditorProjectRestricted", "TokenCreator"]
    in_ws = people["alice"].ok("POST", "/api/v1/roles/search/by-assignability",
                               json={"offset": 0, "limit": 100, "workspaceId": people["ws"]["ws-a"]})
    assert "ClusterAdmin" not in [r["name"] for r in in_ws["roles"]], "global-only roles are cluster-wide only"


def test_a_viewer_reads_but_cannot_create_or_kill_and_an_editor_stays_in_its_workspace(people):
    admin, alice, bob = people["admin"], people["alice"], people["bob"]
    ws_a, ws_b = people["ws"]["ws-a"], people["ws"]["ws-b"]
    assert assign(admin, 5, user=people["ids"]["alice"], workspace=ws_a).status_code == 200
    assert assign(admin, 4, user=people["ids"]["bob"], workspace=ws_a).status_code == 200

    made = create_experiment(alice, people["projects"]["ws-a"])
    assert made.status_code == 200, made.text
    exp = made.json()["experiment"]["id"]
    other = create_experiment(admin, people["projects"]["ws-b"])
    assert other.status_code == 200, other.text
    exp_b = other.json()["experiment"]["id"]

    refused = create_experiment(bob, people["projects"]["ws-a"])
    assert refused.status_code == 403
    assert "bob lacks PERMISSION_TYPE_CREATE_EXPERIMENT in workspace" in refused.text
    assert bob.call("GET", f"/api/v1/experiments/{exp}").status_code == 200
    kill = bob.call("POST", f"/api/v1/experiments/{exp}/kill")
    assert kill.status_code == 403 and "PERMISSION_TYPE_UPDATE_EXPERIMENT" in kill.text

    hidden = alice.call("POST", f"/api/v1/experiments/{exp_b}/kill")
    assert hidden.status_code == 404 and f"experiment {exp_b} not found" in hidden.text, "not her workspace: unseen"
    assert create_experiment(alice, people["projects"]["ws-b"]).status_code == 403
    notebook = alice.call("POST", "/api/v1/notebooks", json={"config": {}, "workspaceId": ws_b})
    assert notebook.status_code == 403 and "PERMISSION_TYPE_CREATE_NSC" in notebook.text
    assert alice.call("POST", f"/api/v1/experiments/{exp}/kill").status_code == 200, "her own workspace"


def test_a_groups_role_reaches_its_members_and_leaves_with_them(people, cluster):
    admin, carol = people["admin"], people["carol"]
    ws_b = people["ws"]["ws-b"]
    group = admin.ok("POST", "/api/v1/groups", json={"name": "team-b", "addUsers": [people["ids"]["carol"]]})
    upstream.check_reply("v1CreateGroupResponse", group, "POST /api/v1/groups")
    gid = group["group"]["groupId"]
    assert [u["username"] for u in group["group"]["users"]] == ["carol"]
    assert create_experiment(carol, people["projects"]["ws-b"]).status_code == 403
    assert assign(admin, 5, group=gid, workspace=ws_b).status_code == 200
    assert create_experiment(carol, people["projects"]["ws-b"]).status_code == 200, "through the group"
    in_ws = admin.ok("GET", f"/api/v1/roles/workspace/{ws_b}")
    upstream.check_reply("v1GetGroupsAndUsersAssignedToWorkspaceResponse", in_ws, "GET /api/v1/roles/workspace")
    assert [g["name"] for g in in_ws["groups"]] == ["team-b"]
    admin.ok("PUT", f"/api/v1/groups/{gid}", json={"removeUsers": [people["ids"]["carol"]]})
    assert create_experiment(carol, people["projects"]["ws-b"]).status_code == 403, "at once"
    found = admin.ok("POST", "/api/v1/groups/search", json={"offset": 0, "limit": 10})
    upstream.check_reply("v1GetGroupsResponse", found, "POST /api/v1/groups/search")
    assert [(g["group"]["name"], g["numMembers"]) for g in found["groups"]] == [("team-b", 0)], \
        "personal groups are not listed"


def test_nobody_grants_themselves_a_role(people):
    bob = people["bob"]
    refused = assign(bob, 1, user=people["ids"]["bob"])
    assert refused.status_code == 403 and "PERMISSION_TYPE_ASSIGN_ROLES" in refused.text
    refused = assign(bob, 2, user=people["ids"]["bob"], workspace=people["ws"]["ws-a"])
    assert refused.status_code == 403
    assert bob.call("POST", "/api/v1/groups", json={"name": "mine"}).status_code == 403


def test_bad_input_names_what_is_wrong_and_changes_nothing(people):
    admin = people["admin"]
    before = admin.ok("GET", f"/api/v1/roles/search/by-user/{people['ids']['carol']}")
    unknown = assign(admin, 42, user=people["ids"]["carol"])
    assert unknown.status_code == 404 and "role 42 not found" in unknown.text
    no_user = assign(admin, 4, user=99999)
    assert no_user.status_code == 404 and "user 99999" in no_user.text
    no_group = assign(admin, 4, group=99999)
    assert no_group.status_code == 404 and "group 99999" in no_group.text
    global_in_ws = assign(admin, 1, user=people["ids"]["carol"], workspace=people["ws"]["ws-a"])
    assert global_in_ws.status_code == 400 and "cluster-wide" in global_in_ws.text
    gone = admin.ok("POST", "/api/v1/workspaces", json={"name": "gone"})["workspace"]["id"]
    admin.ok("DELETE", f"/api/v1/workspaces/{gone}")
    deleted = assign(admin, 4, user=people["ids"]["carol"], workspace=gone)
    assert deleted.status_code == 404 and f"workspace {gone}" in deleted.text
    assert admin.ok("GET", f"/api/v1/roles/search/by-user/{people['ids']['carol']}") == before

    admin.ok("POST", "/api/v1/groups", json={"name": "dup"})
    dup = admin.call("POST", "/api/v1/groups", json={"name": "dup"})
    assert dup.status_code == 409 and dup.json()["error"]["error"] == 'group "dup" already exists'
    personal = admin.call("POST", "/api/v1/groups", json={"name": "xDeterminedPersonalGroup"})
    assert personal.status_code == 400 and "DeterminedPersonalGroup" in personal.text
    no_member = admin.call("POST", "/api/v1/groups", json={"name": "ghosts", "addUsers": [99999]})
    assert no_member.status_code == 404
    names = [g["group"]["name"] for g in admin.ok("POST", "/api/v1/groups/search", json={"limit": 50})["groups"]]
    assert "ghosts" not in names


def test_the_stock_cli_manages_groups_and_roles(people, cluster):
    upstream.require_client()

    def stock(*args, check=True):
        return upstream.stock_det(cluster.master_url, *args, user="admin", check=check)

    stock("user-group", "create", "stock-team", "--add-user", "alice")
    listed = stock("user-group", "list").stdout
    assert "stock-team" in listed, listed
    described = stock("user-group", "describe", "stock-team").stdout
    assert "alice" in described, described
    stock("rbac", "assign-role", "Viewer", "-w", "ws-b", "-g", "stock-team")
    roles = stock("rbac", "list-groups-roles", "stock-team").stdout
    assert "Viewer" in roles and "ws-b" in roles, roles
    assert "Viewer" in stock("rbac", "list-roles").stdout
    stock("rbac", "unassign-role", "Viewer", "-w", "ws-b", "-g", "stock-team")
    stock("user-group", "delete", "stock-team", "--yes")
    assert "stock-team" not in stock("user-group", "list").stdout


def test_access_tokens_need_the_token_permissions(people):
    admin, carol = people["admin"], people["carol"]
    me = people["ids"]["carol"]
    refused = carol.call("POST", "/api/v1/tokens", json={"userId": me, "description": "ci"})
    assert refused.status_code == 403 and "PERMISSION_TYPE_CREATE_TOKEN" in refused.text
    assert assign(admin, 10, user=me).status_code == 200  # TokenCreator, cluster-wide
    made = carol.ok("POST", "/api/v1/tokens", json={"userId": me, "description": "ci"})
    assert made["token"]
    other = carol.call("POST", "/api/v1/tokens", json={"userId": people["ids"]["bob"]})
    assert other.status_code == 403 and "PERMISSION_TYPE_CREATE_OTHER_TOKEN" in other.text


def member(cluster, people, name, role):
    """A fresh user `name` with `role` (4 Viewer, 5 Editor) on ws-a only, so that tests share no grants."""
    admin = people["admin"]
    made = admin.ok("POST", "/api/v1/users", json={"user": {"username": name, "active": True}, "password": ""})
    assert assign(admin, role, user=made["user"]["id"], workspace=people["ws"]["ws-a"]).status_code == 200
    return User(cluster, name)


def state(admin, exp):
    return admin.ok("GET", f"/api/v1/experiments/{exp}")["experiment"]["state"]


def new_experiment(user, project):
    made = create_experiment(user, project)
    assert made.status_code == 200, f"{user.name}: {made.status_code} {made.text}"
    return made.json()["experiment"]["id"]


def create_args(project):
    """`det experiment create` of a paused no-op experiment in `project` (the stock and our CLI alike)."""
    return ("experiment", "create", "--project_id", str(project), "--paused", str(NOOP / "noop.yaml"), str(NOOP))


def refused(proc, *names):
    """Checks that a CLI run failed and its output names one of `names`; returns the output."""
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"succeeded:\n{out}"
    assert any(n in out for n in names), f"names none of {names}:\n{out}"
    return out


def listed_ids(table):
    """The first column of each row of a `det ... list` table."""
    return {m.group(1) for m in re.finditer(r"^\s*(\S+)\s*\|", table, re.M)}


CANCELED = ("STATE_STOPPING_CANCELED", "STATE_CANCELED")


def test_a_viewer_and_an_editor_through_the_stock_cli(people, cluster):
    """Determined 0.38.1's own `det` as a Viewer and an Editor of ws-a: what the master refuses, the CLI
    reports with a non-zero exit and the permission's name, and the thing stays as it was."""
    upstream.require_client()
    admin, ws_b = people["admin"], people["ws"]["ws-b"]
    member(cluster, people, "viewer-cli", 4)
    member(cluster, people, "editor-cli", 5)

    def stock(user, *args):
        return upstream.stock_det(cluster.master_url, *args, user=user, check=False)

    made = stock("editor-cli", *create_args(people["projects"]["ws-a"]))
    assert made.returncode == 0, made.stdout + made.stderr
    exp = int(re.search(r"Created experiment (\d+)", made.stdout).group(1))
    exp_b = new_experiment(admin, people["projects"]["ws-b"])
    hook = base64.b64encode(b"sleep 600\n").decode()  # keeps the notebook alive where Jupyter is not installed
    notebook = admin.ok("POST", "/api/v1/notebooks", json={"config": {}, "workspaceId": ws_b, "files": [
        {"path": "startup-hook.sh", "type": 48, "content": hook, "mode": 0o644}]})["notebook"]["id"]
    try:
        listed = stock("viewer-cli", "experiment", "list", "--all")
        assert listed.returncode == 0, listed.stderr
        assert str(exp) in listed_ids(listed.stdout), listed.stdout
        assert str(exp_b) not in listed_ids(listed.stdout), f"ws-b is not the viewer's:\n{listed.stdout}"
        described = stock("viewer-cli", "experiment", "describe", str(exp))
        assert described.returncode == 0 and "noop" in described.stdout, described.stdout + described.stderr
        trials = stock("viewer-cli", "experiment", "list-trials", str(exp))
        assert trials.returncode == 0, trials.stdout + trials.stderr
        refused(stock("viewer-cli", *create_args(people["projects"]["ws-a"])), "PERMISSION_TYPE_CREATE_EXPERIMENT")
        refused(stock("viewer-cli", "experiment", "kill", str(exp)), "PERMISSION_TYPE_UPDATE_EXPERIMENT")
        assert state(admin, exp) == "STATE_PAUSED", "the viewer's kill changed nothing"
        notebooks = stock("viewer-cli", "notebook", "list", "--all")
        assert notebooks.returncode == 0, notebooks.stdout + notebooks.stderr
        assert notebook not in notebooks.stdout, f"ws-b's notebook is not the viewer's:\n{notebooks.stdout}"
        refused(stock("viewer-cli", "command", "run", "-d", "-w", "ws-a", "echo", "hi"), "PERMISSION_TYPE_CREATE_NSC")
        assert admin.ok("GET", "/api/v1/commands", params={"users": "viewer-cli"})["commands"] == []

        # What the editor may not view does not exist for them (and nothing says where it is).
        out = refused(stock("editor-cli", "experiment", "kill", str(exp_b)), f"experiment {exp_b} not found")
        assert "workspace" not in out, out
        assert state(admin, exp_b) == "STATE_PAUSED", "the editor's kill in ws-b changed nothing"
        refused(stock("editor-cli", "notebook", "kill", notebook), f"notebook {notebook} not found")
        after = admin.ok("GET", f"/api/v1/notebooks/{notebook}")["notebook"]
        assert after["state"] not in ("STATE_TERMINATING", "STATE_TERMINATED"), after
        killed = stock("editor-cli", "experiment", "kill", str(exp))
        assert killed.returncode == 0, killed.stdout + killed.stderr
        assert state(admin, exp) in CANCELED, "her own workspace"
    finally:
        admin.call("POST", f"/api/v1/notebooks/{notebook}/kill")


def test_our_cli_keeps_a_viewer_and_an_editor_in_their_place(people, cluster):
    """Our `det` as a Viewer and an Editor of ws-a: the viewer lists and describes but neither creates nor
    kills; the editor kills in ws-a, not in ws-b."""
    admin = people["admin"]
    editor = member(cluster, people, "editor-ours", 5)
    member(cluster, people, "viewer-ours", 4)

    def ours(user, *args):
        env = {"DET_AUTH_FILE": str(cluster.auth_file), "DET_USER": user}
        return det(*args, master=cluster.master_url, env=env, check=False, timeout=120)

    exp = new_experiment(editor, people["projects"]["ws-a"])
    exp_b = new_experiment(admin, people["projects"]["ws-b"])
    listed = ours("viewer-ours", "experiment", "list", "--all")
    assert listed.returncode == 0, listed.stderr
    assert str(exp) in listed_ids(listed.stdout) and str(exp_b) not in listed_ids(listed.stdout), listed.stdout
    described = ours("viewer-ours", "experiment", "describe", str(exp))
    assert described.returncode == 0 and "noop" in described.stdout, described.stdout + described.stderr
    before = admin.ok("GET", "/api/v1/experiments", params={"projectId": people["projects"]["ws-a"]})
    refused(ours("viewer-ours", *create_args(people["projects"]["ws-a"])), "PERMISSION_TYPE_CREATE_EXPERIMENT")
    after = admin.ok("GET", "/api/v1/experiments", params={"projectId": people["projects"]["ws-a"]})
    assert after["pagination"]["total"] == before["pagination"]["total"], "nothing was created"
    refused(ours("viewer-ours", "experiment", "kill", str(exp)), "PERMISSION_TYPE_UPDATE_EXPERIMENT")
    assert state(admin, exp) == "STATE_PAUSED"

    refused(ours("editor-ours", "experiment", "kill", str(exp_b)), f"experiment {exp_b} not found")
    assert state(admin, exp_b) == "STATE_PAUSED"
    killed = ours("editor-ours", "experiment", "kill", str(exp))
    assert killed.returncode == 0, killed.stdout + killed.stderr
    assert state(admin, exp) in CANCELED


# Runs in a task: prints the names of its DET_* variables, then for each [token, name, method, path, body] of
# argv[1] (JSON) makes that call to DET_MASTER with the task's user token (DET_USER_TOKEN, as `Authorization`)
# or its allocation token (DET_SESSION_TOKEN, as `X-Allocation-Token`) and prints the status and error text.
TOKEN_PROBE = r'''
import json, os, sys, urllib.error, urllib.request
print("env:", " ".join(sorted(k for k in os.environ if k.startswith("DET_"))), flush=True)
headers = {"user": ("Authorization", "Bearer " + os.environ.get("DET_USER_TOKEN", "")),
           "allocation": ("X-Allocation-Token", "Bearer " + os.environ.get("DET_SESSION_TOKEN", ""))}
for token, name, method, path, body in json.loads(sys.argv[1]):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(os.environ["DET_MASTER"] + path, data=data, method=method,
                                     headers=dict([headers[token]], **{"Content-Type": "application/json"}))
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            status, text = reply.status, ""
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode(errors="replace")
    print("call:", json.dumps([token, name, status, text]), flush=True)
'''


def test_a_tasks_own_token_does_no_more_than_its_owner(people, cluster):
    """A command of an Editor of ws-a calls the master with the credentials in its environment: its user
    token (DET_USER_TOKEN) does what the owner may and no more; its allocation token (DET_SESSION_TOKEN)
    changes nothing, not even what the owner may change."""
    admin = people["admin"]
    owner = member(cluster, people, "task-owner", 5)
    project_a, project_b = people["projects"]["ws-a"], people["projects"]["ws-b"]
    exp_a = {"allocation": new_experiment(owner, project_a), "user": new_experiment(owner, project_a)}
    exp_b = new_experiment(admin, project_b)
    in_b_before = admin.ok("GET", "/api/v1/experiments", params={"projectId": project_b})["pagination"]["total"]

    def create_in(project):
        return {"config": (NOOP / "noop.yaml").read_text(), "modelDefinition": [], "projectId": project,
                "activate": False}

    calls = [[token, name, method, path, body] for token in ("allocation", "user") for name, method, path, body in (
        ("view-a", "GET", f"/api/v1/experiments/{exp_a[token]}", None),
        ("view-b", "GET", f"/api/v1/experiments/{exp_b}", None),
        ("kill-a", "POST", f"/api/v1/experiments/{exp_a[token]}/kill", {}),
        ("create-a", "POST", "/api/v1/experiments", create_in(project_a)),
        ("create-b", "POST", "/api/v1/experiments", create_in(project_b)))]
    config = {"entrypoint": ["/usr/bin/python3", "-c", TOKEN_PROBE, json.dumps(calls)], "resources": {"slots": 0}}
    cmd = owner.ok("POST", "/api/v1/commands", json={"config": config, "workspaceId": people["ws"]["ws-a"]})
    cmd = cmd["command"]["id"]
    ended = wait_for(lambda: (c := admin.ok("GET", f"/api/v1/commands/{cmd}")["command"])["state"]
                     == "STATE_TERMINATED" and c, "the command to end", timeout=120)
    reply = admin.call("GET", f"/api/v1/tasks/{cmd}/logs")
    lines = [json.loads(line)["result"]["log"].rstrip("\n") for line in reply.text.splitlines() if line]
    assert ended["exitCode"] == 0, "\n".join(lines)
    env = next(line for line in lines if line.startswith("env: ")).split()[1:]
    assert {"DET_MASTER", "DET_USER", "DET_USER_TOKEN", "DET_SESSION_TOKEN", "DET_ALLOCATION_ID"} <= set(env), env
    got = {(token, name): (status, text) for token, name, status, text in
           (json.loads(line[len("call: "):]) for line in lines if line.startswith("call: "))}
    assert len(got) == len(calls), "\n".join(lines)
    statuses = {key: status for key, (status, _) in got.items()}

    assert statuses["user", "view-a"] == 200, got
    assert statuses["user", "view-b"] == 404, got
    assert statuses["user", "kill-a"] == 200, got
    assert statuses["user", "create-a"] == 200, got
    assert statuses["user", "create-b"] == 403, got
    assert "PERMISSION_TYPE_CREATE_EXPERIMENT" in got["user", "create-b"][1], got

    assert statuses["allocation", "view-a"] == 200, f"an allocation token reads as its owner: {got}"
    assert statuses["allocation", "view-b"] == 404, got
    for name in ("kill-a", "create-a", "create-b"):
        assert statuses["allocation", name] == 403, f"an allocation token changes nothing: {got}"
        assert "tasks cannot" in got["allocation", name][1], got

    assert state(admin, exp_a["allocation"]) == "STATE_PAUSED", "the allocation token's kill changed nothing"
    assert state(admin, exp_a["user"]) in CANCELED, "the owner's token kills in the owner's workspace"
    in_b = admin.ok("GET", "/api/v1/experiments", params={"projectId": project_b})["pagination"]["total"]
    assert in_b == in_b_before, "nothing was created in ws-b"


def test_the_queue_shows_other_workspaces_jobs_limited_and_strict_control_needs_its_permission(people, cluster):
    """A Viewer of ws-a sees ws-a's jobs in full and ws-b's only as upstream's LimitedJob (v2), or not at all
    (v1, and the slot map of GET /api/v1/tasks); with strict_job_queue_control an Editor may not reprioritize
    even their own job, an admin may."""
    admin = people["admin"]
    viewer = member(cluster, people, "queue-viewer", 4)
    editor = member(cluster, people, "queue-editor", 5)
    sleeping = {"entrypoint": ["sleep", "600"], "resources": {"slots": 1}}
    mine = editor.ok("POST", "/api/v1/commands", json={"config": sleeping, "workspaceId": people["ws"]["ws-a"]})
    theirs = admin.ok("POST", "/api/v1/commands", json={"config": sleeping, "workspaceId": people["ws"]["ws-b"]})
    mine, theirs = mine["command"], theirs["command"]
    try:
        assert requests.get(cluster.master_url + "/api/v1/master", timeout=30).json()["strictJobQueueControl"] is True

        def queued():
            jobs = viewer.ok("GET", "/api/v1/job-queues-v2")["jobs"]
            ids = {(j.get("full") or j.get("limited"))["jobId"] for j in jobs}
            return jobs if {mine["jobId"], theirs["jobId"]} <= ids else None
        jobs = wait_for(queued, "both commands in the queue")
        upstream.check_reply("v1GetJobsV2Response", {"jobs": jobs, "pagination": {}}, "GET /api/v1/job-queues-v2")
        by_id = {(j.get("full") or j.get("limited"))["jobId"]: j for j in jobs}
        assert set(by_id[mine["jobId"]]) == {"full"} and by_id[mine["jobId"]]["full"]["username"] == "queue-editor"
        limited = by_id[theirs["jobId"]]
        assert set(limited) == {"limited"}, limited
        assert not {"name", "username", "userId", "entityId"} & set(limited["limited"]), limited
        assert limited["limited"]["workspaceId"] == people["ws"]["ws-b"]
        listed = upstream.stock_det(cluster.master_url, "job", "list", user="queue-viewer", check=False)
        assert listed.returncode == 0, listed.stdout + listed.stderr  # the stock CLI takes limited jobs
        assert mine["jobId"] in listed.stdout, listed.stdout
        env = {"DET_AUTH_FILE": str(cluster.auth_file), "DET_USER": "queue-viewer"}
        ours = det("job", "list", master=cluster.master_url, env=env, check=False, timeout=120)
        assert ours.returncode == 0 and theirs["jobId"] in ours.stdout, ours.stdout + ours.stderr
        v1 = viewer.ok("GET", "/api/v1/job-queues")
        upstream.check_reply("v1GetJobsResponse", v1, "GET /api/v1/job-queues")
        assert theirs["jobId"] not in {j["jobId"] for j in v1["jobs"]} and mine["jobId"] in {j["jobId"] for j in v1["jobs"]}

        def running(user):
            return {s["taskId"] for s in user.ok("GET", "/api/v1/tasks")["allocationIdToSummary"].values()}
        wait_for(lambda: {mine["id"], theirs["id"]} <= running(admin), "both commands on a slot")
        assert mine["id"] in running(viewer) and theirs["id"] not in running(viewer)
        counts = {who.name: who.ok("GET", "/api/v1/tasks/count")["commands"] for who in (admin, viewer)}
        assert counts["queue-viewer"] < counts["admin"], f"ws-b's running command is not counted: {counts}"

        update = {"updates": [{"jobId": mine["jobId"], "priority": 7}]}
        for attempt in (editor.call("POST", "/api/v1/job-queues", json=update),
                        editor.call("POST", f"/api/v1/commands/{mine['id']}/set_priority", json={"priority": 7})):
            assert attempt.status_code == 403 and "PERMISSION_TYPE_CONTROL_STRICT_JOB_QUEUE" in attempt.text, attempt.text
        admin.ok("POST", "/api/v1/job-queues", json=update)
        priority = next(j["full"]["priority"] for j in admin.ok("GET", "/api/v1/job-queues-v2")["jobs"]
                        if j.get("full", {}).get("jobId") == mine["jobId"])
        assert priority == 7
    finally:
        for command in (mine, theirs):
            admin.call("POST", f"/api/v1/commands/{command['id']}/kill")


def test_a_tensorboard_shows_only_experiments_its_launcher_may_read(people, cluster):
    """An Editor of ws-a launches a TensorBoard of a ws-a experiment, but not of ws-b's: that experiment does
    not exist for them."""
    admin = people["admin"]
    editor = member(cluster, people, "tensorboard-editor", 5)
    exp_a = new_experiment(editor, people["projects"]["ws-a"])
    exp_b = new_experiment(admin, people["projects"]["ws-b"])
    body = {"config": {}, "workspaceId": people["ws"]["ws-a"]}
    hidden = editor.call("POST", "/api/v1/tensorboards", json={**body, "experimentIds": [exp_a, exp_b]})
    assert hidden.status_code == 404 and f"experiment {exp_b} not found" in hidden.text, hidden.text
    assert admin.ok("GET", "/api/v1/tensorboards", params={"users": "tensorboard-editor"})["tensorboards"] == []
    made = editor.ok("POST", "/api/v1/tensorboards", json={**body, "experimentIds": [exp_a]})["tensorboard"]
    admin.call("POST", f"/api/v1/tensorboards/{made['id']}/kill")


def test_bulk_actions_touch_and_name_only_what_the_caller_may_see(people, cluster):
    """A bulk action by filters leaves out (and says nothing of) experiments the caller may not see; one
    named by id that the caller may not see is "not found", not refused with its workspace."""
    admin = people["admin"]
    editor = member(cluster, people, "bulk-editor", 5)
    exp_a = new_experiment(editor, people["projects"]["ws-a"])
    exp_b = new_experiment(admin, people["projects"]["ws-b"])
    everything = editor.ok("POST", "/api/v1/projects/-1/experiments/archive", json={"filters": {}, "projectId": -1})
    ids = {r["id"] for r in everything["results"]}
    assert exp_a in ids and exp_b not in ids, everything
    assert not admin.ok("GET", f"/api/v1/experiments/{exp_b}")["experiment"]["archived"]
    named = editor.ok("POST", "/api/v1/projects/-1/experiments/kill", json={"experimentIds": [exp_b], "projectId": -1})
    assert named["results"] == [{"id": exp_b, "error": f"experiment {exp_b} not found"}], named
    assert state(admin, exp_b) == "STATE_PAUSED"
