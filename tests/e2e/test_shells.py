"""Shells with a real sshd and a real ssh client, reached only through the master: TCP over the proxy's
WebSocket with determined.cli.tunnel (upstream's command line and framing) as the ProxyCommand, `det shell`,
the task's environment in SSH sessions, and a raw client speaking upstream's framing (binary WebSocket
frames carrying the TCP stream)."""
import os
import shutil
import socket
import subprocess

import pytest

from conftest import BIN, local_cluster, ssh_through_tunnel, start_shell

websocket = pytest.importorskip("websocket", reason="python3-websocket is not installed")
if not os.path.exists("/usr/sbin/sshd") or not shutil.which("ssh"):
    pytest.skip("openssh-server/client are not installed (scripts/install-deps.sh installs them)",
                allow_module_level=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("shell-cluster"), agents=1, slots=2) as c:
        yield c


@pytest.fixture(scope="module")
def shell(cluster, tmp_path_factory):
    shell = start_shell(cluster, tmp_path_factory.mktemp("key"),
                        {"environment": {"environment_variables": ["MY_VAR=from the config"]}})
    yield shell
    cluster.session.post(f"{cluster.master_url}/api/v1/shells/{shell['id']}/kill", timeout=30)


def test_ssh_through_the_tunnel_reaches_the_shell_with_its_environment(cluster, shell):
    assert shell["publicKey"].startswith("ssh-rsa ") and "PRIVATE KEY" in shell["privateKey"]
    assert shell["addresses"] and shell["addresses"][0]["port"] > 0
    out = ssh_through_tunnel(cluster, shell, "hostname; echo \"$MY_VAR\"; echo $DET_TASK_ID")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [socket.gethostname(), "from the config", shell["id"]], out.stdout


def test_a_client_speaking_upstreams_framing_reaches_sshd(cluster, shell):
    # Upstream's tunnel: a WebSocket to /proxy/{id}/ whose binary frames carry the raw TCP stream; no session.
    ws = websocket.create_connection(cluster.master_url.replace("http://", "ws://") + f"/proxy/{shell['id']}/",
                                     timeout=30)
    try:
        ws.send_binary(b"SSH-2.0-upstream-framing-test\r\n")
        opcode, data = ws.recv_data()
        assert opcode == websocket.ABNF.OPCODE_BINARY
        assert data.startswith(b"SSH-2.0-OpenSSH"), data
    finally:
        ws.close()
    # Plain HTTP to a TCP service is refused with a clear message.
    plain = cluster.session.get(cluster.master_url + f"/proxy/{shell['id']}/", timeout=30)
    assert plain.status_code == 400 and "TCP service" in plain.text, plain.text


def det_has_shell():
    return "show-ssh-command" in subprocess.run([str(BIN / "det"), "shell", "--help"], capture_output=True, text=True).stdout


@pytest.mark.skipif(not det_has_shell(), reason="this det has no shell command")
def test_det_shell_start_runs_a_command_and_show_ssh_command_runs_as_shown(cluster, shell):
    started = cluster.det("shell", "start", "--", "hostname", timeout=120)
    assert socket.gethostname() in started.stdout.splitlines(), started.stdout + started.stderr
    shown = cluster.det("shell", "show-ssh-command", shell["id"]).stdout.strip().splitlines()[-1]
    env = dict(os.environ, DET_MASTER=cluster.master_url, DET_AUTH_FILE=str(cluster.auth_file),
               PATH=f"{BIN}:{os.environ['PATH']}")
    ran = subprocess.run(f"{shown} -o BatchMode=yes echo shown-command-works", shell=True, capture_output=True,
                         text=True, timeout=60, env=env)
    assert "shown-command-works" in ran.stdout, ran.stdout + ran.stderr
