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


def test_workspaces_and_projects_are_created_with_upstreams_rules(cluster):
    created = json.loads(cluster.det("workspace", "create", "vision", "--default-compute-pool", "default",
                                     "--checkpoint-storage-config", '{"type": "shared_fs", "host_path": "/tmp"}',
                                     "--json").stdout)
    assert created["name"] == "vision" and created["id"] > 1 and not created["immutable"]
    assert created["checkpointStorageConfig"] == {"type": "shared_fs", "host_path": "/tmp"}
    assert created["defaultComputePool"] == "default" and created["username"] == "determined"
    again = cluster.det("workspace", "create", "vision", check=False)
    assert again.returncode != 0 and 'workspace "vision" already exists' in again.stdout + again.stderr

    project = json.loads(cluster.det("project", "create", "vision", "detection", "--description", "boxes",
                                     "--json").stdout)
    assert project["workspaceId"] == created["id"] and project["description"] == "boxes"
    assert project["key"].startswith("DET") and len(project["key"]) == 5
    keyed = json.loads(cluster.det("p", "create", "vision", "segmentation", "--key", "seg1", "--json").stdout)
    assert keyed["key"] == "SEG1"
    taken = cluster.det("p", "create", "Uncategorized", "masks", "--key", "SEG1", check=False)
    assert taken.returncode != 0 and "key SEG1 is another project's" in taken.stdout + taken.stderr
    same = cluster.det("p", "create", "vision", "Detection", check=False)
    assert same.returncode != 0 and 'already has a project named "Detection"' in same.stdout + same.stderr
    bad_key = cluster.det("p", "create", "vision", "x", "--key", "toolong", check=False)
    assert bad_key.returncode != 0 and "key: 1 to 5 letters or digits" in bad_key.stdout + bad_key.stderr

    listed = json.loads(cluster.det("project", "list", "vision", "--json").stdout)
    assert sorted(p["name"] for p in listed) == ["detection", "segmentation"]
    assert [w["name"] for w in json.loads(cluster.det("w", "list", "--json").stdout)] == ["Uncategorized", "vision"]
    blank = cluster.session.post(f"{cluster.master_url}/api/v1/workspaces", json={"name": " "}, timeout=30)
    assert blank.status_code == 400 and "name: a name is required" in blank.json()["error"]["error"]
