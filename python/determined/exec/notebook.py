"""
``python3 -m determined.exec.notebook``: the program a notebook task runs (docs/interactive.md).

It starts Jupyter's classic notebook server on a free port under the base URL ``/proxy/{DET_TASK_ID}/``
with the token DET_NOTEBOOK_TOKEN, forwards its output to the task log (the token shown as ``...``),
reports ``POST /api/v1/allocations/{DET_ALLOCATION_ID}/ready {"port": P}`` once Jupyter serves, and then
every DET_IDLE_REPORT_SECONDS (default 30) ``PUT /api/v1/notebooks/{DET_TASK_ID}/report_idle`` by
DET_NOTEBOOK_IDLE_TYPE. SIGTERM ends Jupyter (which ends its kernels); the exit status is Jupyter's.

Jupyter's runtime, data and config directories and IPython's directory live in ``.jupyter`` and
``.ipython`` of the task directory (DET_WORKDIR, else the working directory) unless the task's
environment sets them, so nothing is written to the home directory.
"""
import dataclasses
import datetime
import json
import os
import shutil
import sys
import threading
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

from determined.exec import _runner

IDLE_TYPES = ("kernels_or_terminals", "kernel_connections", "activity")


@dataclasses.dataclass(frozen=True)
class IdleState:
    """What the ``activity`` rule remembers between checks: the newest ``last_activity`` seen."""

    checked: bool = False
    newest_activity: Optional[datetime.datetime] = None


def _parse_time(value: Any) -> Optional[datetime.datetime]:
    if not isinstance(value, str):
        return None
    try:
        t = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)


def newest_activity(kernels: List[Dict[str, Any]],
                    terminals: List[Dict[str, Any]]) -> Optional[datetime.datetime]:
    """The latest ``last_activity`` over kernels and terminals (None when there is none)."""
    times = [t for t in (_parse_time(x.get("last_activity")) for x in kernels + terminals) if t]
    return max(times) if times else None


def decide_idle(idle_type: str, kernels: List[Dict[str, Any]], terminals: List[Dict[str, Any]],
                sessions: List[Dict[str, Any]], state: IdleState) -> Tuple[bool, IdleState]:
    """Whether the notebook is idle, from Jupyter's /api/kernels, /api/terminals, /api/sessions.

    - ``kernels_or_terminals``: idle iff there is no kernel, no terminal and no session.
    - ``kernel_connections``: idle iff no kernel has a client connected (``connections`` == 0).
    - ``activity``: idle iff no kernel is ``busy`` and the newest ``last_activity`` is the same as at
      the previous check; the first check is never idle (there is nothing to compare with).

    Pure: returns the answer and the state to pass to the next check. Raises ValueError on an
    unknown idle type.
    """
    if idle_type == "kernels_or_terminals":
        return not (kernels or terminals or sessions), state
    if idle_type == "kernel_connections":
        return all(int(k.get("connections", 0) or 0) == 0 for k in kernels), state
    if idle_type == "activity":
        newest = newest_activity(kernels, terminals)
        busy = any(k.get("execution_state") == "busy" for k in kernels)
        unchanged = state.checked and newest == state.newest_activity
        return (not busy and unchanged), IdleState(checked=True, newest_activity=newest)
    raise ValueError(f"DET_NOTEBOOK_IDLE_TYPE: must be one of {', '.join(IDLE_TYPES)}, "
                     f"got {idle_type!r}")


def jupyter_command(jupyter: str, port: int, task_id: str, notebook_dir: str,
                    as_root: bool) -> List[str]:
    """The notebook server's command line. The token is not on it (it would show in ``ps`` to every
    user of the host): Jupyter reads it from JUPYTER_TOKEN, see ``jupyter_env``."""
    cmd = [jupyter, "--no-browser", "--ip", "0.0.0.0", "--port", str(port), "--port-retries", "0",
           f"--NotebookApp.base_url=/proxy/{task_id}/", f"--NotebookApp.notebook_dir={notebook_dir}",
           "--NotebookApp.allow_origin=*", "--NotebookApp.trust_xheaders=True"]
    return cmd + ["--allow-root"] if as_root else cmd


def jupyter_env(environ: Dict[str, str], state_dir: str, token: str) -> Dict[str, str]:
    """Jupyter's environment: the task's, plus its token and per-task state directories (those the
    task's own environment already sets are kept)."""
    env = dict(environ)
    env["JUPYTER_TOKEN"] = token
    defaults = {
        "JUPYTER_RUNTIME_DIR": os.path.join(state_dir, ".jupyter", "runtime"),
        "JUPYTER_DATA_DIR": os.path.join(state_dir, ".jupyter", "data"),
        "JUPYTER_CONFIG_DIR": os.path.join(state_dir, ".jupyter", "config"),
        "IPYTHONDIR": os.path.join(state_dir, ".ipython"),
    }
    for k, v in defaults.items():
        env.setdefault(k, v)
    return env


class JupyterClient:
    """Reads Jupyter's REST API on 127.0.0.1 with the notebook token."""

    def __init__(self, port: int, task_id: str, token: str) -> None:
        self._base = f"http://127.0.0.1:{port}/proxy/{task_id}/api"
        self._token = token

    def list(self, what: str) -> List[Dict[str, Any]]:
        """GET /api/{what}; a 404 (terminals disabled) reads as an empty list."""
        req = urllib.request.Request(f"{self._base}/{what}")
        req.add_header("Authorization", f"token {self._token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                value = json.loads(resp.read())
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return []
            raise
        return value if isinstance(value, list) else []


def report_idle_loop(master: _runner.MasterClient, jupyter: JupyterClient, task_id: str,
                     idle_type: str, period: float, stop: threading.Event) -> None:
    """Every ``period`` seconds until ``stop``: asks Jupyter, decides, and PUTs report_idle. Failures
    are printed and the loop goes on; a change of the idle answer is printed too."""
    state = IdleState()
    last: Optional[bool] = None
    path = f"/api/v1/notebooks/{_runner.quote_id(task_id)}/report_idle"
    while not stop.wait(period):
        try:
            kernels, terminals, sessions = (jupyter.list(w)
                                            for w in ("kernels", "terminals", "sessions"))
        except (OSError, ValueError) as e:
            _runner.log(f"asking Jupyter whether it is idle failed: {e}")
            continue
        idle, state = decide_idle(idle_type, kernels, terminals, sessions, state)
        try:
            status, text = master.call("PUT", path, {"notebookId": task_id, "idle": idle})
        except OSError as e:
            status, text = 0, str(e)
        if not 200 <= status < 300:
            reason = f"HTTP {status}" if status else "cannot reach the master"
            _runner.log(f"report_idle (idle={idle}) failed: {reason}: {text.strip()[:300]}")
        elif idle != last:
            _runner.log(f"reported idle={str(idle).lower()} ({idle_type})")
            last = idle


def _settings() -> Tuple[str, float]:
    idle_type = os.environ.get("DET_NOTEBOOK_IDLE_TYPE") or "kernels_or_terminals"
    if idle_type not in IDLE_TYPES:
        _runner.log(f"DET_NOTEBOOK_IDLE_TYPE: must be one of {', '.join(IDLE_TYPES)}, "
                    f"got {idle_type!r}; using kernels_or_terminals")
        idle_type = "kernels_or_terminals"
    raw = os.environ.get("DET_IDLE_REPORT_SECONDS") or "30"
    try:
        period = float(raw)
        if not period > 0:
            raise ValueError
    except ValueError:
        _runner.log(f"DET_IDLE_REPORT_SECONDS: must be a number > 0, got {raw!r}; using 30")
        period = 30.0
    return idle_type, period


def main() -> int:
    """Runs the notebook task; returns Jupyter's exit status (1 when the master refused ready)."""
    env = _runner.require_env(["DET_MASTER", "DET_TASK_ID", "DET_ALLOCATION_ID", "DET_SESSION_TOKEN",
                               "DET_NOTEBOOK_TOKEN"])
    master = _runner.MasterClient.from_env()
    idle_type, period = _settings()
    jupyter = shutil.which("jupyter-notebook")
    if jupyter is None:
        sys.exit("[runner] jupyter-notebook is not on PATH (install Debian's jupyter-notebook)")
    task_id, token = env["DET_TASK_ID"], env["DET_NOTEBOOK_TOKEN"]
    cwd = os.getcwd()
    port = _runner.free_port()
    cmd = jupyter_command(jupyter, port, task_id, cwd, os.geteuid() == 0)
    proc_env = jupyter_env(dict(os.environ), os.environ.get("DET_WORKDIR") or cwd, token)
    client = JupyterClient(port, task_id, token)
    return _runner.run_server(
        "Jupyter", cmd, port, "is running at", master, env["DET_ALLOCATION_ID"], grace=15.0,
        whole_tree_at_once=False, proc_env=proc_env, redact=token.encode(),
        while_ready=lambda stop: report_idle_loop(master, client, task_id, idle_type, period, stop))


if __name__ == "__main__":
    sys.exit(main())
