"""Notebooks and the master's proxy with a real Jupyter: the notebook answers through /proxy/{id}/, a kernel
runs `import torch; 6*7` over a WebSocket through the proxy, credentials are required, an idle notebook is
killed and a busy one is not, a notebook survives a SIGKILLed master, and the proxy's answers to bad input
leak no connection."""
import json
import os
import socket
import time
import uuid

import pytest
import requests

from conftest import local_cluster, login, restart_master, wait_for

websocket = pytest.importorskip("websocket", reason="python3-websocket is not installed")
if not os.path.exists("/usr/bin/jupyter-notebook"):
    pytest.skip("jupyter-notebook is not installed (scripts/install-deps.sh installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("nb-cluster"), agents=1, slots=2) as c:
        yield c


def start_notebook(cluster, config=None):
    resp = cluster.session.post(cluster.master_url + "/api/v1/notebooks", json={"config": config or {}}, timeout=60)
    assert resp.status_code == 200, resp.text
    notebook = resp.json()["notebook"]
    wait_for(lambda: (a := cluster.get(f"/api/v1/tasks/{notebook['id']}")["task"]["allocations"]) and a[-1]["isReady"],
             "the notebook to be ready", timeout=90)
    return notebook


def notebook_state(cluster, nid):
    return cluster.get(f"/api/v1/notebooks/{nid}")["notebook"]


def proxy(cluster, nid, path=""):
    return f"{cluster.master_url}/proxy/{nid}/{path}"


def run_in_kernel(cluster, nid, code):
    """Starts a kernel through the proxy and runs `code` over its WebSocket channels; returns the result text."""
    kernel = cluster.session.post(proxy(cluster, nid, "api/kernels"), json={}, timeout=60)
    assert kernel.status_code == 201, kernel.text
    kid = kernel.json()["id"]
    ws_url = proxy(cluster, nid, f"api/kernels/{kid}/channels").replace("http://", "ws://")
    ws = websocket.create_connection(ws_url, header=[f"Authorization: {cluster.session.headers['Authorization']}"],
                                     timeout=60)
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({
        "header": {"msg_id": msg_id, "username": "test", "session": uuid.uuid4().hex, "msg_type": "execute_request",
                   "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False},
    }))
    deadline = time.time() + 90
    try:
        while time.time() < deadline:
            reply = json.loads(ws.recv())
            if reply.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if reply["msg_type"] == "execute_result":
                return reply["content"]["data"]["text/plain"]
            if reply["msg_type"] == "error":
                raise AssertionError(reply["content"])
    finally:
        ws.close()
    raise AssertionError("no execute_result from the kernel")


def test_a_notebook_serves_through_the_proxy_and_runs_torch_in_a_kernel(cluster):
    nb = start_notebook(cluster)
    assert nb["serviceAddress"].startswith(f"/proxy/{nb['id']}/?token=")
    api = cluster.session.get(proxy(cluster, nb["id"], "api"), timeout=30)
    assert api.status_code == 200 and "version" in api.json(), api.text
    assert run_in_kernel(cluster, nb["id"], "import torch; 6*7") == "42"
    # The notebook's own token opens it too (the URL `det notebook start` prints); nothing else does.
    token = nb["serviceAddress"].split("token=")[1]
    assert requests.get(proxy(cluster, nb["id"], "api") + "?token=" + token, timeout=30).status_code == 200
    anonymous = requests.get(proxy(cluster, nb["id"], "api"), timeout=30)
    assert anonymous.status_code == 401, anonymous.text
    wrong = requests.get(proxy(cluster, nb["id"], "api") + "?token=nope", timeout=30)
    assert wrong.status_code == 401, wrong.text
    # Another user may not use it: the same answer as for a service that does not exist.
    login(cluster, "admin").post(f"{cluster.master_url}/api/v1/users",
                                 json={"user": {"username": "nb-other", "active": True}, "password": ""}, timeout=30)
    other = login(cluster, "nb-other")
    assert other.get(proxy(cluster, nb["id"], "api"), timeout=30).status_code == 404
    cluster.session.post(f"{cluster.master_url}/api/v1/notebooks/{nb['id']}/kill").raise_for_status()
    wait_for(lambda: notebook_state(cluster, nb["id"])["state"] == "STATE_TERMINATED", "the notebook to end")
    # A killed notebook's service is gone.
    gone = cluster.session.get(proxy(cluster, nb["id"], "api"), timeout=30)
    assert gone.status_code == 404 and nb["id"] in gone.json()["error"]["error"], gone.text


def test_an_idle_notebook_is_killed_and_a_busy_one_is_not(cluster):
    env = {"environment_variables": ["DET_IDLE_REPORT_SECONDS=0.5"]}
    idle = start_notebook(cluster, {"idle_timeout": "4s", "environment": env})
    busy = start_notebook(cluster, {"idle_timeout": "4s", "environment": env})
    # A running kernel keeps `busy` in use (kernels_or_terminals); `idle` has none and no requests.
    assert run_in_kernel(cluster, busy["id"], "1+1") == "2"
    ended = wait_for(lambda: (n := notebook_state(cluster, idle["id"]))["state"] == "STATE_TERMINATED" and n,
                     "the idle notebook to be killed", timeout=60)
    assert "without use" in ended["exitStatus"] and "idle_timeout 4s" in ended["exitStatus"], ended
    logs = cluster.det("task", "logs", idle["id"]).stdout
    assert "without use" in logs, logs
    assert notebook_state(cluster, busy["id"])["state"] == "STATE_RUNNING"
    cluster.session.post(f"{cluster.master_url}/api/v1/notebooks/{busy['id']}/kill").raise_for_status()


def master_sockets(cluster):
    """The master's open sockets (its database may open more reader connections as load comes; those are files)."""
    pid = json.loads((cluster.data_dir / "cluster.json").read_text())["master_pid"]
    sockets = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            continue  # closed while we looked
        if target.startswith("socket:"):
            sockets.add(target)
    return sockets


def test_proxy_bad_input_gets_clear_answers_and_leaks_nothing(cluster):
    nb = start_notebook(cluster)
    try:
        before = master_sockets(cluster)
        unknown = cluster.session.get(f"{cluster.master_url}/proxy/no-such-service/api", timeout=30)
        assert unknown.status_code == 404 and "no-such-service" in unknown.text
        huge = cluster.session.get(proxy(cluster, nb["id"], "api"), headers={"X-Big": "x" * (80 << 10)}, timeout=30)
        assert huge.status_code == 431, huge.text
        # Clients that go away mid-request and mid-response.
        host, port = cluster.master_url.removeprefix("http://").split(":")
        token = cluster.session.headers["Authorization"]
        for _ in range(20):
            with socket.create_connection((host, int(port))) as s:
                s.sendall(f"PUT /proxy/{nb['id']}/api/contents/x.txt HTTP/1.1\r\nHost: h\r\n"
                          f"Authorization: {token}\r\nContent-Length: 1000000\r\n\r\n{{\"type\": ".encode())
            with socket.create_connection((host, int(port))) as s:
                s.sendall(f"GET /proxy/{nb['id']}/api/kernelspecs HTTP/1.1\r\nHost: h\r\n"
                          f"Authorization: {token}\r\n\r\n".encode())
                s.recv(10)
        assert cluster.session.get(proxy(cluster, nb["id"], "api"), timeout=30).status_code == 200
        try:
            wait_for(lambda: len(master_sockets(cluster)) <= len(before), "the master's connections to close",
                     timeout=30)
        except AssertionError:
            raise AssertionError(f"sockets left open: {sorted(master_sockets(cluster) - before)}") from None
    finally:
        cluster.session.post(f"{cluster.master_url}/api/v1/notebooks/{nb['id']}/kill").raise_for_status()


def test_a_notebook_survives_a_master_restart(cluster):
    nb = start_notebook(cluster)
    url = proxy(cluster, nb["id"], "api")
    assert cluster.session.get(url, timeout=30).status_code == 200
    restart_master(cluster)
    # The agent reconnects and the same URL works again, without anything being restarted.
    wait_for(lambda: cluster.session.get(url, timeout=30).status_code == 200, "the notebook behind the new master",
             timeout=90)
    assert notebook_state(cluster, nb["id"])["state"] == "STATE_RUNNING"
    cluster.session.post(f"{cluster.master_url}/api/v1/notebooks/{nb['id']}/kill").raise_for_status()


def test_det_notebook_start_prints_a_url_that_opens_the_notebook(cluster):
    started = cluster.det("notebook", "start", "--no-browser", timeout=120)
    url = started.stdout.strip().splitlines()[-1]
    assert url.startswith(f"{cluster.master_url}/proxy/") and "?token=" in url, started.stdout + started.stderr
    nid = url.split("/proxy/")[1].split("/")[0]
    api = requests.get(url.replace("/?token=", "/api?token="), timeout=30)
    assert api.status_code == 200 and "version" in api.json(), api.text
    listed = cluster.det("notebook", "list", "--json").stdout
    assert nid in listed
    cluster.det("notebook", "kill", nid[:8])
    wait_for(lambda: notebook_state(cluster, nid)["state"] == "STATE_TERMINATED", "the notebook to end")
