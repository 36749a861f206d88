"""Access tokens end to end (basic authz): `det token create|list|describe|edit|revoke|login` with our
`det` and with Determined 0.38.1's own, the REST replies decoded with upstream's bindings, a revoked
token refused at once, an expired one refused, a non-admin refused another user's tokens (403 naming
what is missing), `det token login` then `det experiment list`, DET_USER_TOKEN, and tokens kept across a
master restart. The master runs with security.token {max_lifespan_days: 30, default_lifespan_days: 7}
and no agents: nothing here needs to run a task."""
import datetime
import json
import os
import re
import subprocess
import time

import pytest
import requests

import upstream
from conftest import BIN, local_cluster, login, restart_master

TOKEN_CONFIG = "security:\n  token: {max_lifespan_days: 30, default_lifespan_days: 7}\n"
CREATED = re.compile(r"TokenID: (\d+)\nAccess-Token: (\S+)")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("tokens"), agents=0, master_config=TOKEN_CONFIG) as c:
        admin = login(c, "admin")
        for name, password in (("bob", "bob-pw"), ("carol", "carol-pw")):
            resp = admin.post(f"{c.master_url}/api/v1/users", timeout=30,
                              json={"user": {"username": name, "active": True}, "password": password})
            assert resp.status_code == 200, resp.text
        yield c


def run_det(cluster, auth_file, *args, user=None, password=None, extra_env=None, check=True):
    """Our `det` with nothing from the test's environment that signs in: only `user`/`password` (DET_USER,
    DET_PASS), `extra_env` and the token cache `auth_file`."""
    env = {k: v for k, v in os.environ.items() if k not in ("DET_USER", "DET_PASS", "DET_USER_TOKEN")}
    env.update(DET_MASTER=cluster.master_url, DET_AUTH_FILE=str(auth_file), **(extra_env or {}))
    if user is not None:
        env["DET_USER"] = user
    if password is not None:
        env["DET_PASS"] = password
    proc = subprocess.run([str(BIN / "det"), *args], capture_output=True, text=True, timeout=120, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"det {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def me(cluster, token):
    return requests.get(f"{cluster.master_url}/api/v1/me", headers={"Authorization": f"Bearer {token}"},
                        timeout=30)


def table_rows(output):
    """The rows of a presto table: one dict per row keyed by the header's columns."""
    lines = [line for line in output.splitlines() if line.strip()]
    header = [c.strip() for c in lines[0].split("|")]
    return [dict(zip(header, (c.strip() for c in line.split("|")))) for line in lines[2:]]


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def check_bindings(binding, value, where):
    if upstream.installed():
        assert upstream.reply_problems(binding, value, where) == []


def user_id(cluster, name):
    return cluster.get(f"/api/v1/users/{name}/by-username")["user"]["id"]


def test_our_cli(cluster, tmp_path):
    url = cluster.master_url
    bob_id, carol_id = user_id(cluster, "bob"), user_id(cluster, "carol")

    def bob(*args, check=True):
        return run_det(cluster, tmp_path / "bob.json", *args, user="bob", password="bob-pw", check=check)

    def admin(*args, check=True):
        return run_det(cluster, tmp_path / "admin.json", *args, user="admin", password="", check=check)

    # Everyone creates their own; the master's default lifespan (7 days) when none is asked for.
    made = CREATED.fullmatch(bob("token", "create", "-d", "ci robot").stdout.strip())
    assert made, "det token create printed no TokenID / Access-Token"
    token_id, token = int(made.group(1)), made.group(2)
    assert me(cluster, token).json()["user"]["username"] == "bob"
    rows = table_rows(bob("token", "list").stdout)
    assert [r["ID"] for r in rows] == [str(token_id)]
    assert rows[0]["User ID"] == str(bob_id) and rows[0]["Description"] == "ci robot"
    assert rows[0]["Revoked"] == "False" and rows[0]["Token Type"] == "ACCESS_TOKEN"
    lifespan = parse_time(rows[0]["Expires At"]) - parse_time(rows[0]["Created At"])
    assert lifespan == datetime.timedelta(days=7)

    # Only an admin creates, lists or edits another user's tokens (403 saying so).
    denied = bob("token", "create", "carol", check=False)
    assert denied.returncode != 0
    assert "only an admin may create access tokens for another user; user bob is not an admin" in denied.stderr
    bob_rest = login(cluster, "bob", "bob-pw")
    resp = bob_rest.post(f"{url}/api/v1/tokens", json={"userId": carol_id}, timeout=30)
    assert resp.status_code == 403 and "is not an admin" in resp.text
    assert bob_rest.get(f"{url}/api/v1/tokens?username=carol", timeout=30).status_code == 403
    carol_made = CREATED.fullmatch(admin("token", "create", "carol", "-e", "2").stdout.strip())
    carol_token_id = int(carol_made.group(1))
    carol_info = json.loads(admin("token", "describe", str(carol_token_id), "--json").stdout)
    assert [t["userId"] for t in carol_info] == [carol_id]
    assert parse_time(carol_info[0]["expiry"]) - parse_time(carol_info[0]["createdAt"]) == datetime.timedelta(days=2)
    assert {t["id"] for t in json.loads(admin("token", "list", "--json").stdout)} >= {token_id, carol_token_id}
    assert [t["id"] for t in json.loads(bob("token", "list", "--json").stdout)] == [token_id]
    assert bob_rest.patch(f"{url}/api/v1/tokens/{carol_token_id}", json={"setRevoked": True},
                          timeout=30).status_code == 403

    # Above security.token.max_lifespan_days: refused, naming the field.
    too_long = bob("token", "create", "-e", "31", check=False)
    assert too_long.returncode != 0 and "lifespan: 744h is longer than security.token.max_lifespan_days" in too_long.stderr
    resp = bob_rest.post(f"{url}/api/v1/tokens", json={"userId": bob_id, "lifespan": "forever"}, timeout=30)
    assert resp.status_code == 400 and "lifespan" in resp.text

    # Edit the description.
    edited = bob("token", "edit", str(token_id), "-d", "nightly").stdout
    assert f"Successfully updated token with ID: {token_id}." in edited
    assert table_rows(bob("token", "describe", str(token_id)).stdout)[0]["Description"] == "nightly"

    # `det token login` caches it like a login; later commands use it.
    login_file = tmp_path / "token-login.json"
    assert run_det(cluster, login_file, "token", "login", token).stdout.strip() == "Authenticated as bob."
    assert "You are logged in as user 'bob'" in run_det(cluster, login_file, "user", "whoami").stdout
    run_det(cluster, login_file, "experiment", "list")
    bad = run_det(cluster, tmp_path / "bad.json", "token", "login", "not-a-token", check=False)
    assert bad.returncode != 0 and not (tmp_path / "bad.json").exists()

    # DET_USER_TOKEN (with DET_USER), as upstream's client reads them inside a task.
    env_made = CREATED.fullmatch(bob("token", "create").stdout.strip())
    whoami = run_det(cluster, tmp_path / "empty.json", "user", "whoami", user="bob",
                     extra_env={"DET_USER_TOKEN": env_made.group(2)})
    assert "You are logged in as user 'bob'" in whoami.stdout

    # Revocation takes effect at once; a revoked token cannot be edited; it shows with --show-inactive.
    assert f"Successfully revoked token {token_id}." in bob("token", "revoke", str(token_id)).stdout
    assert me(cluster, token).status_code == 401
    assert token_id not in [t["id"] for t in json.loads(bob("token", "list", "--json").stdout)]
    inactive = {t["id"]: t for t in json.loads(bob("token", "list", "--show-inactive", "--json").stdout)}
    assert inactive[token_id]["revoked"] is True
    again = bob("token", "edit", str(token_id), "-d", "x", check=False)
    assert again.returncode != 0 and f"access token {token_id} is revoked" in again.stderr

    # Expiry is honoured (a Go duration in seconds, as upstream's parser takes it).
    resp = bob_rest.post(f"{url}/api/v1/tokens", json={"userId": bob_id, "lifespan": "2s"}, timeout=30)
    assert resp.status_code == 200, resp.text
    short = resp.json()["token"]
    assert me(cluster, short).status_code == 200
    time.sleep(2.5)
    assert me(cluster, short).status_code == 401

    # Tokens survive a master restart: the live one still works, the revoked one stays refused.
    restart_master(cluster)
    assert me(cluster, env_made.group(2)).json()["user"]["username"] == "bob"
    assert me(cluster, token).status_code == 401


def test_replies_decode_with_upstreams_bindings(cluster):
    upstream.require_client()
    bob_rest = login(cluster, "bob", "bob-pw")
    url = cluster.master_url
    created = bob_rest.post(f"{url}/api/v1/tokens", timeout=30,
                            json={"userId": user_id(cluster, "bob"), "lifespan": "720h", "description": "wire"})
    assert created.status_code == 200, created.text
    check_bindings("v1PostAccessTokenResponse", created.json(), "POST /api/v1/tokens")
    tid = created.json()["tokenId"]
    listed = bob_rest.get(f"{url}/api/v1/tokens?showInactive=true&sortBy=SORT_BY_EXPIRY&orderBy=ORDER_BY_DESC"
                          f"&limit=2&offset=0", timeout=30).json()
    check_bindings("v1GetAccessTokensResponse", listed, "GET /api/v1/tokens")
    assert listed["pagination"]["limit"] == 2 and len(listed["tokenInfo"]) <= 2
    patched = bob_rest.patch(f"{url}/api/v1/tokens/{tid}", json={"setRevoked": True}, timeout=30).json()
    check_bindings("v1PatchAccessTokenResponse", patched, f"PATCH /api/v1/tokens/{tid}")
    assert patched["tokenInfo"]["revoked"] is True


def stock(cluster, home, *args, user=None, password=None, check=True):
    """Upstream's own `det`, signed in only by `user`/`password` and the token cache in `home`."""
    env = {k: v for k, v in os.environ.items() if k not in ("DET_USER", "DET_PASS", "DET_USER_TOKEN", "PYTHONPATH")}
    env.update(DET_MASTER=cluster.master_url, HOME=str(home), PYTHONPATH=str(upstream.site_dir()))
    if user is not None:
        env.update(DET_USER=user, DET_PASS=password or "")
    proc = subprocess.run(["/usr/bin/python3", "-m", "determined.cli", *args], capture_output=True, text=True,
                          timeout=180, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"stock det {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def test_upstreams_cli(cluster, tmp_path):
    upstream.require_client()
    home = tmp_path / "home"
    home.mkdir()

    def bob(*args, check=True):
        return stock(cluster, home, *args, user="bob", password="bob-pw", check=check)

    made = CREATED.fullmatch(bob("token", "create", "-d", "from stock", "-e", "3").stdout.strip())
    assert made, "upstream's det token create printed no TokenID / Access-Token"
    token_id, token = int(made.group(1)), made.group(2)

    rows = {r["ID"]: r for r in table_rows(bob("token", "list").stdout)}
    assert rows[str(token_id)]["Description"] == "from stock"
    assert rows[str(token_id)]["Revoked"] == "False" and rows[str(token_id)]["Token Type"] == "ACCESS_TOKEN"
    listed = json.loads(bob("token", "list", "--json").stdout)
    info = next(t for t in listed if t["id"] == token_id)
    assert parse_time(info["expiry"]) - parse_time(info["createdAt"]) == datetime.timedelta(days=3)
    described = table_rows(bob("token", "describe", str(token_id)).stdout)
    assert [r["ID"] for r in described] == [str(token_id)]

    assert f"Successfully updated token with ID: {token_id}." in bob("token", "edit", str(token_id), "-d", "edited").stdout
    assert json.loads(bob("token", "describe", str(token_id), "--json").stdout)[0]["description"] == "edited"

    denied = bob("token", "create", "carol", check=False)
    assert denied.returncode != 0 and "only an admin may create access tokens for another user" in denied.stderr + denied.stdout

    # `det token login`, then a command with nothing but the cached token.
    login_home = tmp_path / "login-home"
    login_home.mkdir()
    assert "Authenticated as bob." in stock(cluster, login_home, "token", "login", token).stdout
    stock(cluster, login_home, "experiment", "list")

    assert f"Successfully revoked token {token_id}." in bob("token", "revoke", str(token_id)).stdout
    assert me(cluster, token).status_code == 401
    after = stock(cluster, login_home, "experiment", "list", check=False)
    assert after.returncode != 0, "a revoked token still signed upstream's client in"
