"""The web UI's groups and roles page, a workspace's Members tab and My tokens, in Chromium (Debian's,
driven by npm playwright-core: webui/e2e/rbac.e2e.mjs) against a real master with
`security.authz.type: rbac`. In the browser an admin creates a group, adds a member, gives the group a
role in a workspace and sees it on the Members tab, then creates an access token (which signs in), edits its
description and revokes it (which then does not); a user without roles is offered none of it. Afterwards the test reads
through the REST API what the browser did. Screenshots (webui-rbac-*.png) go to $WEBUI_SCREENSHOT_DIR
(default: the test's temp dir)."""
import os
import pathlib

import pytest

from conftest import local_cluster, login, run_browser_script

WORKSPACE_ADMIN, EDITOR = 2, 5  # docs/rbac.md's role ids


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    config = "security:\n  authz:\n    type: rbac\n"
    with local_cluster(tmp_path_factory.mktemp("webui-rbac"), agents=0, master_config=config) as c:
        yield c


def test_groups_roles_members_and_tokens_in_a_browser(cluster, tmp_path):
    admin = login(cluster, "admin")
    url = cluster.master_url

    def ok(method, path, **kw):
        r = admin.request(method, url + path, timeout=30, **kw)
        assert r.ok, f"{method} {path}: {r.status_code} {r.text}"
        return r.json()

    assert ok("GET", "/api/v1/master")["rbacEnabled"] is True
    for name in ("alice", "bob"):
        ok("POST", "/api/v1/users", json={"user": {"username": name, "active": True}, "password": ""})
    workspace = ok("POST", "/api/v1/workspaces", json={"name": "rbac-webui-ws"})["workspace"]

    shots = pathlib.Path(os.environ.get("WEBUI_SCREENSHOT_DIR", tmp_path / "screenshots"))
    result = run_browser_script("rbac.e2e.mjs", shots, DET_MASTER=url, ADMIN_USER="admin", PLAIN_USER="bob",
                                MEMBER="alice", GROUP_NAME="ml-team", ROLE_NAME="Editor",
                                WORKSPACE_ID=str(workspace["id"]), WORKSPACE_NAME=workspace["name"])

    # What the browser did, seen through the API.
    groups = ok("POST", "/api/v1/groups/search", json={"name": "ml-team"})["groups"]
    assert [g["group"]["name"] for g in groups] == ["ml-team"], groups
    group_id = groups[0]["group"]["groupId"]
    members = [u["username"] for u in ok("GET", f"/api/v1/groups/{group_id}")["group"]["users"]]
    assert members == ["alice"], members
    # The group's Editor, beside the WorkspaceAdmin that admin got by creating the workspace.
    held = ok("GET", f"/api/v1/roles/workspace/{workspace['id']}")["assignments"]
    by_group = {a["role"]["roleId"]: [g["groupId"] for g in a["groupRoleAssignments"]] for a in held}
    assert by_group == {WORKSPACE_ADMIN: [], EDITOR: [group_id]}, held
    tokens = ok("GET", "/api/v1/tokens", params={"username": "admin", "showInactive": "true"})["tokenInfo"]
    mine = [t for t in tokens if t["id"] == result["tokenId"]]
    assert len(mine) == 1 and mine[0]["revoked"] and mine[0]["description"] == "rbac e2e token, edited", tokens
    # alice, through the group, may now see the workspace; bob still may not.
    assert login(cluster, "alice").get(f"{url}/api/v1/workspaces/{workspace['id']}", timeout=30).status_code == 200
    assert login(cluster, "bob").get(f"{url}/api/v1/workspaces/{workspace['id']}", timeout=30).status_code == 404
