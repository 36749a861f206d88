"""Workspaces and projects end to end: the built-in "Uncategorized" workspace and project hold every
experiment; `det workspace` and `det project` list and describe them, and the REST API serves
upstream's paths and JSON (the stock CLI's `det template list` asks for /api/v1/workspaces)."""
import json
import os
import pathlib
import tempfile

from conftest import REPO, local_cluster, login, wait_for

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


CHECKPOINTING = """import determined as det

with det.core.init() as core:
    with core.checkpoint.store_path({"steps_completed": 1}) as (path, storage_id):
        (path / "weights.txt").write_text("w")
    core.train.report_training_metrics(steps_completed=1, metrics={"loss": 0.0})
"""


def test_an_experiment_runs_in_a_project_moves_and_goes_when_its_project_is_deleted(cluster, tmp_path):
    storage = tmp_path / "workspace-checkpoints"
    storage.mkdir()
    cluster.det("workspace", "create", "nlp", "--checkpoint-storage-config",
                json.dumps({"type": "shared_fs", "host_path": str(storage)}))
    translation = json.loads(cluster.det("project", "create", "nlp", "translation", "--json").stdout)
    summaries = json.loads(cluster.det("project", "create", "nlp", "summaries", "--json").stdout)

    # Placed by the config's workspace/project names, with the workspace's checkpoint storage.
    (tmp_path / "train.py").write_text(CHECKPOINTING)
    (tmp_path / "named.yaml").write_text("name: placed\nentrypoint: python3 train.py\nsearcher: {name: single, "
                                         "metric: loss}\nmax_restarts: 0\nworkspace: nlp\nproject: translation\n")
    exp_id = cluster.create_experiment(tmp_path / "named.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    e = cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]
    assert (e["projectId"], e["projectName"], e["workspaceName"]) == (translation["id"], "translation", "nlp")
    checkpoints = list(storage.glob("*/weights.txt"))
    assert len(checkpoints) == 1, "the workspace's checkpoint storage was used"
    exp_checkpoint = checkpoints[0]
    listed = json.loads(cluster.det("project", "list-experiments", "nlp", "translation", "--json").stdout)
    assert [x["id"] for x in listed] == [exp_id]

    # Placed by --project_id; a project that is not there, or names and an id that disagree, are refused.
    (tmp_path / "plain.yaml").write_text("name: plain\nentrypoint: python3 train.py\nsearcher: {name: single, "
                                         "metric: loss}\nmax_restarts: 0\n")
    by_id = cluster.create_experiment(tmp_path / "plain.yaml", tmp_path, "--project_id", str(summaries["id"]))
    assert cluster.get(f"/api/v1/experiments/{by_id}")["experiment"]["projectId"] == summaries["id"]
    missing = cluster.det("experiment", "create", str(tmp_path / "plain.yaml"), str(tmp_path), "--project_id", "999",
                          check=False)
    assert missing.returncode != 0 and "project 999 not found" in missing.stdout + missing.stderr
    both = cluster.det("experiment", "create", str(tmp_path / "named.yaml"), str(tmp_path), "--project_id",
                       str(summaries["id"]), check=False)
    assert both.returncode != 0 and "give one place" in both.stdout + both.stderr
    assert cluster.wait_for_experiment(by_id) == "STATE_COMPLETED"

    # Moves: one, then a bulk move that stays in its project.
    out = cluster.det("experiment", "move", str(by_id), "Uncategorized", "Uncategorized").stdout
    assert f'Moved experiment {by_id} to project "Uncategorized"' in out
    assert cluster.get(f"/api/v1/experiments/{by_id}")["experiment"]["projectId"] == 1
    bulk = cluster.session.post(f"{cluster.master_url}/api/v1/projects/1/experiments/move", timeout=30,
                                json={"experimentIds": [by_id, exp_id], "destinationProjectId": summaries["id"]})
    assert bulk.status_code == 200, bulk.text
    results = {r["id"]: r["error"] for r in bulk.json()["results"]}
    assert results[by_id] == "" and f"is in project {translation['id']}, not in project 1" in results[exp_id]
    assert cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["projectId"] == translation["id"]
    by_filter = cluster.session.post(
        f"{cluster.master_url}/api/v1/projects/{summaries['id']}/experiments/move", timeout=30,
        json={"filters": {"name": "plain"}, "destinationProjectId": 1})
    assert [r["id"] for r in by_filter.json()["results"]] == [by_id]
    assert cluster.get(f"/api/v1/experiments/{by_id}")["experiment"]["projectId"] == 1

    # Archived projects take nothing in; the built-in ones cannot go.
    cluster.det("project", "archive", "nlp", "summaries")
    assert json.loads(cluster.det("p", "describe", "nlp", "summaries", "--json").stdout)["archived"]
    refused = cluster.det("experiment", "move", str(by_id), "nlp", "summaries", check=False)
    assert refused.returncode != 0 and "nothing moves into it" in refused.stdout + refused.stderr
    refused = cluster.det("experiment", "create", str(tmp_path / "plain.yaml"), str(tmp_path), "--project_id",
                          str(summaries["id"]), check=False)
    assert refused.returncode != 0 and "is archived" in refused.stdout + refused.stderr
    cluster.det("project", "unarchive", "nlp", "summaries")
    builtin = cluster.det("workspace", "delete", "Uncategorized", "--yes", check=False)  # the admin's, and built in
    assert builtin.returncode != 0 and "not the owner of workspace 1" in builtin.stdout + builtin.stderr

    # Edits.
    edited = json.loads(cluster.det("project", "edit", "nlp", "summaries", "--new_name", "abstracts", "--key", "abs",
                                    "--json").stdout)
    assert (edited["name"], edited["key"]) == ("abstracts", "ABS")
    assert cluster.get("/api/v1/projects/key/abs")["project"]["id"] == summaries["id"]
    renamed = json.loads(cluster.det("workspace", "edit", "nlp", "--name", "language", "--json").stdout)
    assert renamed["name"] == "language"
    bad_pool = cluster.det("workspace", "edit", "language", "--default-compute-pool", "nope", check=False)
    assert bad_pool.returncode != 0 and 'no resource pool is named "nope"' in bad_pool.stdout + bad_pool.stderr
    assert json.loads(cluster.det("workspace", "list-pools", "language", "--json").stdout) == ["default"]

    # Deleting the project deletes its experiment and the experiment's checkpoints.
    out = cluster.det("project", "delete", "language", "translation", "--yes").stdout
    assert "Started deleting project" in out, out
    wait_for(lambda: cluster.session.get(f"{cluster.master_url}/api/v1/experiments/{exp_id}",
                                         timeout=30).status_code == 404, "the project's experiment to be deleted")
    wait_for(lambda: not exp_checkpoint.exists(), "its checkpoint to be deleted")
    assert len(list(storage.glob("*/weights.txt"))) == 1, "the moved experiment's checkpoint stays"
    assert cluster.get(f"/api/v1/experiments/{by_id}")["experiment"]["state"] == "STATE_COMPLETED", "elsewhere: kept"
    command = cluster.det("cmd", "run", "-w", "language", "-d", "sleep", "300").stdout.strip().splitlines()[-1]
    assert cluster.get(f"/api/v1/commands/{command}")["command"]["workspaceId"] == renamed["id"]
    (tmp_path / "tpl.yaml").write_text("description: from a template\n")
    cluster.det("template", "create", "language-tpl", str(tmp_path / "tpl.yaml"), "-w", "language")
    rows = [[cell.strip() for cell in line.split("|")] for line in cluster.det("template", "list").stdout.splitlines()]
    assert ["language-tpl", "language"] in rows, rows
    out = cluster.det("workspace", "delete", "language", "--yes").stdout
    assert 'Successfully deleted workspace "language"' in out, out
    assert [w["name"] for w in json.loads(cluster.det("w", "list", "--json").stdout)] == ["Uncategorized", "vision"]
    wait_for(lambda: cluster.get(f"/api/v1/commands/{command}")["command"]["state"] in
             ("STATE_TERMINATED", "STATE_CANCELED", "STATE_COMPLETED", "STATE_ERROR"),
             "the workspace's command to be killed")
    gone = cluster.det("template", "describe", "language-tpl", check=False)
    assert gone.returncode != 0, "the workspace's templates went with it"


def test_a_pool_bound_to_a_workspace_serves_only_it(tmp_path_factory, tmp_path):
    config = "resource_pools: [{pool_name: default}, {pool_name: gpu}]\n"
    with local_cluster(tmp_path_factory.mktemp("bindings"), master_config=config) as c:
        admin = login(c, "admin")
        for name in ("vision", "nlp"):
            c.det("workspace", "create", name)
            c.det("project", "create", name, "p")
        refused = c.det("resource-pool", "bindings", "add", "gpu", "vision", check=False)
        assert refused.returncode != 0 and "only admins can bind resource pools" in refused.stdout + refused.stderr
        resp = admin.post(f"{c.master_url}/api/v1/resource-pools/gpu/workspace-bindings", timeout=30,
                                  json={"workspaceNames": ["vision"]})
        assert resp.status_code == 200, resp.text
        default = admin.post(f"{c.master_url}/api/v1/resource-pools/default/workspace-bindings", timeout=30,
                                     json={"workspaceNames": ["vision"]})
        assert default.status_code == 400 and "is a default pool" in default.text, default.text

        listed = json.loads(c.det("resource-pool", "bindings", "list", "--json").stdout)
        assert {b["resourcePool"]: b["workspaceNames"] for b in listed} == {"default": [], "gpu": ["vision"]}
        assert json.loads(c.det("workspace", "list-pools", "vision", "--json").stdout) == ["default", "gpu"]
        assert json.loads(c.det("workspace", "list-pools", "nlp", "--json").stdout) == ["default"]
        unbound = c.get("/api/v1/resource-pools", params={"unbound": "true"})["resourcePools"]
        assert [p["name"] for p in unbound] == ["default"]

        (tmp_path / "train.py").write_text(CHECKPOINTING)
        (tmp_path / "gpu.yaml").write_text("name: gpu\nentrypoint: python3 train.py\nsearcher: {name: single, "
                                           "metric: loss}\nmax_restarts: 0\nresources: {resource_pool: gpu}\n")
        projects = {w: json.loads(c.det("project", "describe", w, "p", "--json").stdout)["id"] for w in ("vision", "nlp")}
        outside = c.det("experiment", "create", str(tmp_path / "gpu.yaml"), str(tmp_path), "--project_id",
                        str(projects["nlp"]), check=False)
        assert outside.returncode != 0, outside
        assert 'pool "gpu" is bound to other workspaces; workspace nlp may use: default' in outside.stdout + \
            outside.stderr
        inside = c.det("experiment", "create", str(tmp_path / "gpu.yaml"), str(tmp_path), "--project_id",
                       str(projects["vision"]), "--paused", check=False)
        # Not refused for the binding (the pool has no agent, which a launch may be refused for).
        assert "bound to other workspaces" not in inside.stdout + inside.stderr, inside

        resp = admin.delete(f"{c.master_url}/api/v1/resource-pools/gpu/workspace-bindings", timeout=30,
                                    json={"workspaceNames": ["vision"]})
        assert resp.status_code == 200, resp.text
        assert json.loads(c.det("workspace", "list-pools", "nlp", "--json").stdout) == ["default", "gpu"]


RUN_AS_SCRIPT = """
import os
import determined as det

with det.core.init() as ctx:
    print(f"running as {os.getuid()}:{os.getgid()}", flush=True)
    ctx.train.report_validation_metrics(steps_completed=1, metrics={"loss": 1.0})
"""


def reachable_by_everyone(cluster):
    """The agent's task directories must be reachable by a task's user, as on a real agent's work dir;
    pytest's temporary directories are private (0700), so they are opened for search."""
    data = pathlib.Path(cluster.data_dir)
    tmp = pathlib.Path(tempfile.gettempdir())
    for d in [*(p for p in data.parents if tmp in p.parents), data, *data.glob("agent-*"), *data.glob("agent-*/tasks")]:
        os.chmod(d, os.stat(d).st_mode | 0o011)


def test_tasks_run_as_their_workspace_s_agent_user_group(cluster, tmp_path):
    reachable_by_everyone(cluster)
    bad = cluster.det("workspace", "create", "half-group", "--agent-uid", "65534", check=False)
    assert bad.returncode != 0 and "go together" in bad.stdout + bad.stderr
    refused = cluster.session.post(f"{cluster.master_url}/api/v1/workspaces", timeout=30, json={
        "name": "bad-group", "agentUserGroup": {"agentUid": -1, "agentGid": 1, "agentUser": "u", "agentGroup": "g"}})
    assert refused.status_code == 400 and "agentUserGroup.agentUid must be from 0" in refused.text

    cluster.det("workspace", "create", "sandboxed", "--agent-uid", "65534", "--agent-gid", "65534",
                "--agent-user", "nobody", "--agent-group", "nogroup")
    ws = cluster.get("/api/v1/workspaces", params={"name": "sandboxed"})["workspaces"][0]
    assert ws["agentUserGroup"] == {"agentUid": 65534, "agentGid": 65534, "agentUser": "nobody",
                                    "agentGroup": "nogroup"}
    out = cluster.det("cmd", "run", "-w", "sandboxed", "sh", "-c", "echo id=$(id -u):$(id -g); touch written").stdout
    assert "id=65534:65534" in out, out
    assert "id=0:0" in cluster.det("cmd", "run", "sh", "-c", "echo id=$(id -u):$(id -g)").stdout, "elsewhere: the agent's"

    # A trial of an experiment in a project of the workspace too.
    cluster.det("project", "create", "sandboxed", "jail")
    (tmp_path / "train.py").write_text(RUN_AS_SCRIPT)
    (tmp_path / "exp.yaml").write_text("name: as-nobody\nentrypoint: python3 train.py\nworkspace: sandboxed\n"
                                       "project: jail\nsearcher: {name: single, metric: loss}\nmax_restarts: 0\n")
    exp_id = cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)
    state = cluster.wait_for_experiment(exp_id)
    logs = cluster.trial_logs(cluster.trials(exp_id)[0]["id"])
    assert state == "STATE_COMPLETED" and "running as 65534:65534" in logs, logs[-3000:]


def test_tasks_run_as_their_owner_s_linked_user_else_the_default_task_user(tmp_path_factory):
    config = "security:\n  default_task: {uid: 65534, gid: 65534, user: nobody, group: nogroup}\n"
    with local_cluster(tmp_path_factory.mktemp("run_as"), master_config=config) as c:
        reachable_by_everyone(c)
        whoami = ["cmd", "run", "sh", "-c", "echo id=$(id -u):$(id -g)"]
        out = c.det(*whoami).stdout
        assert "id=65534:65534" in out, f"no group anywhere: security.default_task\n{out}"

        c.det("-u", "admin", "user", "create", "ana")
        refused = c.det("-u", "determined", "user", "link-with-agent-user", "ana", "--agent-uid", "1234", "--agent-gid", "1235",
                        "--agent-user", "ana", "--agent-group", "ana", check=False)
        assert refused.returncode != 0 and "is not an admin" in refused.stderr, refused
        c.det("-u", "admin", "user", "link-with-agent-user", "ana", "--agent-uid", "1234", "--agent-gid", "1235",
              "--agent-user", "ana", "--agent-group", "ana")
        ana = c.get("/api/v1/users/ana/by-username")["user"]
        assert ana["agentUserGroup"] == {"agentUid": 1234, "agentGid": 1235, "agentUser": "ana", "agentGroup": "ana"}
        out = c.det("-u", "ana", *whoami).stdout
        assert "id=1234:1235" in out, f"the owner's linked user\n{out}"
        assert "id=65534:65534" in c.det("-u", "determined", *whoami).stdout, "another user's tasks: still the default"

        c.det("-u", "admin", "workspace", "create", "shared", "--agent-uid", "4321", "--agent-gid", "4322",
              "--agent-user", "svc", "--agent-group", "svc")
        out = c.det("-u", "ana", "cmd", "run", "-w", "shared", "sh", "-c", "echo id=$(id -u):$(id -g)").stdout
        assert "id=4321:4322" in out, f"the workspace's group comes first\n{out}"
