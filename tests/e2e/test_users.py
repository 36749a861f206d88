"""Users and permissions end to end: every `det user` command, owner-or-admin checks on experiment
changes (403 with a message that names the problem), deactivation, password changes, and the
experiment list filters / sort / paging, PATCH and labels over REST and `det`. Experiments stay
paused (or are killed before they start), so nothing needs to run."""
import json
import re

import requests
import yaml

from conftest import REPO, det, login, wait_for

NOOP = REPO / "examples" / "noop"


class As:
    """`det` and REST as one user, with that user's own token cache."""

    def __init__(self, cluster, tmp_path, username, password=""):
        self.cluster = cluster
        self.username = username
        self.password = password
        self.auth_file = tmp_path / f"auth-{username}.json"

    def det(self, *args, check=True):
        env = {"DET_AUTH_FILE": str(self.auth_file), "DET_USER": self.username, "DET_PASS": self.password}
        return det(*args, master=self.cluster.master_url, env=env, check=check, timeout=120)

    def session(self):
        return login(self.cluster, self.username, self.password)


def output(proc):
    return proc.stdout + proc.stderr


def create_paused(user, tmp_path, name, labels=()):
    cfg = yaml.safe_load((NOOP / "noop.yaml").read_text())
    cfg["name"] = name
    if labels:
        cfg["labels"] = list(labels)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = user.det("experiment", "create", str(path), str(NOOP), "--paused")
    return int(re.search(r"Created experiment (\d+)", proc.stdout).group(1))


def test_user_commands_and_passwords(cluster, tmp_path):
    admin = As(cluster, tmp_path, "admin")
    url = cluster.master_url

    admin.det("user", "create", "alice", "--password", "alice-pw")
    admin.det("user", "create", "bob")
    admin.det("user", "create", "root2", "--admin", "--password", "r00t")
    dup = admin.det("user", "create", "alice", check=False)
    assert dup.returncode != 0 and 'user "alice" already exists' in output(dup)

    table = admin.det("user", "list").stdout
    assert re.search(r"Username\s*\|\s*Display Name\s*\|\s*Admin\s*\|\s*Active\s*\|\s*Remote", table)
    assert re.search(r"alice\s*\|\s*\|\s*False\s*\|\s*True\s*\|\s*False", table)
    assert re.search(r"root2\s*\|\s*\|\s*True\s*\|\s*True\s*\|\s*False", table)
    users = {u["username"]: u for u in json.loads(admin.det("user", "list", "--json").stdout)}
    assert users["alice"]["admin"] is False and users["root2"]["admin"] is True
    assert set(users["alice"]) >= {"id", "username", "admin", "active", "agentUserGroup", "displayName",
                                   "modifiedAt", "remote"}

    # login / whoami / logout; logout revokes the token on the master.
    alice = As(cluster, tmp_path, "alice", "alice-pw")
    alice.det("user", "login", "alice")
    assert "You are logged in as user 'alice'" in alice.det("user", "whoami").stdout
    token = json.loads(alice.auth_file.read_text())
    alice.det("user", "logout")
    s = alice.session()
    assert s.get(f"{url}/api/v1/me", timeout=30).json()["user"]["username"] == "alice"
    assert s.post(f"{url}/api/v1/auth/logout", timeout=30).status_code == 200
    assert s.get(f"{url}/api/v1/me", timeout=30).status_code == 401
    assert token  # the CLI cached a token while logged in

    # Only admins manage users.
    denied = alice.det("user", "create", "eve", check=False)
    assert denied.returncode != 0 and "only admins can create users" in output(denied)
    denied = alice.det("user", "deactivate", "bob", check=False)
    assert denied.returncode != 0 and "not an admin" in output(denied)

    # change-password: own, then an admin for someone else; the old password stops working.
    alice.det("user", "change-password", "--password", "alice-pw2")
    assert requests.post(f"{url}/api/v1/auth/login", json={"username": "alice", "password": "alice-pw"},
                         timeout=30).status_code == 401
    alice = As(cluster, tmp_path, "alice", "alice-pw2")
    alice.auth_file.unlink(missing_ok=True)
    assert "'alice'" in alice.det("user", "whoami").stdout
    admin.det("user", "change-password", "bob", "--password", "bob-pw")
    assert login(cluster, "bob", "bob-pw").get(f"{url}/api/v1/me", timeout=30).status_code == 200
    denied = alice.det("user", "change-password", "bob", "--password", "x", check=False)
    assert denied.returncode != 0 and "cannot change other users" in output(denied)

    # Deactivated users cannot log in, and their sessions stop working.
    live = alice.session()
    admin.det("user", "deactivate", "alice")
    resp = requests.post(f"{url}/api/v1/auth/login", json={"username": "alice", "password": "alice-pw2"},
                         timeout=30)
    assert resp.status_code == 403 and "user is not active" in resp.json()["error"]["error"]
    assert live.get(f"{url}/api/v1/me", timeout=30).status_code in (401, 403)
    alice.auth_file.unlink(missing_ok=True)
    assert alice.det("user", "whoami", check=False).returncode != 0
    admin.det("user", "activate", "alice")
    assert "'alice'" in alice.det("user", "whoami").stdout

    # rename and edit
    admin.det("user", "rename", "bob", "robert")
    assert requests.post(f"{url}/api/v1/auth/login", json={"username": "robert", "password": "bob-pw"},
                         timeout=30).status_code == 200
    admin.det("user", "edit", "robert", "--display-name", "Rob")
    assert re.search(r"robert\s*\|\s*Rob\s*\|", admin.det("user", "list").stdout)

    # REST: GetUsers filters, sort, pagination; GetUser / by-username; PatchUser by a non-admin.
    s = admin.session()
    admins = s.get(f"{url}/api/v1/users", params={"admin": "true"}, timeout=30).json()["users"]
    assert {u["username"] for u in admins} == {"admin", "root2"}
    page = s.get(f"{url}/api/v1/users", params={"sortBy": "SORT_BY_USER_NAME", "orderBy": "ORDER_BY_DESC",
                                                 "offset": -2, "limit": 2}, timeout=30).json()
    assert [u["username"] for u in page["users"]] == ["alice", "admin"]
    assert page["pagination"]["total"] == 5 and page["pagination"]["startIndex"] == 3
    names = s.get(f"{url}/api/v1/users", params={"name": "rob"}, timeout=30).json()["users"]
    assert [u["username"] for u in names] == ["robert"]
    rob = s.get(f"{url}/api/v1/users/robert/by-username", timeout=30).json()["user"]
    assert s.get(f"{url}/api/v1/users/{rob['id']}", timeout=30).json()["user"]["displayName"] == "Rob"
    resp = alice.session().patch(f"{url}/api/v1/users/{rob['id']}", json={"admin": True}, timeout=30)
    assert resp.status_code == 403
    resp = alice.session().patch(f"{url}/api/v1/users/{users['alice']['id']}", json={"displayName": "Al"},
                                 timeout=30)
    assert resp.status_code == 200 and resp.json()["user"]["displayName"] == "Al"


def test_experiment_permissions_queries_and_labels(cluster, tmp_path):
    admin = As(cluster, tmp_path, "admin")
    admin.det("user", "create", "carol", "--password", "carol-pw")
    carol = As(cluster, tmp_path, "carol", "carol-pw")
    url = cluster.master_url

    theirs = create_paused(admin, tmp_path, "perm-admin", labels=["x"])
    mine_a = create_paused(carol, tmp_path, "perm-carol-a", labels=["x", "y"])
    mine_b = create_paused(carol, tmp_path, "perm-carol-b")

    # A non-admin cannot kill, pause or delete another user's experiment.
    want = f"user carol is not the owner of experiment {theirs} and is not an admin"
    for args in (["kill", str(theirs)], ["pause", str(theirs)], ["delete", str(theirs), "--yes"],
                 ["archive", str(theirs)], ["set", "name", str(theirs), "mine"],
                 ["label", "add", str(theirs), "z"]):
        proc = carol.det("experiment", *args, check=False)
        assert proc.returncode != 0, args
        assert want in output(proc), (args, output(proc))
    cs = carol.session()
    for method, path in (("POST", "kill"), ("POST", "activate"), ("POST", "cancel"), ("DELETE", ""),
                         ("PATCH", ""), ("PUT", "labels/z")):
        resp = cs.request(method, f"{url}/api/v1/experiments/{theirs}" + (f"/{path}" if path else ""),
                          json={"name": "x"} if method == "PATCH" else None, timeout=30)
        assert resp.status_code == 403, (method, path, resp.text)
        assert resp.json()["error"]["error"] == want
    trial_ids = cs.get(f"{url}/api/v1/experiments/{theirs}", timeout=30).json()["experiment"]["trialIds"]
    if trial_ids:
        assert cs.post(f"{url}/api/v1/trials/{trial_ids[0]}/kill", timeout=30).status_code == 403
    assert cs.get(f"{url}/api/v1/experiments/{theirs}", timeout=30).json()["experiment"]["state"] == "STATE_PAUSED"

    # set / label via det on one's own experiment; PATCH notes and PUT/DELETE labels via REST.
    assert f"Set description of experiment {mine_a} to 'first'" in carol.det(
        "experiment", "set", "description", str(mine_a), "first").stdout
    assert f"Set name of experiment {mine_a} to 'perm-carol-renamed'" in carol.det(
        "experiment", "set", "name", str(mine_a), "perm-carol-renamed").stdout
    assert f"Added label 'z' to experiment {mine_a}" in carol.det("experiment", "label", "add", str(mine_a), "z").stdout
    assert f"Removed label 'x' from experiment {mine_a}" in carol.det(
        "experiment", "label", "remove", str(mine_a), "x").stdout
    exp = cs.patch(f"{url}/api/v1/experiments/{mine_a}", json={"notes": "# notes"}, timeout=30).json()["experiment"]
    assert (exp["name"], exp["description"], exp["notes"], exp["labels"]) == (
        "perm-carol-renamed", "first", "# notes", ["y", "z"])
    assert cs.put(f"{url}/api/v1/experiments/{mine_b}/labels/solo", timeout=30).json()["labels"] == ["solo"]
    assert cs.delete(f"{url}/api/v1/experiments/{mine_b}/labels/solo", timeout=30).json()["labels"] == []
    bad = cs.patch(f"{url}/api/v1/experiments/{mine_a}", json={"name": " "}, timeout=30)
    assert bad.status_code == 400 and "name" in bad.json()["error"]["error"]

    # List filters, sort, pagination (REST).
    def ids(**params):
        body = cs.get(f"{url}/api/v1/experiments", params=params, timeout=30).json()
        return [e["id"] for e in body["experiments"]], body["pagination"]

    assert ids(users="carol")[0] == [mine_a, mine_b]
    assert ids(userIds=cs.get(f"{url}/api/v1/me", timeout=30).json()["user"]["id"])[0] == [mine_a, mine_b]
    assert ids(labels="y")[0] == [mine_a]
    assert ids(labels=["x"])[0] == [theirs]
    assert ids(name="perm-carol")[0] == [mine_a, mine_b]
    assert ids(states="STATE_PAUSED", name="perm")[0] == [theirs, mine_a, mine_b]
    assert ids(states="STATE_COMPLETED", name="perm")[0] == []
    assert ids(name="perm", sortBy="SORT_BY_NAME", orderBy="ORDER_BY_DESC")[0] == [mine_a, mine_b, theirs]
    assert ids(name="perm", sortBy="SORT_BY_USER")[0] == [theirs, mine_a, mine_b]
    got, pagination = ids(name="perm", offset=-1, limit=1)
    assert got == [mine_b] and pagination["total"] == 3 and pagination["startIndex"] == 2
    bad = cs.get(f"{url}/api/v1/experiments", params={"sortBy": "SORT_BY_COLOR"}, timeout=30)
    assert bad.status_code == 400 and "sortBy" in bad.json()["error"]["error"]

    # det experiment list: own unarchived by default; --all; --json; --csv; --limit/--offset.
    listed = carol.det("experiment", "list").stdout
    assert "perm-carol-renamed" in listed and "perm-admin" not in listed
    assert "perm-admin" in carol.det("experiment", "list", "--all").stdout
    as_json = json.loads(carol.det("experiment", "list", "--json").stdout)
    assert [e["id"] for e in as_json] == [mine_a, mine_b]
    csv_lines = carol.det("experiment", "list", "--csv").stdout.strip().splitlines()
    assert csv_lines[0].startswith("ID,") and len(csv_lines) == 3
    assert [e["id"] for e in json.loads(carol.det("experiment", "list", "--json", "--limit", "1",
                                                  "--offset", "1").stdout)] == [mine_b]

    # An admin may change anyone's experiment; archive and delete need a terminal state.
    early = carol.det("experiment", "archive", str(mine_b), check=False)
    assert early.returncode != 0 and "non-terminal" in output(early)
    admin.det("experiment", "kill", str(mine_b))
    cluster.wait_for_experiment(mine_b, timeout=60)
    assert f"Archived experiment {mine_b}" in carol.det("experiment", "archive", str(mine_b)).stdout
    assert ids(archived="true", name="perm")[0] == [mine_b]
    assert mine_b not in [e["id"] for e in json.loads(carol.det("experiment", "list", "--json").stdout)]
    carol.det("experiment", "unarchive", str(mine_b))
    carol.det("experiment", "delete", str(mine_b), "--yes")
    # Deleting runs in the background (DELETING, then gone), as upstream's does.
    wait_for(lambda: cs.get(f"{url}/api/v1/experiments/{mine_b}", timeout=30).status_code == 404,
             "the deleted experiment to go", timeout=60)
