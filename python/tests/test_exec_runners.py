"""Tests of the task runners (determined.exec.notebook, determined.exec.shell) and of the tunnel
(determined.cli.tunnel): their pure parts, and the real programs (Jupyter, sshd, ssh) against a fake
master and a small WebSocket echo server. The end-to-end tests with the real master live elsewhere."""
import getpass
import base64
import datetime
import hashlib
import http.server
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from determined.cli import tunnel
from determined.exec import _runner, notebook, shell

# The directory the tested package was imported from (the source tree, or the build copy under ctest).
PYTHON_DIR = str(Path(notebook.__file__).resolve().parents[2])
PYTHON = "/usr/bin/python3"
JUPYTER = "/usr/bin/jupyter-notebook"
SSHD = "/usr/sbin/sshd"


def wait_for(pred: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


# --- a fake master ------------------------------------------------------------------------------


class FakeMaster:
    """An HTTP server recording every call as (method, path, headers (a case-insensitive
    email.message.Message), JSON body); answers 200 {}, or the next status queued in
    ``statuses[path]``."""

    def __init__(self) -> None:
        self.calls: List[Tuple[str, str, Any, Any]] = []
        self.statuses: Dict[str, List[int]] = {}
        self.lock = threading.Lock()
        master = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _record(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with master.lock:
                    master.calls.append((self.command, self.path, self.headers,
                                         json.loads(body) if body else None))
                    queued = master.statuses.get(self.path)
                    status = queued.pop(0) if queued else 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_POST = do_PUT = do_GET = _record

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def matching(self, method: str, path: str) -> List[Tuple[str, str, Any, Any]]:
        with self.lock:
            return [c for c in self.calls if c[0] == method and c[1] == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def master() -> Iterator[FakeMaster]:
    m = FakeMaster()
    yield m
    m.close()


def task_env(master: FakeMaster, workdir: Path, home: Path, task_type: str,
             extra: Dict[str, str]) -> Dict[str, str]:
    """A task's environment as the agent builds it (docs/task-contract.md), for task 'task-1'."""
    env = {
        "PATH": "/usr/bin:/bin:/usr/sbin:/sbin",
        "PYENV_VERSION": "system",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": PYTHON_DIR,
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "USER": "someone-else",
        "DET_MASTER": master.url,
        "DET_TASK_ID": "task-1",
        "DET_ALLOCATION_ID": "task-1.alloc-1",
        "DET_SESSION_TOKEN": "alloc-token",
        "DET_TASK_TYPE": task_type,
        "DET_WORKDIR": str(workdir),
    }
    env.update(extra)
    return env


def start_runner(module: str, env: Dict[str, str], workdir: Path, logs: Path) -> subprocess.Popen:
    out = open(logs / f"{module}.out", "wb")
    err = open(logs / f"{module}.err", "wb")
    return subprocess.Popen([PYTHON, "-m", f"determined.exec.{module}"], env=env, cwd=workdir,
                            stdout=out, stderr=err, stdin=subprocess.DEVNULL)


def ready_port(master: FakeMaster, proc: subprocess.Popen, logs: Path) -> Tuple[int, Any]:
    """Waits for the runner's ready POST; returns its port and headers."""
    path = "/api/v1/allocations/task-1.alloc-1/ready"

    def ready() -> Any:
        if proc.poll() is not None:
            raise AssertionError(f"runner exited {proc.returncode}: " + "".join(
                p.read_text(errors="replace") for p in sorted(logs.iterdir())))
        return master.matching("POST", path)

    calls = wait_for(ready, 120, "the ready POST")
    assert set(calls[0][3]) == {"port", "user"}
    return int(calls[0][3]["port"]), calls[0][2]


def end_runner(proc: subprocess.Popen) -> Tuple[int, List[int]]:
    """SIGTERMs the runner; returns its exit status and the pids it had started that are still
    alive 5 s after it exited."""
    tree = _runner.descendants(proc.pid)
    assert tree, "the runner has no children"
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_runner._alive(k) for k in tree):
        time.sleep(0.1)
    return code, [k[0] for k in tree if _runner._alive(k)]


# --- what the runners share -----------------------------------------------------------------------


def test_report_ready_retries_5xx_and_stops_on_4xx(master: FakeMaster) -> None:
    client = _runner.MasterClient(master.url, "alloc-token")
    path = "/api/v1/allocations/a1/ready"
    master.statuses[path] = [503, 502]
    assert _runner.report_ready(client, "a1", 1234, delay=0.01) is True
    assert [c[3] for c in master.matching("POST", path)] == [{"port": 1234, "user": getpass.getuser()}] * 3
    master.statuses[path] = [404]
    assert _runner.report_ready(client, "a1", 1234, delay=0.01) is False
    assert len(master.matching("POST", path)) == 4


def test_report_ready_gives_up_when_unreachable() -> None:
    client = _runner.MasterClient(f"http://127.0.0.1:{_runner.free_port()}", "t")
    assert _runner.report_ready(client, "a1", 1, attempts=2, delay=0.01) is False


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_master_client_tls_cert_name_and_noverify(master: FakeMaster, tmp_path: Path) -> None:
    """An https master whose certificate names "master-name", reached at 127.0.0.1: verified with
    DET_MASTER_CERT_NAME, refused without it, accepted unverified with ``noverify``."""
    import ssl

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=master-name",
                    "-addext", "subjectAltName=DNS:master-name"],
                   check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    master.server.socket = ctx.wrap_socket(master.server.socket, server_side=True)
    url = master.url.replace("http:", "https:")
    named = _runner.MasterClient(url, "t", cert_file=str(cert), cert_name="master-name")
    assert named.call("PUT", "/x", {})[0] == 200
    assert _runner.MasterClient(url, "t", cert_file="noverify").call("PUT", "/x", {})[0] == 200
    with pytest.raises(OSError):
        _runner.MasterClient(url, "t", cert_file=str(cert)).call("PUT", "/x", {})


def test_exit_status() -> None:
    assert _runner.exit_status(3) == 3
    assert _runner.exit_status(-signal.SIGTERM) == 128 + signal.SIGTERM


# --- notebook: pure parts ------------------------------------------------------------------------


def _t(second: int) -> str:
    return f"2024-05-01T12:00:{second:02d}.000000Z"


def test_decide_idle_kernels_or_terminals() -> None:
    s = notebook.IdleState()
    assert notebook.decide_idle("kernels_or_terminals", [], [], [], s)[0] is True
    assert notebook.decide_idle("kernels_or_terminals", [{"id": "k"}], [], [], s)[0] is False
    assert notebook.decide_idle("kernels_or_terminals", [], [{"name": "1"}], [], s)[0] is False
    assert notebook.decide_idle("kernels_or_terminals", [], [], [{"id": "s"}], s)[0] is False


def test_decide_idle_kernel_connections() -> None:
    s = notebook.IdleState()
    k = lambda n: {"id": "k", "connections": n}  # noqa: E731
    assert notebook.decide_idle("kernel_connections", [], [{"name": "1"}], [], s)[0] is True
    assert notebook.decide_idle("kernel_connections", [k(0), k(0)], [], [], s)[0] is True
    assert notebook.decide_idle("kernel_connections", [k(0), k(2)], [], [], s)[0] is False


def test_decide_idle_activity() -> None:
    kernel = {"id": "k", "execution_state": "idle", "last_activity": _t(1)}
    idle, s = notebook.decide_idle("activity", [kernel], [], [], notebook.IdleState())
    assert idle is False, "the first check has nothing to compare with"
    idle, s = notebook.decide_idle("activity", [kernel], [], [], s)
    assert idle is True
    terminal = {"name": "1", "last_activity": _t(5)}
    idle, s = notebook.decide_idle("activity", [kernel], [terminal], [], s)
    assert idle is False, "a terminal was used since the last check"
    idle, s = notebook.decide_idle("activity", [kernel], [terminal], [], s)
    assert idle is True
    busy = dict(kernel, execution_state="busy")
    assert notebook.decide_idle("activity", [busy], [terminal], [], s)[0] is False
    # Nothing at all, twice: idle.
    idle, s = notebook.decide_idle("activity", [], [], [], notebook.IdleState(checked=True))
    assert idle is True and s.newest_activity is None


def test_newest_activity_compares_times_not_strings() -> None:
    a = {"last_activity": "2024-05-01T12:00:09.5Z"}
    b = {"last_activity": "2024-05-01T12:00:10.000000Z"}
    assert notebook.newest_activity([a], [b]) == datetime.datetime(
        2024, 5, 1, 12, 0, 10, tzinfo=datetime.timezone.utc)
    assert notebook.newest_activity([{"last_activity": None}], [{}]) is None


def test_decide_idle_unknown_type() -> None:
    with pytest.raises(ValueError, match="DET_NOTEBOOK_IDLE_TYPE"):
        notebook.decide_idle("sometimes", [], [], [], notebook.IdleState())


def test_jupyter_command_and_env() -> None:
    cmd = notebook.jupyter_command("/usr/bin/jupyter-notebook", 1234, "t1", "/w", as_root=True)
    assert cmd[:2] == ["/usr/bin/jupyter-notebook", "--no-browser"]
    for arg in ["--port", "1234", "--port-retries", "0", "--NotebookApp.base_url=/proxy/t1/",
                "--NotebookApp.notebook_dir=/w", "--NotebookApp.allow_origin=*",
                "--NotebookApp.trust_xheaders=True", "--allow-root"]:
        assert arg in cmd
    assert "--allow-root" not in notebook.jupyter_command("j", 1, "t", "/w", as_root=False)
    assert not any("token" in a for a in cmd), "the token stays off the command line"
    env = notebook.jupyter_env({"A": "1", "IPYTHONDIR": "/mine"}, "/task", "tok")
    assert env["JUPYTER_TOKEN"] == "tok" and env["A"] == "1"
    assert env["JUPYTER_RUNTIME_DIR"] == "/task/.jupyter/runtime"
    assert env["JUPYTER_DATA_DIR"] == "/task/.jupyter/data"
    assert env["IPYTHONDIR"] == "/mine", "the task's own setting wins"


# --- notebook: the real program ----------------------------------------------------------------


def jupyter_call(port: int, method: str, path: str, token: Optional[str] = "nb-token") -> Any:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/proxy/task-1/{path}", method=method,
                                 data=b"{}" if method == "POST" else None)
    if token:
        req.add_header("Authorization", f"token {token}")
    with urllib.request.urlopen(req, timeout=30) as resp:
        body = resp.read()
    return json.loads(body) if body else None


def _execute(ws: Any, code: str, timeout: float) -> Optional[str]:
    """Runs ``code`` over a kernel's WebSocket; returns its stdout, or None when the kernel's output
    channel (ZeroMQ PUB/SUB, which drops what is published before the subscription is up) lost it."""
    import websocket

    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({
        "header": {"msg_id": msg_id, "username": "test", "session": uuid.uuid4().hex,
                   "msg_type": "execute_request", "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True},
    }))
    out: List[str] = []
    replied, deadline = False, time.monotonic() + timeout
    while time.monotonic() < deadline:
        ws.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            msg = json.loads(ws.recv())
        except websocket.WebSocketTimeoutException:
            break
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "stream":
            out.append(msg["content"]["text"])
        elif kind == "error":
            raise AssertionError("kernel error: " + "\n".join(msg["content"]["traceback"]))
        elif kind == "execute_reply":
            replied, deadline = True, min(deadline, time.monotonic() + 2.0)
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            return "".join(out)  # the last output message of this request
    assert replied, f"no execute_reply in {timeout:g} s"
    return None


def run_in_kernel(port: int, kernel_id: str, code: str) -> str:
    """Executes ``code`` in the kernel over Jupyter's WebSocket; returns its stdout."""
    import websocket

    ws = websocket.create_connection(
        f"ws://127.0.0.1:{port}/proxy/task-1/api/kernels/{kernel_id}/channels?token=nb-token",
        timeout=180)
    try:
        for _ in range(30):  # until the output channel carries output
            if _execute(ws, "print('ready')", 180) == "ready\n":
                break
        else:
            raise AssertionError("the kernel's output never arrived")
        out = _execute(ws, code, 300)
        assert out is not None, "the kernel's output was lost"
        return out
    finally:
        ws.close()


def idle_reports(master: FakeMaster) -> List[Any]:
    return [c[3] for c in master.matching("PUT", "/api/v1/notebooks/task-1/report_idle")]


def wait_for_report(master: FakeMaster, after: int, idle: bool) -> int:
    """Waits for a report_idle with ``idle`` after the first ``after`` reports; returns its index."""

    def find() -> Optional[int]:
        reports = idle_reports(master)
        for i in range(after, len(reports)):
            if reports[i]["idle"] is idle:
                return i + 1
        return None

    return wait_for(find, 30, f"a report_idle with idle={idle}") - 1


@pytest.mark.skipif(not os.access(JUPYTER, os.X_OK), reason=f"{JUPYTER} is not installed")
def test_notebook_runner(master: FakeMaster, tmp_path: Path) -> None:
    workdir, home, logs = tmp_path / "work", tmp_path / "home", tmp_path / "logs"
    for d in (workdir, home, logs):
        d.mkdir()
    env = task_env(master, workdir, home, "NOTEBOOK",
                   {"DET_NOTEBOOK_TOKEN": "nb-token", "DET_IDLE_REPORT_SECONDS": "0.5"})
    proc = start_runner("notebook", env, workdir, logs)
    try:
        port, headers = ready_port(master, proc, logs)
        assert headers["Authorization"] == "Bearer alloc-token"
        assert headers["Grpc-Metadata-x-allocation-token"] == "Bearer alloc-token"
        assert "version" in jupyter_call(port, "GET", "api", token=None)

        first_idle = wait_for_report(master, 0, True)
        assert idle_reports(master)[first_idle] == {"notebookId": "task-1", "idle": True}

        before = len(idle_reports(master))
        kernel = jupyter_call(port, "POST", "api/kernels")
        busy_at = wait_for_report(master, before, False)
        time.sleep(1.2)
        assert all(r["idle"] is False for r in idle_reports(master)[busy_at:]), \
            "idle while a kernel runs"

        probe = "import sys\nprint(sys.executable)\n"
        if subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode == 0:
            probe += "import torch\nprint('torch', torch.__version__)\n"
        out = run_in_kernel(port, kernel["id"], probe)
        assert out.splitlines()[0] == PYTHON
        assert "torch" not in probe or "torch " in out

        before = len(idle_reports(master))
        jupyter_call(port, "DELETE", f"api/kernels/{kernel['id']}")
        wait_for_report(master, before, True)

        # A kernel alive at SIGTERM: Jupyter must end it.
        kernel = jupyter_call(port, "POST", "api/kernels")
        assert run_in_kernel(port, kernel["id"], "print(6 * 7)") == "42\n"
    finally:
        code, leftovers = end_runner(proc)
    output = (logs / "notebook.out").read_bytes() + (logs / "notebook.err").read_bytes()
    assert leftovers == [], f"processes left after SIGTERM: {leftovers}"
    assert code == 0, output.decode(errors="replace")[-3000:]
    assert b"is running at" in output, "Jupyter's output reaches the task log"
    assert b"nb-token" not in output, "the token is not written into the task log"
    assert list(home.iterdir()) == [], "nothing is written into the home directory"
    assert (workdir / ".jupyter" / "runtime").is_dir()


# --- shell: pure parts -----------------------------------------------------------------------------


def test_quote_option_value() -> None:
    assert shell.quote_option_value('say "hi"') == 'say \\"hi\\"'
    assert shell.quote_option_value("a\\b") == "a\\b", "sshd keeps a backslash not before a quote"
    assert shell.quote_option_value('a\\"b') == 'a\\\\"b'
    for bad in ("ends\\", "two\nlines", "nul\0"):
        assert shell.quote_option_value(bad) is None


def test_session_env_filters() -> None:
    env, skipped = shell.session_env({
        "MY_VAR": "x", "PATH": "/usr/bin", "HOME": "/root", "USER": "u", "TERM": "xterm",
        "SSH_AUTH_SOCK": "/tmp/a", "PWD": "/", "DET_SHELL_AUTHORIZED_KEY": "ssh-rsa A",
        "BAD-NAME": "x", "MULTI": "a\nb", "TRAILING": "x\\",
    })
    assert env == {"MY_VAR": "x", "PATH": "/usr/bin"}
    assert skipped == ["BAD-NAME", "MULTI", "TRAILING"]


def test_authorized_keys_line() -> None:
    line = shell.authorized_keys_line("ssh-ed25519 AAAAC3 me@host\n", {"A": "1", "B": 'x "y"'})
    assert line == 'environment="A=1",environment="B=x \\"y\\"" ssh-ed25519 AAAAC3 me@host\n'
    assert shell.authorized_keys_line("ssh-rsa AAAA", {}) == "ssh-rsa AAAA\n"
    with pytest.raises(ValueError):
        shell.authorized_keys_line("ssh-rsa AAAA", {"A": "ends\\"})


def test_sshd_config() -> None:
    text = shell.sshd_config(2222, "/task/.det-sshd", "alice")
    lines = text.splitlines()
    for want in ["Port 2222", "ListenAddress 0.0.0.0", "HostKey /task/.det-sshd/ssh_host_ed25519_key",
                 "AuthorizedKeysFile /task/.det-sshd/authorized_keys", "AllowUsers alice",
                 "PermitUserEnvironment yes", "UsePAM no", "StrictModes no",
                 "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                 "PidFile /task/.det-sshd/sshd.pid", "PrintMotd no", "Subsystem sftp internal-sftp"]:
        assert want in lines
    assert "AuthorizedKeysFile /t%%/authorized_keys" in shell.sshd_config(1, "/t%", "a")


# --- shell: the real program -----------------------------------------------------------------------


@pytest.mark.skipif(not os.access(SSHD, os.X_OK) or shutil.which("ssh") is None,
                    reason=f"{SSHD} or ssh is not installed")
def test_shell_runner(master: FakeMaster, tmp_path: Path) -> None:
    workdir, home, logs = tmp_path / "work", tmp_path / "home", tmp_path / "logs"
    for d in (workdir, home, logs):
        d.mkdir()
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    tricky = 'hello "world" $HOME \\n back\\slash'
    env = task_env(master, workdir, home, "SHELL", {
        "DET_SHELL_AUTHORIZED_KEY": (tmp_path / "id_ed25519.pub").read_text(),
        "MY_VAR": tricky, "TWO_LINES": "a\nb", "ENDS_IN_BACKSLASH": "x\\",
    })
    proc = start_runner("shell", env, workdir, logs)
    try:
        port, _ = ready_port(master, proc, logs)
        state = workdir / ".det-sshd"
        assert state.stat().st_mode & 0o777 == 0o700
        import pwd

        user = pwd.getpwuid(os.geteuid()).pw_name
        opts = ["-i", str(key), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]
        ssh = ["ssh", "-p", str(port), *opts, f"{user}@127.0.0.1"]
        res = subprocess.run(ssh + ['printf "%s\\n" "$MY_VAR"; hostname; echo "$DET_TASK_ID";'
                                    'echo "$USER"; echo "${TWO_LINES-unset}"'],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        assert res.stdout.splitlines() == [tricky, socket.gethostname(), "task-1", user, "unset"]

        # The same through the tunnel as ssh's ProxyCommand, with a stand-in for the master's proxy.
        proxy = WebSocketServer()
        proxy.relay("task-1", port)
        tunnel_cmd = f"{PYTHON} -m determined.cli.tunnel http://127.0.0.1:{proxy.port} %h"
        res = subprocess.run(["ssh", *opts, "-o", f"ProxyCommand={tunnel_cmd}", f"{user}@task-1",
                              'echo "via the tunnel: $DET_TASK_ID"'],
                             env={**os.environ, "PYTHONPATH": PYTHON_DIR}, capture_output=True,
                             text=True, timeout=60)
        proxy.close()
        assert res.returncode == 0, res.stderr
        assert res.stdout == "via the tunnel: task-1\n"

        # A session alive at SIGTERM ends with the runner.
        sleeper = subprocess.Popen(ssh + ["sleep 120"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        wait_for(lambda: any(_cmdline(k[0]) == "sleep 120" for k in _runner.descendants(proc.pid)),
                 30, "the session's sleep")
    finally:
        code, leftovers = end_runner(proc)
    assert leftovers == [], f"processes left after SIGTERM: {leftovers}"
    assert sleeper.wait(timeout=30) != 0
    output = (logs / "shell.err").read_text(errors="replace")
    assert "Server listening on" in output
    assert "ENDS_IN_BACKSLASH" in output and "TWO_LINES" in output, "skipped variables are named"
    assert code == 0, output[-3000:]  # sshd exits 0 on SIGTERM


@pytest.mark.skipif(not os.access(SSHD, os.X_OK), reason=f"{SSHD} is not installed")
def test_shell_runner_ends_when_ready_is_refused(master: FakeMaster, tmp_path: Path) -> None:
    workdir, logs = tmp_path / "work", tmp_path / "logs"
    for d in (workdir, logs):
        d.mkdir()
    master.statuses["/api/v1/allocations/task-1.alloc-1/ready"] = [404]
    env = task_env(master, workdir, tmp_path, "SHELL", {"DET_SHELL_AUTHORIZED_KEY": "ssh-ed25519 AAAA"})
    proc = start_runner("shell", env, workdir, logs)
    assert proc.wait(timeout=60) == 1
    port = master.matching("POST", "/api/v1/allocations/task-1.alloc-1/ready")[0][3]["port"]
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    assert "HTTP 404" in (logs / "shell.err").read_text()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


# --- tunnel ------------------------------------------------------------------------------------


def test_websocket_url() -> None:
    assert tunnel.websocket_url("127.0.0.1:8080", "s1") == "ws://127.0.0.1:8080/proxy/s1/"
    assert tunnel.websocket_url("http://m:8080/", "s1") == "ws://m:8080/proxy/s1/"
    assert tunnel.websocket_url("https://m", "s1") == "wss://m/proxy/s1/"
    assert tunnel.websocket_url("m:443", "s1") == "wss://m:443/proxy/s1/"
    assert tunnel.websocket_url("https://m/det", "s1") == "wss://m/det/proxy/s1/"
    with pytest.raises(tunnel.TunnelError):
        tunnel.websocket_url("ftp://m", "s1")


def test_ssl_options_and_auth() -> None:
    assert tunnel.ssl_options(None, None) == {}
    assert tunnel.ssl_options("noverify", None)["check_hostname"] is False
    assert tunnel.ssl_options("/ca.pem", "master") == {"ca_certs": "/ca.pem",
                                                       "server_hostname": "master"}
    assert tunnel.auth_headers(False, {}) == []
    assert tunnel.auth_headers(True, {"DET_USER_TOKEN": "t"}) == ["Authorization: Bearer t"]
    with pytest.raises(tunnel.TunnelError, match="DET_USER_TOKEN"):
        tunnel.auth_headers(True, {})


class WebSocketServer:
    """A minimal stand-in for the master's proxy: on ``/proxy/svc-1/`` it echoes binary frames; on
    a path added with ``relay`` it carries frames to and from a TCP port (as the proxy does for a
    shell's sshd); other paths get 404. Records each handshake's headers."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.handshakes: List[Dict[str, str]] = []
        self.relays: Dict[str, int] = {}
        threading.Thread(target=self._accept, daemon=True).start()

    def relay(self, service_id: str, port: int) -> None:
        self.relays[f"/proxy/{service_id}/"] = port

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _read_exact(f: Any, n: int) -> bytes:
        data = f.read(n)
        if len(data) < n:
            raise EOFError
        return data

    @staticmethod
    def _send(conn: socket.socket, lock: threading.Lock, opcode: int, data: bytes) -> None:
        n = len(data)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([n])
        elif n < 65536:
            head += b"\x7e" + struct.pack("!H", n)
        else:
            head += b"\x7f" + struct.pack("!Q", n)
        with lock:
            conn.sendall(head + data)

    def _frames(self, f: Any) -> Iterator[Tuple[int, bytes]]:
        while True:
            b0, b1 = self._read_exact(f, 2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read_exact(f, 2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read_exact(f, 8))[0]
            mask = self._read_exact(f, 4)
            yield b0 & 0x0F, bytes(c ^ mask[i % 4] for i, c in enumerate(self._read_exact(f, n)))

    def _serve(self, conn: socket.socket) -> None:
        lock = threading.Lock()
        with conn, conn.makefile("rb") as f:
            path = f.readline().decode().split()[1]
            headers: Dict[str, str] = {}
            for line in iter(f.readline, b"\r\n"):
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            self.handshakes.append(headers)
            if path != "/proxy/svc-1/" and path not in self.relays:
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 17\r\n\r\nservice not found")
                return
            accept = base64.b64encode(hashlib.sha1(
                (headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()
            ).digest()).decode()
            conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n").encode())
            backend = (socket.create_connection(("127.0.0.1", self.relays[path]))
                       if path in self.relays else None)

            def from_backend() -> None:
                assert backend is not None
                try:
                    for chunk in iter(lambda: backend.recv(65536), b""):
                        self._send(conn, lock, 2, chunk)
                    self._send(conn, lock, 8, b"\x03\xe8")
                except OSError:
                    pass

            if backend is not None:
                threading.Thread(target=from_backend, daemon=True).start()
            try:
                for opcode, data in self._frames(f):
                    if opcode == 8:
                        self._send(conn, lock, 8, b"\x03\xe8")
                        return
                    if opcode in (1, 2):
                        if backend is not None:
                            backend.sendall(data)
                        else:
                            self._send(conn, lock, 2, data)
            except (EOFError, OSError):
                return
            finally:
                if backend is not None:
                    backend.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def echo() -> Iterator[WebSocketServer]:
    server = WebSocketServer()
    yield server
    server.close()


def run_tunnel(args: List[str], stdin: bytes, env_extra: Optional[Dict[str, str]] = None
               ) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": PYTHON_DIR, **(env_extra or {})}
    return subprocess.run([PYTHON, "-m", "determined.cli.tunnel", *args], input=stdin, env=env,
                          capture_output=True, timeout=60)


def test_tunnel_stdio(echo: WebSocketServer) -> None:
    payload = bytes(range(256)) * 40  # binary, and large enough for 16-bit frame lengths
    res = run_tunnel([f"127.0.0.1:{echo.port}", "svc-1", "--auth"], payload,
                     {"DET_USER_TOKEN": "user-token"})
    assert res.returncode == 0, res.stderr
    assert res.stdout == payload
    assert echo.handshakes[-1]["authorization"] == "Bearer user-token"


def test_tunnel_unknown_service(echo: WebSocketServer) -> None:
    res = run_tunnel([f"http://127.0.0.1:{echo.port}", "nope"], b"")
    assert res.returncode == 1
    assert res.stdout == b""
    err = res.stderr.decode().strip()
    assert "404" in err and len(err.splitlines()) == 1, err


def test_tunnel_listener(echo: WebSocketServer, tmp_path: Path) -> None:
    port = _runner.free_port()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": PYTHON_DIR}
    proc = subprocess.Popen([PYTHON, "-m", "determined.cli.tunnel", f"127.0.0.1:{echo.port}",
                             "svc-1", "--listener", str(port)], env=env,
                            stderr=subprocess.PIPE)
    try:
        def connect() -> Optional[socket.socket]:
            try:
                return socket.create_connection(("127.0.0.1", port), timeout=10)
            except OSError:
                return None

        for message in (b"first connection", b"second connection"):
            with wait_for(connect, 30, "the tunnel's listener") as conn:
                conn.sendall(message)
                got = b""
                while len(got) < len(message):
                    chunk = conn.recv(1024)
                    assert chunk, "the tunnel closed early"
                    got += chunk
                assert got == message
    finally:
        proc.terminate()
        proc.wait(timeout=10)
