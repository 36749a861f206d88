"""A TLS cluster: the master serves HTTPS and WSS with a self-signed certificate made here; the agent
(WSS link, context download, log shipping), the harness inside the trial and `det` all verify it."""
import pathlib
import re
import subprocess
import time

import pytest
import requests

from conftest import det


def make_cert(directory: pathlib.Path):
    cert, key = directory / "master.crt", directory / "master.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


class TlsCluster:
    def __init__(self, data_dir, auth_file, cert, master_url):
        self.data_dir, self.auth_file, self.cert, self.master_url = data_dir, auth_file, cert, master_url

    def det(self, *args, cert_file=None, master=None, **kwargs):
        env = {"DET_AUTH_FILE": str(self.auth_file),
               "DET_MASTER_CERT_FILE": str(self.cert) if cert_file is None else cert_file}
        return det(*args, master=master or self.master_url, env=env, **kwargs)


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("tls-cluster")
    cert, key = make_cert(data_dir)
    auth_file = data_dir / "auth.json"
    env = {"DET_AUTH_FILE": str(auth_file), "DET_MASTER_CERT_FILE": ""}
    up = det("deploy", "local", "cluster-up", "--agents", "1", "--slots", "1", "--master-port", "0",
             "--master-cert", str(cert), "--master-key", str(key), "--data-dir", str(data_dir),
             env=env, timeout=120)
    try:
        url = re.search(r"Master: (\S+)", up.stdout).group(1)
        assert url.startswith("https://127.0.0.1:"), up.stdout
        assert f"DET_MASTER_CERT_FILE={cert}" in up.stdout
        yield TlsCluster(data_dir, auth_file, cert, url)
    finally:
        det("deploy", "local", "cluster-down", "--data-dir", str(data_dir), env=env, check=False, timeout=60)


def test_noop_experiment_completes_over_tls(tls_cluster, tmp_path):
    tls_cluster.det("user", "login", "determined", input="\n")
    assert "determined" in tls_cluster.det("user", "whoami").stdout
    noop = pathlib.Path(__file__).resolve().parents[2] / "examples" / "noop"
    created = tls_cluster.det("experiment", "create", str(noop / "noop.yaml"), str(noop))
    exp_id = int(re.search(r"Created experiment (\d+)", created.stdout).group(1))

    session = requests.Session()
    # Per call: requests lets REQUESTS_CA_BUNDLE override a session-wide `verify`.
    cert = str(tls_cluster.cert)
    token = session.post(f"{tls_cluster.master_url}/api/v1/auth/login", verify=cert,
                         json={"username": "determined", "password": ""}, timeout=30).json()["token"]
    session.headers["Authorization"] = "Bearer " + token
    deadline, state = time.time() + 45, None
    while time.time() < deadline:
        state = session.get(f"{tls_cluster.master_url}/api/v1/experiments/{exp_id}", verify=cert,
                            timeout=30).json()["experiment"]["state"]
        if state in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"):
            break
        time.sleep(0.3)
    assert state == "STATE_COMPLETED", (tls_cluster.data_dir / "agent-0.log").read_text()[-3000:]

    trial = session.get(f"{tls_cluster.master_url}/api/v1/experiments/{exp_id}/trials", verify=cert,
                        timeout=30).json()["trials"][0]
    logs = tls_cluster.det("trial", "logs", str(trial["id"])).stdout
    assert "DET_USE_TLS" not in logs  # the logs arrived over HTTPS; nothing leaked into them
    agent_log = (tls_cluster.data_dir / "agent-0.log").read_text()
    assert "connected to the master at wss://127.0.0.1:" in agent_log


def test_plain_http_to_the_tls_port_fails(tls_cluster):
    plain = tls_cluster.master_url.replace("https://", "http://")
    resp = requests.get(f"{plain}/api/v1/master", timeout=10)
    assert resp.status_code == 400
    assert "use an https:// URL" in resp.json()["error"]["error"]
    out = tls_cluster.det("master", "info", master=plain, check=False, timeout=60)
    assert out.returncode != 0
    assert "https://" in out.stderr, out.stderr


def test_det_without_the_certificate_fails_clearly_and_noverify_works(tls_cluster):
    out = tls_cluster.det("master", "info", cert_file="", check=False, timeout=60)
    assert out.returncode != 0
    assert "certificate" in out.stderr and "DET_MASTER_CERT_FILE" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr

    ok = tls_cluster.det("master", "info", cert_file="noverify", timeout=60)
    assert "0.38" in ok.stdout, ok.stdout
