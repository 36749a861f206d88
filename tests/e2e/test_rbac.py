"""RBAC end to end on a master with `security.authz.type: rbac`: the first start seeds roles (admins
ClusterAdmin, everyone else Editor on Uncategorized); groups and role assignments through the REST API and
Determined 0.38.1's own `det user-group` and `det rbac`; what a Viewer and an Editor may do in their
workspace and not in another's; a group's role reaching its members and leaving with them; refusals that
name the missing permission; bad input that names what is wrong and changes nothing."""
import pytest
import requests

import upstream
from conftest import REPO, local_cluster, login

NOOP = REPO / "examples" / "noop"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "security:\n  authz:\n    type: rbac\n"
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

    assert alice.call("POST", f"/api/v1/experiments/{exp_b}/kill").status_code == 403, "not her workspace"
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
