"""Workspaces and projects end to end: the built-in "Uncategorized" workspace and project hold every
experiment; `det workspace` and `det project` list and describe them, and the REST API serves
upstream's paths and JSON (the stock CLI's `det template list` asks for /api/v1/workspaces)."""
import json

from conftest import REPO

NOOP = REPO / "examples" / "noop"


def test_the_uncategorized_workspace_and_project_hold_every_experiment(cluster):
    exp_id = cluster.create_experiment(NOOP / "noop.yaml", NOOP)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"

    workspaces = json.loads(cluster.det("workspace", "list", "--json").stdout)
    assert [(w["id"], w["name"], w["immutable"]) for w in workspaces] == [(1, "Uncategorized", True)]
    assert workspaces[0]["numExperiments"] == 1 and workspaces[0]["numProjects"] == 1
    table = cluster.det("w", "ls").stdout
    assert "Uncategorized" in table and "# Projects" in table

    projects = json.loads(cluster.det("project", "list", "Uncategorized", "--json").stdout)
    assert [(p["id"], p["name"], p["workspaceId"], p["key"]) for p in projects] == [(1, "Uncategorized", 1, "UNCAT")]
    assert projects[0]["numExperiments"] == 1 and projects[0]["numActiveExperiments"] == 0
    assert "lastExperimentStartedAt" in projects[0]
    described = json.loads(cluster.det("workspace", "describe", "Uncategorized", "--json").stdout)
    assert described["workspace"]["id"] == 1 and described["projects"][0]["id"] == 1
    assert json.loads(cluster.det("p", "describe", "Uncategorized", "Uncategorized", "--json").stdout)["id"] == 1

    missing = cluster.det("workspace", "list-projects", "nope", check=False)
    assert missing.returncode != 0
    assert 'no workspace named "nope" (there are: "Uncategorized")' in missing.stdout + missing.stderr


def test_the_rest_api_serves_workspaces_and_projects_as_upstream(cluster):
    listed = cluster.get("/api/v1/workspaces", params={"name": "uncategorized", "sortBy": "SORT_BY_NAME"})
    assert [w["name"] for w in listed["workspaces"]] == ["Uncategorized"]
    assert listed["pagination"]["total"] == 1
    assert cluster.get("/api/v1/workspaces", params={"archived": "true"})["workspaces"] == []
    assert cluster.get("/api/v1/workspaces", params={"pinned": "true"})["workspaces"] == []
    assert cluster.get("/api/v1/workspaces/1")["workspace"]["name"] == "Uncategorized"
    projects = cluster.get("/api/v1/workspaces/1/projects", params={"sortBy": "SORT_BY_ID", "orderBy": "ORDER_BY_DESC"})
    assert [p["id"] for p in projects["projects"]] == [1]
    assert cluster.get("/api/v1/projects/1")["project"]["workspaceName"] == "Uncategorized"

    for path, what in (("/api/v1/workspaces/99", "workspace 99"), ("/api/v1/workspaces/99/projects", "workspace 99"),
                       ("/api/v1/projects/99", "project 99")):
        resp = cluster.session.get(f"{cluster.master_url}{path}", timeout=30)
        assert resp.status_code == 404, resp.text
        assert resp.json()["error"]["error"] == f"{what} not found"
    bad = cluster.session.get(f"{cluster.master_url}/api/v1/workspaces", params={"sortBy": "SORT_BY_COLOR"}, timeout=30)
    assert bad.status_code == 400 and "sortBy must be" in bad.json()["error"]["error"]
