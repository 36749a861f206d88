"""Starts the fake Kubernetes API server for a test, as a subprocess:

    from fake_kube.fixture import running_fake_apiserver

    with running_fake_apiserver(tmp_path, nodes=["gpu-1:cpu=8,gpu=4,memory=32Gi"]) as kube:
        kube.kubectl("get", "nodes")                 # CompletedProcess (text), never raises
        kube.post("/fake/fail", {"status": 500, "count": 1})
        master_config["kubeconfig_path"] = str(kube.kubeconfig)

A subprocess, not a thread, so that a test can SIGKILL the process under test (a master) without touching the
cluster, and so that pod processes inherit exactly the environment given: `env` is merged into this process's
environment for the server, and pods inherit the server's (PATH, PYTHONPATH, ...). The server's own output
goes to <tmp_path>/fake-kube/server.log; `handle.server_log()` reads it for a failing test's message.
"""
import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

SERVER = pathlib.Path(__file__).resolve().parent / "fake_apiserver.py"
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
START_TIMEOUT_S = 30


class FakeApiError(Exception):
    """An HTTP error from the fake server: .code and .status (the Status object, when there is one)."""

    def __init__(self, code, status):
        super().__init__(f"HTTP {code}: {status}")
        self.code = code
        self.status = status


class FakeApiServerHandle:
    """A running fake API server: where it is and how to talk to it."""

    def __init__(self, process, port, kubeconfig, state_dir, log_path, cache_dir):
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.kubeconfig = kubeconfig
        self.state_dir = state_dir
        self.log_path = log_path
        self._cache_dir = cache_dir

    def kubectl_args(self, *args):
        return [shutil.which("kubectl") or "kubectl", "--kubeconfig", str(self.kubeconfig),
                "--cache-dir", str(self._cache_dir), *map(str, args)]

    def kubectl(self, *args, timeout=60, input=None):
        """Runs kubectl against this server; returns the CompletedProcess (stdout/stderr as text)."""
        return subprocess.run(self.kubectl_args(*args), capture_output=True, text=True, timeout=timeout,
                              input=input)

    def kubectl_popen(self, *args):
        """Starts a long-running kubectl (get -w, logs -f); the caller ends it."""
        return subprocess.Popen(self.kubectl_args(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)

    def request(self, method, path, body=None, timeout=30):
        """(HTTP status, parsed JSON or text) of a request to the server; never raises on HTTP errors."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, _decode(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, _decode(e.read())

    def _checked(self, method, path, body=None):
        code, doc = self.request(method, path, body)
        if code >= 400:
            raise FakeApiError(code, doc)
        return doc

    def get(self, path):
        return self._checked("GET", path)

    def post(self, path, body=None):
        return self._checked("POST", path, body if body is not None else {})

    def delete(self, path):
        return self._checked("DELETE", path)

    def requests_log(self):
        """Every API request the server received: [{method, path, query, body, accept, content_type, time}]."""
        return self.get("/fake/requests")["requests"]

    def server_log(self):
        try:
            return self.log_path.read_text()
        except FileNotFoundError:
            return ""

    def stop(self, timeout=10):
        """SIGTERM (the server kills its pods' processes), SIGKILL if it does not exit in time; then kills any
        process group the server left behind (it records them in <state-dir>/process-groups/)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for group in (self.state_dir / "process-groups").glob("*"):
            try:
                os.killpg(int(group.name), signal.SIGKILL)
            except (ValueError, ProcessLookupError, PermissionError):
                pass
            group.unlink(missing_ok=True)


def _decode(data):
    try:
        return json.loads(data)
    except ValueError:
        return data.decode(errors="replace")


@contextlib.contextmanager
def running_fake_apiserver(tmp_path, nodes=("fake-node:cpu=8,memory=32Gi",), env=None, bad_images=(),
                           watch_history=None, extra_args=()):
    """Starts the server on a free port with its state under tmp_path/fake-kube; yields a FakeApiServerHandle
    and stops the server (and every pod process) on exit."""
    base = pathlib.Path(tmp_path) / "fake-kube"
    base.mkdir(parents=True, exist_ok=True)
    port_file, kubeconfig, state_dir = base / "port", base / "kubeconfig", base / "state"
    log_path = base / "server.log"
    port_file.unlink(missing_ok=True)
    args = [PYTHON, str(SERVER), "--port", "0", "--port-file", str(port_file), "--state-dir", str(state_dir),
            "--kubeconfig-out", str(kubeconfig)]
    for node in nodes:
        args += ["--node", node]
    for image in bad_images:
        args += ["--bad-image", image]
    if watch_history is not None:
        args += ["--watch-history", str(watch_history)]
    args += list(extra_args)
    full_env = dict(os.environ)
    full_env.update(env or {})
    with open(log_path, "ab") as log:
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=full_env,
                                   start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not port_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the fake API server did not start:\n{log_path.read_text()}")
        time.sleep(0.02)
    handle = FakeApiServerHandle(process, int(port_file.read_text()), kubeconfig, state_dir, log_path,
                                 base / "kubectl-cache")
    try:
        yield handle
    finally:
        handle.stop()
