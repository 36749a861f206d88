"""The master's proxy in front of a command's own HTTP server (tests/e2e/proxy_backend.py, which reports ready
with its port): large bodies stream both ways without the master holding them, chunked and sized uploads
arrive intact, forwarding headers are set and the caller's master credentials are not passed on, WebSockets
pass through, and a killed task's service is gone."""
import hashlib
import json
import os
import pathlib
import shutil

import pytest
import requests

from conftest import local_cluster, wait_for

websocket = pytest.importorskip("websocket", reason="python3-websocket is not installed")
BACKEND = pathlib.Path(__file__).with_name("proxy_backend.py")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("proxy-cluster"), agents=1, slots=1) as c:
        yield c


@pytest.fixture(scope="module")
def backend(cluster, tmp_path_factory):
    context = tmp_path_factory.mktemp("backend")
    shutil.copy(BACKEND, context / "proxy_backend.py")
    task_id = cluster.det("cmd", "run", "-d", "--config", "resources.slots=0", "-c", str(context), "python3", "proxy_backend.py").stdout.strip()
    base = f"{cluster.master_url}/proxy/{task_id}"
    wait_for(lambda: cluster.session.get(f"{base}/small", timeout=10).status_code == 200, "the backend", timeout=60)
    yield task_id, base
    cluster.session.post(f"{cluster.master_url}/api/v1/commands/{task_id}/kill", timeout=30)


def master_rss_mib(cluster):
    pid = json.loads((cluster.data_dir / "cluster.json").read_text())["master_pid"]
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_large_bodies_stream_both_ways(cluster, backend):
    _, base = backend
    before = master_rss_mib(cluster)
    piece = os.urandom(1 << 20)
    expected = hashlib.sha256(piece * 64).hexdigest()
    chunked = cluster.session.post(f"{base}/sha256", data=(piece for _ in range(64)), timeout=120)
    assert chunked.json() == {"sha256": expected, "size": 64 << 20}, chunked.text
    sized = cluster.session.post(f"{base}/sha256", data=piece * 16, timeout=120)
    assert sized.json() == {"sha256": hashlib.sha256(piece * 16).hexdigest(), "size": 16 << 20}
    with cluster.session.get(f"{base}/bytes", params={"n": 512 << 20}, stream=True, timeout=120) as download:
        assert download.status_code == 200
        received = sum(len(c) for c in download.iter_content(1 << 20))
    assert received == 512 << 20
    # Nothing proxied was held whole: the master grew by far less than what went through it.
    assert master_rss_mib(cluster) - before < 64, (before, master_rss_mib(cluster))


def test_forwarding_headers_and_no_master_credentials(cluster, backend):
    _, base = backend
    cookies = {"auth": cluster.session.headers["Authorization"].split()[1], "mine": "kept"}
    seen = cluster.session.get(f"{base}/headers", cookies=cookies, timeout=30).json()
    seen = {k.lower(): v for k, v in seen.items()}
    assert seen["x-forwarded-for"] == "127.0.0.1" and seen["x-real-ip"] == "127.0.0.1"
    assert seen["x-forwarded-proto"] == "http" and seen["x-forwarded-host"]
    assert "authorization" not in seen
    assert seen["cookie"] == "mine=kept"


def test_websockets_pass_through(cluster, backend):
    _, base = backend
    ws = websocket.create_connection(base.replace("http://", "ws://") + "/ws",
                                     header=[f"Authorization: {cluster.session.headers['Authorization']}"], timeout=30)
    try:
        for text in ["hello", "x" * 70000]:
            ws.send(text)
            assert ws.recv() == text
    finally:
        ws.close()


def test_a_killed_tasks_service_is_gone(cluster, tmp_path):
    shutil.copy(BACKEND, tmp_path / "proxy_backend.py")
    task_id = cluster.det("cmd", "run", "-d", "--config", "resources.slots=0", "-c", str(tmp_path), "python3", "proxy_backend.py").stdout.strip()
    url = f"{cluster.master_url}/proxy/{task_id}/small"
    wait_for(lambda: cluster.session.get(url, timeout=10).status_code == 200, "the second backend", timeout=60)
    cluster.det("cmd", "kill", task_id)
    wait_for(lambda: cluster.session.get(url, timeout=10).status_code == 404, "the service to go", timeout=60)
    assert task_id in cluster.session.get(url, timeout=10).text
