"""Configuration templates end to end: `det template` against a real cluster, experiments created with
`--template` (merged config stored, user wins, template fills gaps, §3.2 list rules), and the REST API."""
import json
import re

import yaml

from conftest import REPO

NOOP = REPO / "examples" / "noop"

TEMPLATE = {
    "name": "from-template",
    "description": "described by the template",
    "max_restarts": 4,
    "resources": {"slots_per_trial": 2, "weight": 3},
    "hyperparameters": {"lr": 0.5, "batch": 16},
    "bind_mounts": [
        {"host_path": "/tmp/tpl-data", "container_path": "/data"},
        {"host_path": "/tmp/tpl-extra", "container_path": "/extra", "read_only": True},
    ],
    "environment": {"environment_variables": ["FROM=template", "SHARED=template"]},
}


def user_config():
    cfg = yaml.safe_load((NOOP / "noop.yaml").read_text())
    cfg["resources"] = {"slots_per_trial": 1}
    cfg["hyperparameters"] = {"lr": 0.1}
    cfg["bind_mounts"] = [{"host_path": "/tmp/user-data", "container_path": "/data"}]
    cfg["environment"] = {"environment_variables": ["SHARED=user"]}
    return cfg


def created_id(proc):
    return int(re.search(r"Created experiment (\d+)", proc.stdout).group(1))


def test_templates(cluster, tmp_path):
    tpl_file = tmp_path / "tpl.yaml"
    tpl_file.write_text(yaml.safe_dump(TEMPLATE))
    assert "Set template e2e-tpl" in cluster.det("template", "set", "e2e-tpl", str(tpl_file)).stdout
    typo = tmp_path / "typo.yaml"
    typo.write_text("resources: {slots_per_trail: 2}\n")
    refused = cluster.det("template", "set", "e2e-typo", str(typo), check=False)
    assert refused.returncode != 0 and 'resources: unknown key "slots_per_trail"' in refused.stderr, refused.stderr
    assert cluster.det("template", "describe", "e2e-typo", check=False).returncode != 0

    # describe prints the stored config as YAML; list shows it (with its config under -d).
    assert yaml.safe_load(cluster.det("template", "describe", "e2e-tpl").stdout) == TEMPLATE
    listed = cluster.det("template", "list").stdout
    assert re.search(r"Name\s*\|\s*Workspace", listed) and "e2e-tpl" in listed
    assert "described by the template" in cluster.det("template", "list", "-d").stdout
    as_json = json.loads(cluster.det("template", "list", "--json").stdout)
    assert {"name": "e2e-tpl", "config": TEMPLATE, "workspaceId": 1} in as_json

    user_file = tmp_path / "exp.yaml"
    user_text = yaml.safe_dump(user_config())
    user_file.write_text(user_text)
    exp_id = created_id(cluster.det("experiment", "create", str(user_file), str(NOOP), "--template", "e2e-tpl"))

    described = json.loads(cluster.det("experiment", "describe", str(exp_id), "--json").stdout)
    config = described["config"]
    assert config["name"] == "noop"                                   # user wins
    assert config["max_restarts"] == 0                                # user wins, even with 0
    assert config["description"] == "described by the template"      # template fills gaps
    assert config["resources"]["slots_per_trial"] == 1
    assert config["resources"]["weight"] == 3
    # The stored config is normalized: bare values become const hyperparameters, lists get defaults.
    assert config["hyperparameters"] == {"lr": {"type": "const", "val": 0.1},
                                         "batch": {"type": "const", "val": 16}}
    mounts = [(m["host_path"], m["container_path"], m["read_only"]) for m in config["bind_mounts"]]
    assert mounts == [("/tmp/user-data", "/data", False),            # merged by container_path
                      ("/tmp/tpl-extra", "/extra", True)]
    variables = config["environment"]["environment_variables"]
    assert variables["cpu"] == [                                      # template first, then user
        "FROM=template", "SHARED=template", "SHARED=user"]
    assert described["experiment"]["originalConfig"] == user_text     # the user's own text is kept
    assert described["experiment"]["description"] == "described by the template"

    assert cluster.wait_for_experiment(exp_id, timeout=45) == "STATE_COMPLETED"
    trial = cluster.get(f"/api/v1/experiments/{exp_id}/trials")["trials"][0]
    assert trial["hparams"] == {"lr": 0.1, "batch": 16}

    # Editing the template later does not change the experiment that used it.
    TEMPLATE_V2 = dict(TEMPLATE, description="second version", hyperparameters={"batch": 99})
    tpl_file.write_text(yaml.safe_dump(TEMPLATE_V2))
    cluster.det("template", "set", "e2e-tpl", str(tpl_file))
    assert yaml.safe_load(cluster.det("template", "describe", "e2e-tpl").stdout)["description"] == "second version"
    again = cluster.get(f"/api/v1/experiments/{exp_id}")
    assert again["config"] == config

    # Errors: an unknown template, and a config that names a template itself.
    missing = cluster.det("experiment", "create", str(user_file), str(NOOP), "--template", "no-such", check=False)
    assert missing.returncode != 0
    assert 'template "no-such" not found' in missing.stderr
    named = tmp_path / "named.yaml"
    named.write_text(user_text + "template: e2e-tpl\n")
    refused = cluster.det("experiment", "create", str(named), str(NOOP), check=False)
    assert refused.returncode != 0 and "cannot name a template" in refused.stderr

    # Removal.
    assert "Removed template e2e-tpl" in cluster.det("template", "remove", "e2e-tpl").stdout
    gone = cluster.det("template", "describe", "e2e-tpl", check=False)
    assert gone.returncode != 0 and "not found" in gone.stderr
    assert cluster.det("template", "rm", "e2e-tpl", check=False).returncode != 0


def test_template_rest_api(cluster):
    s, url = cluster.session, cluster.master_url
    body = {"name": "rest-a", "config": {"description": "a"}, "workspaceId": 0}
    created = s.post(f"{url}/api/v1/templates/rest-a", json=body)
    assert created.status_code == 200, created.text
    assert created.json()["template"] == {"name": "rest-a", "config": {"description": "a"}, "workspaceId": 1}
    dup = s.post(f"{url}/api/v1/templates/rest-a", json=body)
    assert dup.status_code == 409 and dup.json()["error"]["reason"] == "AlreadyExists"
    put = s.put(f"{url}/api/v1/templates/rest-b", json={"config": {"description": "b"}})
    assert put.status_code == 200, put.text
    # Checked as a partial experiment config: unknown keys and bad values are refused, missing fields are not.
    unknown = s.put(f"{url}/api/v1/templates/rest-b", json={"config": {"x": 1, "max_restarts": "two"}})
    assert unknown.status_code == 400, unknown.text
    assert "x: unknown key" in unknown.text and "max_restarts: must be an integer" in unknown.text, unknown.text
    assert s.get(f"{url}/api/v1/templates/rest-b").json()["template"]["config"] == {"description": "b"}
    not_object = s.post(f"{url}/api/v1/templates/rest-c", json={"config": [1, 2]})
    assert not_object.status_code == 400

    patched = s.patch(f"{url}/api/v1/templates/rest-a", json={"max_restarts": 1})
    assert patched.status_code == 200 and patched.json()["template"]["config"] == {"max_restarts": 1}

    page = cluster.get("/api/v1/templates", params={"name": "rest-", "orderBy": "ORDER_BY_DESC", "limit": 1})
    assert [t["name"] for t in page["templates"]] == ["rest-b"]
    assert page["pagination"]["total"] == 2 and page["pagination"]["endIndex"] == 1
    page2 = cluster.get("/api/v1/templates", params={"name": "rest-", "offset": 1, "limit": 1})
    assert [t["name"] for t in page2["templates"]] == ["rest-b"]

    renamed = s.patch(f"{url}/api/v1/template/rename", json={"oldName": "rest-a", "newName": "rest-z"})
    assert renamed.status_code == 200 and renamed.json()["template"]["name"] == "rest-z"
    gone = s.get(f"{url}/api/v1/templates/rest-a")
    assert gone.status_code == 404
    assert gone.json()["error"]["error"] == 'template "rest-a" not found'

    for name in ("rest-z", "rest-b"):
        assert s.delete(f"{url}/api/v1/templates/{name}").status_code == 200
    assert s.delete(f"{url}/api/v1/templates/rest-b").status_code == 404
