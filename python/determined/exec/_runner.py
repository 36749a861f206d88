"""What the task runners (``notebook``, ``shell``) share: the master client, a free port, forwarding
the server's output into the task's logs, and ending the server with everything it started.

Only the standard library is used, so the runners work with any Python the task PATH offers.
"""
import getpass
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import IO, Any, Callable, Dict, List, Optional, Tuple


def log(msg: str) -> None:
    """Prints one line of the runner's own to stderr (a task log line), flushed at once."""
    print(f"[runner] {msg}", file=sys.stderr, flush=True)


def require_env(names: List[str]) -> Dict[str, str]:
    """Returns the named environment variables; exits 2 with a message naming any that is missing."""
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        sys.exit(f"[runner] not set: {', '.join(missing)} (the master sets them for every task; "
                 "this program runs inside a task)")
    return {n: os.environ[n] for n in names}


def free_port() -> int:
    """A TCP port free on all interfaces right now (bind port 0, read it, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("0.0.0.0", 0))
        return int(s.getsockname()[1])


def tls_context(cert_file: Optional[str], cert_name: Optional[str]) -> ssl.SSLContext:
    """The TLS settings of DET_MASTER_CERT_FILE (a CA file, or ``noverify``) and DET_MASTER_CERT_NAME
    (the name the master's certificate is checked against instead of the host in DET_MASTER)."""
    if cert_file == "noverify":
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    ctx = ssl.create_default_context(cafile=cert_file or None)
    if cert_name:
        wrap = ctx.wrap_socket

        def wrap_as(sock: socket.socket, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
            kwargs["server_hostname"] = cert_name
            return wrap(sock, *args, **kwargs)

        ctx.wrap_socket = wrap_as  # type: ignore[method-assign]
    return ctx


class MasterClient:
    """Calls the master's REST API with the allocation token (DET_SESSION_TOKEN).

    The token goes both as ``Authorization: Bearer`` (docs/interactive.md) and as
    ``Grpc-Metadata-x-allocation-token: Bearer`` (what the master's authenticator and the harness use
    for allocation tokens), so either reading of the contract authenticates the call.
    """

    def __init__(self, master_url: str, token: str, cert_file: Optional[str] = None,
                 cert_name: Optional[str] = None, timeout: float = 10.0) -> None:
        self.url = master_url.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._ctx = tls_context(cert_file, cert_name) if self.url.startswith("https:") else None

    @classmethod
    def from_env(cls) -> "MasterClient":
        """The master of the task this process runs in (DET_MASTER, DET_SESSION_TOKEN,
        DET_MASTER_CERT_FILE, DET_MASTER_CERT_NAME)."""
        env = require_env(["DET_MASTER", "DET_SESSION_TOKEN"])
        return cls(env["DET_MASTER"], env["DET_SESSION_TOKEN"],
                   os.environ.get("DET_MASTER_CERT_FILE"), os.environ.get("DET_MASTER_CERT_NAME"))

    def call(self, method: str, path: str, body: Any) -> Tuple[int, str]:
        """Sends ``body`` as JSON; returns (HTTP status, response text). Raises OSError (URLError
        included) when the master cannot be reached."""
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method=method)
        req.add_header("Content-Type", "application/json")
        req.add_header("Authorization", f"Bearer {self._token}")
        req.add_header("Grpc-Metadata-x-allocation-token", f"Bearer {self._token}")
        try:
            with urllib.request.urlopen(req, timeout=self._timeout, context=self._ctx) as resp:
                return resp.status, resp.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")


def quote_id(value: str) -> str:
    """An id as one URL path segment."""
    return urllib.parse.quote(value, safe="")


def report_ready(master: MasterClient, allocation_id: str, port: int, attempts: int = 8,
                 delay: float = 0.5) -> bool:
    """``POST /api/v1/allocations/{allocation_id}/ready {"port": port, "user": <this OS user>}``
    (the user is the one a shell's sshd lets in: the shell's agentUserGroup). Retries with backoff
    (0.5 s doubling to 8 s) while the master cannot be reached or answers 5xx, 408 or 429; another
    4xx is final. Prints what happened; returns whether the master accepted it."""
    path = f"/api/v1/allocations/{quote_id(allocation_id)}/ready"
    for attempt in range(1, attempts + 1):
        try:
            status, text = master.call("POST", path, {"port": port, "user": getpass.getuser()})
        except OSError as e:
            status, text = 0, str(e)
        if 200 <= status < 300:
            log(f"reported ready on port {port} to {master.url}")
            return True
        log(f"reporting ready on port {port} failed (attempt {attempt}/{attempts}): "
            f"{'HTTP ' + str(status) if status else 'cannot reach the master'}: {text.strip()[:300]}")
        if 400 <= status < 500 and status not in (408, 429):
            return False
        if attempt < attempts:
            time.sleep(min(delay * 2 ** (attempt - 1), 8.0))
    return False


def forward(src: IO[bytes], dst: IO[bytes], redact: bytes = b"",
            on_line: Optional[Callable[[str], None]] = None) -> threading.Thread:
    """Starts a daemon thread copying ``src`` to ``dst`` line by line (each flushed, so it reaches
    the task log at once), replacing ``redact`` (a secret, when non-empty) by ``...``, and calling
    ``on_line`` with each line as text."""

    def run() -> None:
        for line in iter(src.readline, b""):
            if redact:
                line = line.replace(redact, b"...")
            dst.write(line)
            dst.flush()
            if on_line is not None:
                on_line(line.decode(errors="replace"))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


# --- processes --------------------------------------------------------------------------------

_ProcKey = Tuple[int, str]  # (pid, start time from /proc/PID/stat): a pid that was not reused


def _stat(pid: int) -> Optional[List[str]]:
    """Fields of /proc/PID/stat after the command name (state first), or None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def descendants(pid: int) -> List[_ProcKey]:
    """Every live descendant of ``pid`` (children, their children, ...), read from /proc."""
    children: Dict[int, List[_ProcKey]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat(int(name))
            if fields is not None and fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append((int(name), fields[19]))
    found: List[_ProcKey] = []
    todo = [pid]
    while todo:
        for key in children.get(todo.pop(), []):
            found.append(key)
            todo.append(key[0])
    return found


def _alive(key: _ProcKey) -> bool:
    fields = _stat(key[0])
    return fields is not None and fields[0] != "Z" and fields[19] == key[1]


def _signal_all(keys: List[_ProcKey], sig: int) -> None:
    for key in keys:
        if _alive(key):
            try:
                os.kill(key[0], sig)
            except OSError:
                pass


def _wait_gone(keys: List[_ProcKey], timeout: float) -> List[_ProcKey]:
    deadline = time.monotonic() + timeout
    left = [k for k in keys if _alive(k)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [k for k in left if _alive(k)]
    return left


def end_process_tree(proc: "subprocess.Popen[bytes]", grace: float, whole_tree_at_once: bool) -> int:
    """Ends ``proc`` and every process it started, and returns proc's exit status.

    SIGTERM goes to ``proc`` (and at once to all its descendants when ``whole_tree_at_once``; else
    ``proc`` gets ``grace`` seconds to end them itself, as Jupyter shuts its kernels down). After
    that, descendants still alive get SIGTERM, then SIGKILL 3 s later; ``proc`` gets SIGKILL when
    it outlives ``grace``. Descendants are taken from /proc first, because those that started
    sessions of their own (kernels, sshd's sessions) escape the task's process group and would be
    lost once ``proc`` is gone.
    """
    tree = descendants(proc.pid)
    proc.terminate()
    if whole_tree_at_once:
        _signal_all(tree, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        log(f"pid {proc.pid} outlived {grace:g} s after SIGTERM; killing it")
        proc.kill()
        proc.wait()
    left = _wait_gone(tree, 0.0 if whole_tree_at_once else 1.0)
    _signal_all(left, signal.SIGTERM)
    left = _wait_gone(left, 3.0)
    if left:
        log(f"killing {len(left)} leftover process(es): {[k[0] for k in left]}")
        _signal_all(left, signal.SIGKILL)
    return exit_status(proc.returncode)


def exit_status(returncode: int) -> int:
    """A Popen returncode as a shell exit status (killed by signal N: 128+N)."""
    return 128 - returncode if returncode < 0 else returncode


def stop_on_signals(stop: threading.Event) -> None:
    """From now on SIGTERM, SIGINT and SIGHUP set ``stop`` (for ``supervise``). Call from the main
    thread before starting the server, so that a signal never finds the runner unprepared."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        # The handler only records the request: waiting for the child inside a signal handler
        # would re-enter Popen.wait, which holds a lock while it blocks.
        signal.signal(sig, lambda _signum, _frame: stop.set())


def supervise(proc: "subprocess.Popen[bytes]", grace: float, whole_tree_at_once: bool,
              stop: threading.Event) -> int:
    """Waits for ``proc`` and returns its exit status; once ``stop`` is set (by ``stop_on_signals``
    or by the runner), ends it with ``end_process_tree`` first."""
    while True:
        try:
            return exit_status(proc.wait(timeout=0.2))
        except subprocess.TimeoutExpired:
            pass
        if stop.is_set():
            return end_process_tree(proc, grace, whole_tree_at_once)


def run_server(name: str, cmd: List[str], port: int, ready_marker: str, master: MasterClient,
               allocation_id: str, grace: float, whole_tree_at_once: bool,
               proc_env: Optional[Dict[str, str]] = None, redact: bytes = b"",
               while_ready: Optional[Callable[[threading.Event], None]] = None) -> int:
    """Runs the server a task serves (Jupyter, sshd) on ``port`` until it exits or the runner is
    told to stop: forwards its output (``redact`` hidden), reports ready once a line contains
    ``ready_marker``, then runs ``while_ready(stop)`` (e.g. idle reports) on a thread. Returns the
    server's exit status, or 1 when the master refused the ready report (the server is then ended)."""
    stop, started, failed = threading.Event(), threading.Event(), threading.Event()
    stop_on_signals(stop)
    log(f"starting {name} on port {port}: {' '.join(cmd)}")
    proc = subprocess.Popen(cmd, env=proc_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)

    def after_ready() -> None:
        if not report_ready(master, allocation_id, port):
            log(f"the master did not take the ready report; ending {name}")
            failed.set()
            stop.set()
            return
        if while_ready is not None:
            while_ready(stop)

    def on_line(line: str) -> None:
        if not started.is_set() and ready_marker in line:
            started.set()
            threading.Thread(target=after_ready, daemon=True).start()

    assert proc.stdout is not None and proc.stderr is not None
    copiers = [forward(proc.stdout, sys.stdout.buffer, redact, on_line),
               forward(proc.stderr, sys.stderr.buffer, redact, on_line)]
    code = supervise(proc, grace=grace, whole_tree_at_once=whole_tree_at_once, stop=stop)
    stop.set()
    for t in copiers:
        t.join(timeout=2.0)
    log(f"{name} exited with status {code}")
    return 1 if failed.is_set() else code
