"""The role x endpoint table, against a real master with `security.authz.type: rbac`, on SQLite and on
PostgreSQL: for every built-in role, assigned in one workspace (the roles that may be) and cluster-wide, each
permission-gated endpoint below is called once by a user holding just that role, and must be allowed exactly
when upstream's role table grants the endpoint's permission where the call acts. Denied writes are 403
naming the permission, unless the holder may not even see what the write is about: then, like denied reads,
404 (what one may not see does not exist); lists leave out what one may not see.

The expected table is written out here from upstream's role definitions, id by id, independently of the
master's own (master/rbac/roles.cc)."""
import uuid

import pytest

from conftest import REPO, local_cluster, login, wait_for

NOOP = REPO / "examples" / "noop"

EDITOR = {2001, 2002, 2003, 2004, 2005, 2006, 3001, 3002, 3003, 4002, 5001, 5002, 5003, 7001, 7002, 7003, 7004,
          7005, 9001, 9002, 9003, 9004, 11003, 11006, 11007, 97001, 97002}
ROLES = {  # id: (name, permission ids, assignable in a workspace)
    1: ("ClusterAdmin", "all", False),
    2: ("WorkspaceAdmin", {2001, 2002, 2003, 2004, 2005, 2006, 3001, 3002, 3003, 4002, 4003, 4004, 4006, 4007,
                           5001, 5002, 5003, 5004, 6002, 7001, 7002, 7003, 7004, 7005, 7006, 7007, 9001, 9002,
                           9003, 9004, 11003, 11005, 11006, 11007, 97001, 97002}, True),
    3: ("WorkspaceCreator", {94001, 11006, 11007}, False),
    4: ("Viewer", {2002, 2003, 3002, 4002, 5002, 7001, 9001, 11003, 11006, 11007, 97002}, True),
    5: ("Editor", EDITOR, True),
    6: ("ModelRegistryViewer", {7001, 11006, 11007}, True),
    7: ("EditorRestricted", EDITOR - {3001, 3003}, True),
    8: ("GenAIUser", {2001, 2002, 2003, 2004, 2005, 2006, 3001, 3002, 3003, 94001, 4002, 5001, 5002, 5003, 5004,
                      7001, 7002, 7003, 7004, 7005, 9001, 9002, 9003, 9004, 11003, 11006, 11007}, False),
    9: ("EditorProjectRestricted", EDITOR - {5001, 5003}, True),
    10: ("TokenCreator", {12002, 12003, 12006}, False),
}


def grants(role_id, permission):
    perms = ROLES[role_id][1]
    return perms == "all" or permission in perms


class World:
    """What the calls act on: workspace `ws` (where workspace-scoped roles are given) and `other` (where none
    is), a project, experiment and model in each, made by admin."""

    def __init__(self, cluster):
        self.url = cluster.master_url
        self.admin = login(cluster, "admin")
        self.cluster = cluster
        self.ws = self.post("/api/v1/workspaces", {"name": "matrix-ws"})["workspace"]["id"]
        self.other = self.post("/api/v1/workspaces", {"name": "matrix-other"})["workspace"]["id"]
        self.project = {w: self.post(f"/api/v1/workspaces/{w}/projects", {"name": "p", "workspaceId": w})["project"]["id"]
                        for w in (self.ws, self.other)}
        self.experiment = {w: self.new_experiment(w) for w in (self.ws, self.other)}
        self.model = {w: self.new_model(w) for w in (self.ws, self.other)}
        self.template = {w: self.new_template(w) for w in (self.ws, self.other)}
        self.command = {w: self.new_command(w) for w in (self.ws, self.other)}
        self.agent = wait_for(lambda: next(iter(self.get("/api/v1/agents")["agents"]), None), "an agent")["id"]

    def get(self, path):
        r = self.admin.get(self.url + path, timeout=60)
        assert r.status_code == 200, r.text
        return r.json()

    def post(self, path, body):
        r = self.admin.post(self.url + path, json=body, timeout=60)
        assert r.status_code == 200, f"{path}: {r.text}"
        return r.json()

    def new_experiment(self, workspace):
        body = {"config": (NOOP / "noop.yaml").read_text(), "modelDefinition": [],
                "projectId": self.project[workspace], "activate": False}
        return self.post("/api/v1/experiments", body)["experiment"]["id"]

    def ended_experiment(self, workspace):
        """A new experiment of `workspace`, killed (an experiment is deleted once it ended)."""
        exp = self.new_experiment(workspace)
        self.post(f"/api/v1/experiments/{exp}/kill", {})
        wait_for(lambda: self.get(f"/api/v1/experiments/{exp}")["experiment"]["state"] in
                 ("STATE_CANCELED", "STATE_COMPLETED", "STATE_ERROR"), f"experiment {exp} to end")
        return exp

    def new_model(self, workspace):
        name = f"model-{uuid.uuid4().hex[:8]}"
        self.post("/api/v1/models", {"name": name, "workspaceId": workspace})
        return name

    def new_command(self, workspace):
        config = {"entrypoint": ["sleep", "600"], "resources": {"slots": 0}}
        return self.post("/api/v1/commands", {"config": config, "workspaceId": workspace})["command"]["id"]

    def new_template(self, workspace):
        name = f"template-{uuid.uuid4().hex[:8]}"
        self.post(f"/api/v1/templates/{name}", {"config": {"description": "matrix"}, "workspaceId": workspace})
        return name

    def assign(self, user_id, role_id, workspace):
        ra = {"role": {"roleId": role_id}}
        ra.update({"scopeWorkspaceId": workspace} if workspace else {"scopeCluster": True})
        self.post("/api/v1/roles/add-assignments", {"userRoleAssignments": [{"userId": user_id, "roleAssignment": ra}]})


# Each endpoint: (name, permission, scope, kind, call). scope "ws": acts in the workspace the roles are given
# in; "other": in a workspace no workspace-scoped role reaches; "cluster": on the cluster itself. call(world,
# session) makes one request and returns its response. A denied "read" answers 404; a denied "write" (or a
# cluster-wide read) 403 naming the permission, or 404 when the holder may not see what it is about
# (SEEN_WITH: the permission that sees it).
def _exp(w, where):
    return w.experiment[w.ws if where == "ws" else w.other]


ENDPOINTS = [
    ("view an experiment", 2003, "ws", "read", lambda w, s: s.get(f"{w.url}/api/v1/experiments/{_exp(w, 'ws')}")),
    ("view another workspace's experiment", 2003, "other", "read",
     lambda w, s: s.get(f"{w.url}/api/v1/experiments/{_exp(w, 'other')}")),
    ("create an experiment", 2001, "ws", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/experiments", json={
         "config": (NOOP / "noop.yaml").read_text(), "modelDefinition": [], "projectId": w.project[w.ws],
         "activate": False})),
    ("pause an experiment", 2004, "ws", "write", lambda w, s: s.post(f"{w.url}/api/v1/experiments/{_exp(w, 'ws')}/pause")),
    ("pause another workspace's experiment", 2004, "other", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/experiments/{_exp(w, 'other')}/pause")),
    ("label an experiment", 2005, "ws", "write",
     lambda w, s: s.put(f"{w.url}/api/v1/experiments/{_exp(w, 'ws')}/labels/matrix")),
    ("delete an experiment", 2006, "ws", "write",
     lambda w, s: s.delete(f"{w.url}/api/v1/experiments/{w.ended_experiment(w.ws)}")),
    ("launch a command", 3001, "ws", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/commands", json={"config": {"entrypoint": ["true"], "resources": {"slots": 0}},
                                                            "workspaceId": w.ws})),
    ("view a command", 3002, "ws", "read", lambda w, s: s.get(f"{w.url}/api/v1/commands/{w.command[w.ws]}")),
    ("view another workspace's command", 3002, "other", "read",
     lambda w, s: s.get(f"{w.url}/api/v1/commands/{w.command[w.other]}")),
    ("kill a command", 3003, "ws", "write", lambda w, s: s.post(f"{w.url}/api/v1/commands/{w.new_command(w.ws)}/kill")),
    ("view a workspace", 4002, "ws", "read", lambda w, s: s.get(f"{w.url}/api/v1/workspaces/{w.ws}")),
    ("change a workspace", 4003, "ws", "write",
     lambda w, s: s.patch(f"{w.url}/api/v1/workspaces/{w.ws}", json={"name": "matrix-ws"})),
    ("view a project", 5002, "ws", "read", lambda w, s: s.get(f"{w.url}/api/v1/projects/{w.project[w.ws]}")),
    ("change a project", 5003, "ws", "write",
     lambda w, s: s.patch(f"{w.url}/api/v1/projects/{w.project[w.ws]}", json={"description": "matrix"})),
    ("assign a role in the workspace", 6002, "ws", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/roles/add-assignments", json={"userRoleAssignments": [
         {"userId": 2, "roleAssignment": {"role": {"roleId": 4}, "scopeWorkspaceId": w.ws}}]})),
    ("view an experiment's trials", 2003, "ws", "read",
     lambda w, s: s.get(f"{w.url}/api/v1/experiments/{_exp(w, 'ws')}/trials")),
    ("view another workspace's experiment's checkpoints", 2002, "other", "read",
     lambda w, s: s.get(f"{w.url}/api/v1/experiments/{_exp(w, 'other')}/checkpoints")),
    ("view a template", 9001, "ws", "read", lambda w, s: s.get(f"{w.url}/api/v1/templates/{w.template[w.ws]}")),
    ("view another workspace's template", 9001, "other", "read",
     lambda w, s: s.get(f"{w.url}/api/v1/templates/{w.template[w.other]}")),
    ("change a template", 9002, "ws", "write",
     lambda w, s: s.patch(f"{w.url}/api/v1/templates/{w.template[w.ws]}", json={"description": "changed"})),
    ("create a template", 9003, "ws", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/templates/t-{uuid.uuid4().hex[:8]}",
                         json={"config": {"description": "matrix"}, "workspaceId": w.ws})),
    ("delete a template", 9004, "ws", "write",
     lambda w, s: s.delete(f"{w.url}/api/v1/templates/{w.new_template(w.ws)}")),
    ("view the master's logs", 8001, "cluster", "write", lambda w, s: s.get(f"{w.url}/api/v1/master/logs?limit=1")),
    ("view the master's config", 8005, "cluster", "write", lambda w, s: s.get(f"{w.url}/api/v1/master/config")),
    ("view a model", 7001, "ws", "read", lambda w, s: s.get(f"{w.url}/api/v1/models/{w.model[w.ws]}")),
    ("edit a model", 7002, "ws", "write",
     lambda w, s: s.patch(f"{w.url}/api/v1/models/{w.model[w.ws]}", json={"description": "matrix"})),
    ("create a model", 7003, "ws", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/models", json={"name": f"m-{uuid.uuid4().hex[:8]}", "workspaceId": w.ws})),
    ("delete another user's model", 7006, "ws", "write",
     lambda w, s: s.delete(f"{w.url}/api/v1/models/{w.new_model(w.ws)}")),
    ("create a workspace", 94001, "cluster", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/workspaces", json={"name": f"ws-{uuid.uuid4().hex[:8]}"})),
    ("create a group", 93001, "cluster", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/groups", json={"name": f"g-{uuid.uuid4().hex[:8]}"})),
    ("enable an agent", 8003, "cluster", "write", lambda w, s: s.post(f"{w.url}/api/v1/agents/{w.agent}/enable")),
    ("assign a role cluster-wide", 6002, "cluster", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/roles/add-assignments", json={"userRoleAssignments": [
         {"userId": 2, "roleAssignment": {"role": {"roleId": 4}, "scopeCluster": True}}]})),
    ("create a user", 91001, "cluster", "write",
     lambda w, s: s.post(f"{w.url}/api/v1/users", json={"user": {"username": f"u-{uuid.uuid4().hex[:8]}", "active": True},
                                                         "password": ""})),
]

SEEN_WITH = {
    "pause an experiment": 2003, "pause another workspace's experiment": 2003, "label an experiment": 2003,
    "delete an experiment": 2003, "change a workspace": 4002, "change a project": 5002, "edit a model": 7001,
    "delete another user's model": 7001, "kill a command": 3002, "change a template": 9001, "delete a template": 9001,
}

# Every role that may be given in a workspace, there; every role cluster-wide; and nobody (no role at all).
HOLDERS = ([(rid, "ws") for rid, (_, _, in_ws) in ROLES.items() if in_ws] + [(rid, "cluster") for rid in ROLES]
           + [(None, None)])


def expected(role_id, scope, permission, acts_in):
    if role_id is None:
        return False
    if scope == "cluster":
        return grants(role_id, permission)
    return acts_in == "ws" and grants(role_id, permission)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def world(request, tmp_path_factory):
    config = "security:\n  authz:\n    type: rbac\n"
    with local_cluster(tmp_path_factory.mktemp(f"rbac-matrix-{request.param}"), master_config=config,
                       db=None if request.param == "sqlite" else "postgres") as cluster:
        w = World(cluster)
        w.sessions = {}
        for role_id, scope in HOLDERS:
            name = f"holder-{role_id}-{scope}" if role_id else "nobody"
            user = w.post("/api/v1/users", {"user": {"username": name, "active": True}, "password": ""})["user"]
            if role_id:
                w.assign(user["id"], role_id, w.ws if scope == "ws" else None)
            w.sessions[(role_id, scope)] = login(cluster, name)
        yield w


@pytest.mark.parametrize("holder", HOLDERS, ids=lambda h: f"{ROLES[h[0]][0]}@{h[1]}" if h[0] else "no-role")
def test_each_endpoint_is_allowed_exactly_where_the_role_grants_its_permission(world, holder):
    role_id, scope = holder
    session = world.sessions[holder]
    wrong = []
    for name, permission, acts_in, kind, call in ENDPOINTS:
        allowed = expected(role_id, scope, permission, acts_in)
        r = call(world, session)
        if allowed and r.status_code != 200:
            wrong.append(f"{name}: expected allowed, got {r.status_code} {r.text[:200]}")
        if not allowed:
            unseen = name in SEEN_WITH and not expected(role_id, scope, SEEN_WITH[name], acts_in)
            want = 404 if kind == "read" or unseen else 403
            if r.status_code != want:
                wrong.append(f"{name}: expected {want}, got {r.status_code} {r.text[:200]}")
            elif want == 403 and "PERMISSION_TYPE_" not in r.text:
                wrong.append(f"{name}: the refusal does not name the permission: {r.text[:200]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("holder", HOLDERS, ids=lambda h: f"{ROLES[h[0]][0]}@{h[1]}" if h[0] else "no-role")
def test_lists_leave_out_what_the_role_may_not_see(world, holder):
    role_id, scope = holder
    session = world.sessions[holder]
    seen = {e["id"] for e in session.get(f"{world.url}/api/v1/experiments", timeout=60).json()["experiments"]}
    for where, exp in ((world.ws, world.experiment[world.ws]), (world.other, world.experiment[world.other])):
        visible = expected(role_id, scope, 2003, "ws" if where == world.ws else "other")
        assert (exp in seen) == visible, f"experiment {exp} in workspace {where}: listed={exp in seen}"
    workspaces = {w["id"] for w in session.get(f"{world.url}/api/v1/workspaces", timeout=60).json()["workspaces"]}
    assert (world.ws in workspaces) == expected(role_id, scope, 4002, "ws")
    assert (world.other in workspaces) == expected(role_id, scope, 4002, "other")
    models = {m["name"] for m in session.get(f"{world.url}/api/v1/models", timeout=60).json()["models"]}
    assert (world.model[world.ws] in models) == expected(role_id, scope, 7001, "ws")
    templates = {t["name"] for t in session.get(f"{world.url}/api/v1/templates", timeout=60).json()["templates"]}
    assert (world.template[world.ws] in templates) == expected(role_id, scope, 9001, "ws")
    assert (world.template[world.other] in templates) == expected(role_id, scope, 9001, "other")
    agent = session.get(f"{world.url}/api/v1/agents/{world.agent}", timeout=60).json()["agent"]
    assert bool(agent["addresses"]) == expected(role_id, scope, 8004, "cluster"), "only VIEW_SENSITIVE_AGENT_INFO"
