"""Our `det user-group` and `det rbac` against a master with `security.authz.type: rbac`: a group made, filled,
given Viewer in a workspace (and a user Editor there), what the list, describe and my-permissions commands show
of it, checked against the master's own replies, then unassigned, emptied, renamed and deleted; bad names
(unknown role, group, user, workspace) exit non-zero with a message naming them and change nothing."""
import json

import pytest

from conftest import det, local_cluster, login

WS = "cli-ws"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "security:\n  authz:\n    type: rbac\n"
    with local_cluster(tmp_path_factory.mktemp("rbac_cli"), master_config=config) as c:
        yield c


@pytest.fixture(scope="module")
def admin(cluster):
    """A REST session as admin, after creating users alice, bob and carol and the workspace WS."""
    s = login(cluster, "admin")
    for name in ("alice", "bob", "carol"):
        r = s.post(cluster.master_url + "/api/v1/users",
                   json={"user": {"username": name, "active": True}, "password": ""}, timeout=30)
        assert r.status_code == 200, r.text
    r = s.post(cluster.master_url + "/api/v1/workspaces", json={"name": WS}, timeout=30)
    assert r.status_code == 200, r.text
    s.workspace_id = r.json()["workspace"]["id"]
    return s


def run(cluster, *args, user="admin", check=True):
    """Our det as `user` (blank password), with the cluster's token cache."""
    env = {"DET_AUTH_FILE": str(cluster.auth_file), "DET_USER": user}
    return det(*args, master=cluster.master_url, env=env, check=check, timeout=120)


def rest(cluster, admin, method, path, **kw):
    r = admin.request(method, cluster.master_url + path, timeout=30, **kw)
    assert r.status_code == 200, f"{method} {path}: {r.status_code} {r.text}"
    return r.json()


def group_id(cluster, admin, name):
    """The group's id from the master, or None when there is no such group."""
    found = rest(cluster, admin, "POST", "/api/v1/groups/search", json={"name": name, "offset": 0, "limit": 10})
    groups = found.get("groups") or []
    return groups[0]["group"]["groupId"] if groups else None


def role_id(cluster, admin, name):
    roles = rest(cluster, admin, "POST", "/api/v1/roles/search", json={"offset": 0, "limit": 100})["roles"]
    return next(r["roleId"] for r in roles if r["name"] == name)


def test_a_group_is_made_given_roles_and_taken_apart(cluster, admin):
    made = run(cluster, "user-group", "create", "cli-team", "--add-user", "alice").stdout
    assert "cli-team" in made and "alice" in made, made
    gid = group_id(cluster, admin, "cli-team")
    assert gid is not None
    run(cluster, "user-group", "add-user", "cli-team", "bob")
    members = rest(cluster, admin, "GET", f"/api/v1/groups/{gid}")["group"]["users"]
    assert sorted(u["username"] for u in members) == ["alice", "bob"]

    described = json.loads(run(cluster, "user-group", "describe", "cli-team", "--json").stdout)
    assert described["groupId"] == gid
    assert sorted(u["username"] for u in described["users"]) == ["alice", "bob"]
    table = run(cluster, "user-group", "describe", "cli-team").stdout
    assert "Username" in table and "alice" in table and "bob" in table, table
    listed = run(cluster, "user-group", "list").stdout
    row = next(line for line in listed.splitlines() if "cli-team" in line)
    assert [c.strip() for c in row.split("|")] == [str(gid), "cli-team", "2"], listed
    bobs = json.loads(run(cluster, "user-group", "list", "--groups-user-belongs-to", "bob", "--json").stdout)
    assert [g["group"]["name"] for g in bobs["groups"]] == ["cli-team"]

    viewer, editor = role_id(cluster, admin, "Viewer"), role_id(cluster, admin, "Editor")
    assigned = run(cluster, "rbac", "assign-role", "Viewer", "-w", WS, "-g", "cli-team").stdout
    assert "Viewer" in assigned and "cli-team" in assigned and WS in assigned, assigned
    run(cluster, "rbac", "assign-role", "Editor", "--workspace-name", WS, "--username-to-assign", "carol")
    by_group = rest(cluster, admin, "GET", f"/api/v1/roles/search/by-group/{gid}")
    assert by_group["assignments"] == [{"roleId": viewer, "scopeWorkspaceIds": [admin.workspace_id],
                                        "scopeCluster": False}]

    groups_roles = run(cluster, "rbac", "list-groups-roles", "cli-team").stdout
    assert "Viewer" in groups_roles and WS in groups_roles, groups_roles
    assert json.loads(run(cluster, "rbac", "list-groups-roles", "cli-team", "--json").stdout) == by_group
    carol = run(cluster, "rbac", "list-users-roles", "carol").stdout
    carol_row = next(line for line in carol.splitlines() if "Editor" in line)
    assert [c.strip() for c in carol_row.split("|")] == [
        "Editor", str(editor), "True", "N/A", "N/A", "False", WS, str(admin.workspace_id)], carol
    alice = run(cluster, "rbac", "list-users-roles", "alice").stdout
    alice_row = next(line for line in alice.splitlines() if "Viewer" in line)
    assert [c.strip() for c in alice_row.split("|")] == [
        "Viewer", str(viewer), "False", "cli-team", str(gid), "False", WS, str(admin.workspace_id)], alice
    described_role = run(cluster, "rbac", "describe-role", "Viewer").stdout
    assert "cli-team" in described_role, described_role

    mine = run(cluster, "rbac", "my-permissions", user="alice").stdout
    assert f'workspace "{WS}"' in mine and "PERMISSION_TYPE_VIEW_WORKSPACE" in mine, mine
    summary = json.loads(run(cluster, "rbac", "my-permissions", "--json", user="alice").stdout)
    assert {"roleId": viewer, "scopeWorkspaceIds": [admin.workspace_id], "scopeCluster": False} in summary["assignments"]

    run(cluster, "rbac", "unassign-role", "Viewer", "-w", WS, "-g", "cli-team")
    run(cluster, "rbac", "unassign-role", "Editor", "-w", WS, "-u", "carol")
    assert rest(cluster, admin, "GET", f"/api/v1/roles/search/by-group/{gid}")["assignments"] == []
    carol_id = rest(cluster, admin, "GET", "/api/v1/users/carol/by-username")["user"]["id"]
    assert rest(cluster, admin, "GET", f"/api/v1/roles/search/by-user/{carol_id}")["roles"] == []
    assert "has no roles" in run(cluster, "rbac", "list-groups-roles", "cli-team").stdout

    run(cluster, "user-group", "remove-user", "cli-team", "bob")
    members = rest(cluster, admin, "GET", f"/api/v1/groups/{gid}")["group"]["users"]
    assert [u["username"] for u in members] == ["alice"]
    run(cluster, "user-group", "change-name", "cli-team", "cli-crew")
    assert group_id(cluster, admin, "cli-team") is None and group_id(cluster, admin, "cli-crew") == gid
    run(cluster, "user-group", "delete", "cli-crew", "--yes")
    assert group_id(cluster, admin, "cli-crew") is None
    assert "cli-crew" not in run(cluster, "user-group").stdout, "`det user-group` alone lists the groups"


def test_roles_are_listed_with_and_without_the_global_ones(cluster, admin):
    everything = run(cluster, "rbac", "list-roles").stdout
    assert everything == run(cluster, "rbac").stdout, "`det rbac` alone lists the roles"
    assert '"ClusterAdmin"' in everything and '"Viewer"' in everything, everything
    in_workspace = run(cluster, "rbac", "list-roles", "--exclude-global-roles").stdout
    assert '"ClusterAdmin"' not in in_workspace and '"Viewer"' in in_workspace, in_workspace
    listed = json.loads(run(cluster, "rbac", "list-roles", "--json").stdout)
    names = [r["name"] for r in listed["roles"]]
    reply = rest(cluster, admin, "POST", "/api/v1/roles/search/by-assignability", json={"offset": 0, "limit": 200})
    assert names == [r["name"] for r in reply["roles"]]
    one = json.loads(run(cluster, "rbac", "list-roles", "--limit", "2", "--pages", "1", "--json").stdout)
    assert [r["name"] for r in one["roles"]] == names[:2]
    paged = json.loads(run(cluster, "rbac", "list-roles", "--limit", "3", "--json").stdout)
    assert [r["name"] for r in paged["roles"]] == names, "--pages all reads every page"


def test_bad_names_are_named_and_change_nothing(cluster, admin):
    def fails(*args, user="admin"):
        proc = run(cluster, *args, user=user, check=False)
        assert proc.returncode != 0, f"det {' '.join(args)} succeeded:\n{proc.stdout}"
        return proc.stderr

    run(cluster, "user-group", "create", "cli-bad", "--add-user", "alice")
    assert "Janitor" in fails("rbac", "assign-role", "Janitor", "-g", "cli-bad")
    assert "nosuchgroup" in fails("rbac", "assign-role", "Viewer", "-w", WS, "-g", "nosuchgroup")
    assert "ghost" in fails("rbac", "assign-role", "Viewer", "-w", WS, "-u", "ghost")
    assert "nosuchws" in fails("rbac", "assign-role", "Viewer", "-w", "nosuchws", "-u", "alice")
    assert "exactly one" in fails("rbac", "assign-role", "Viewer", "-u", "alice", "-g", "cli-bad")
    assert "exactly one" in fails("rbac", "unassign-role", "Viewer")
    assert "nosuchgroup" in fails("rbac", "list-groups-roles", "nosuchgroup")
    assert "ghost" in fails("rbac", "list-users-roles", "ghost")
    assert "Janitor" in fails("rbac", "describe-role", "Janitor")
    assert "nosuchgroup" in fails("user-group", "describe", "nosuchgroup")
    assert "nosuchgroup" in fails("user-group", "delete", "nosuchgroup", "--yes")
    missing = fails("user-group", "create", "cli-ghosts", "--add-user", "ghost", "--add-user", "phantom")
    assert "ghost" in missing and "phantom" in missing, missing
    assert group_id(cluster, admin, "cli-ghosts") is None
    assert "ghost" in fails("user-group", "add-user", "cli-bad", "bob,ghost")
    # A user without the permission to assign roles is refused by the master.
    fails("rbac", "assign-role", "Viewer", "-w", WS, "-u", "bob", user="alice")

    gid = group_id(cluster, admin, "cli-bad")
    members = rest(cluster, admin, "GET", f"/api/v1/groups/{gid}")["group"]["users"]
    assert [u["username"] for u in members] == ["alice"], "bob was not added alongside the unknown user"
    assert rest(cluster, admin, "GET", f"/api/v1/roles/search/by-group/{gid}")["assignments"] == []
    bob_id = rest(cluster, admin, "GET", "/api/v1/users/bob/by-username")["user"]["id"]
    bob_roles = rest(cluster, admin, "GET", f"/api/v1/roles/search/by-user/{bob_id}")["roles"]
    assert all(a["roleAssignment"].get("scopeWorkspaceId") != admin.workspace_id
               for r in bob_roles for a in r["userRoleAssignments"])
    run(cluster, "user-group", "delete", "cli-bad", "--yes")


def test_a_master_without_rbac_is_named_as_the_reason(tmp_path):
    with local_cluster(tmp_path) as basic:
        for args in (("rbac", "list-roles"), ("user-group", "list")):
            proc = run(basic, *args, check=False)
            assert proc.returncode == 1, proc.stdout
            assert "security: {authz: {type: rbac}}" in proc.stderr, proc.stderr
