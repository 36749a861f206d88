"""
The runner of a TensorBoard task: ``python3 -m determined.exec.tensorboard`` (docs/interactive.md).

What it reads from the environment:

- ``DET_TENSORBOARD_SOURCES`` (required): a JSON list of
  ``{"experiment_id": E, "trial_id": T, "storage": {checkpoint_storage config}}``;
- ``DET_TENSORBOARD_ARGS``: a JSON list of extra TensorBoard arguments (default ``[]``);
- ``DET_TENSORBOARD_REFRESH_SECONDS``: how often new files are fetched (default 20);
- ``DET_MASTER``, ``DET_TASK_ID``, ``DET_ALLOCATION_ID``, ``DET_SESSION_TOKEN`` (and, for an https
  master, ``DET_MASTER_CERT_FILE`` / ``DET_MASTER_CERT_NAME``), set in every task.

What it does:

1. Downloads every source's files, which its trial uploaded to ``tensorboard/experiment/E/trial/T/``
   in the experiment's checkpoint storage, into ``<cwd>/logs/experiment_E/trial_T/``.
2. Checks that TensorBoard is installed (a ``tensorboard`` executable on PATH, or the ``tensorboard``
   module for this Python); if not, says so and exits 1.
3. Runs ``tensorboard --logdir <cwd>/logs --port P --bind_all --path_prefix /proxy/$DET_TASK_ID
   --load_fast false <extra args>`` on a free port P and forwards its output.
4. Once TensorBoard says it serves (a line with "TensorBoard" and "http://"), POSTs
   ``{"port": P}`` to ``$DET_MASTER/api/v1/allocations/$DET_ALLOCATION_ID/ready``, whereupon the
   master proxies ``/proxy/$DET_TASK_ID/`` to it.
5. Fetches new or changed files every refresh period until TensorBoard exits; SIGTERM (or SIGINT)
   ends TensorBoard. Exits with TensorBoard's exit status (128 + N when signal N ended it).
"""

import importlib.util
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
from typing import Any, Callable, Dict, IO, List, Mapping, Optional, Tuple

from determined.exec import _runner

DEFAULT_REFRESH_SECONDS = 20.0

MISSING_TENSORBOARD = (
    "tensorboard is not installed in this task's environment: no `tensorboard` on PATH and "
    "`import tensorboard` fails in {python}; install it (pip install tensorboard) or use an "
    "environment that has it"
)


class UsageError(Exception):
    """A missing or malformed environment variable: printed, and the runner exits 1."""


def log(msg: str) -> None:
    print(f"determined.exec.tensorboard: {msg}", flush=True)


def log_error(msg: str) -> None:
    print(f"determined.exec.tensorboard: error: {msg}", file=sys.stderr, flush=True)


class Source:
    """One trial's TensorBoard files: where they are stored and where they go locally."""

    def __init__(self, experiment_id: int, trial_id: int, storage: Dict[str, Any], logdir: pathlib.Path):
        self.experiment_id = experiment_id
        self.trial_id = trial_id
        self.storage = storage
        self.prefix = f"tensorboard/experiment/{experiment_id}/trial/{trial_id}"
        self.local_dir = logdir / f"experiment_{experiment_id}" / f"trial_{trial_id}"


def parse_sources(text: Optional[str], logdir: pathlib.Path) -> List[Source]:
    if not text:
        raise UsageError(
            "DET_TENSORBOARD_SOURCES is not set: the master sets it to the JSON list of the "
            "trials to show, [{experiment_id, trial_id, storage}...]"
        )
    try:
        items = json.loads(text)
    except ValueError as e:
        raise UsageError(f"DET_TENSORBOARD_SOURCES: not JSON ({e})") from None
    if not isinstance(items, list):
        raise UsageError("DET_TENSORBOARD_SOURCES: must be a JSON list")
    sources = []
    for i, item in enumerate(items):
        where = f"DET_TENSORBOARD_SOURCES[{i}]"
        if not isinstance(item, dict):
            raise UsageError(f"{where}: must be an object with experiment_id, trial_id, storage")
        ids = []
        for key in ("experiment_id", "trial_id"):
            value = item.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{where}.{key}: must be a positive integer, got {value!r}")
            ids.append(value)
        storage = item.get("storage")
        if not isinstance(storage, dict):
            raise UsageError(f"{where}.storage: must be a checkpoint_storage object, got {storage!r}")
        sources.append(Source(ids[0], ids[1], storage, logdir))
    return sources


def parse_args(text: Optional[str]) -> List[str]:
    if not text:
        return []
    try:
        args = json.loads(text)
    except ValueError as e:
        raise UsageError(f"DET_TENSORBOARD_ARGS: not JSON ({e})") from None
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise UsageError(f"DET_TENSORBOARD_ARGS: must be a JSON list of strings, got {text}")
    return args


def parse_refresh(text: Optional[str]) -> float:
    if not text:
        return DEFAULT_REFRESH_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise UsageError(f"DET_TENSORBOARD_REFRESH_SECONDS: must be a positive number, got {text!r}")
    return seconds


class Fetcher:
    """
    Copies the sources' stored files into their local directories; each later fetch copies only
    files that are new or whose stored size or version changed.
    """

    def __init__(self, sources: List[Source], make_storage: Optional[Callable[[str], Any]] = None):
        if make_storage is None:
            from determined._native import native

            make_storage = native().StorageManager
        self._sources = sources
        self._make_storage = make_storage
        self._storages: Dict[str, Any] = {}  # by the storage config's JSON
        self._fetched: Dict[Tuple[int, str], Tuple[int, str]] = {}  # (source, path) -> (size, version)
        self._fetches = 0

    def _storage(self, source: Source) -> Any:
        key = json.dumps(source.storage, sort_keys=True)
        if key not in self._storages:
            self._storages[key] = self._make_storage(key)
        return self._storages[key]

    def fetch(self) -> int:
        """Fetches every source once; returns how many files it copied. Errors are printed."""
        first = self._fetches == 0
        self._fetches += 1
        total = 0
        for i, source in enumerate(self._sources):
            try:
                storage = self._storage(source)
                stored = storage.list_files(source.prefix)
                new = [
                    f for f in stored
                    if self._fetched.get((i, f["path"])) != (f["size"], f["version"])
                ]
                source.local_dir.mkdir(parents=True, exist_ok=True)
                if new:
                    storage.download_files(source.prefix, [f["path"] for f in new], str(source.local_dir))
                for f in new:
                    self._fetched[(i, f["path"])] = (f["size"], f["version"])
            except Exception as e:
                log_error(
                    f"cannot fetch the TensorBoard files of experiment {source.experiment_id} "
                    f"trial {source.trial_id} from {source.prefix}/ ({e}); retrying later"
                )
                continue
            total += len(new)
            if first or new:
                log(
                    f"downloaded {len(new)} files from {storage.describe()} "
                    f"{source.prefix}/ into {source.local_dir}"
                )
        return total


def find_tensorboard() -> Optional[List[str]]:
    """The command that runs TensorBoard, or None when it is not installed."""
    exe = shutil.which("tensorboard")
    if exe is not None:
        return [exe]
    if importlib.util.find_spec("tensorboard") is not None:
        return [sys.executable, "-m", "tensorboard.main"]
    return None


def tensorboard_command(
    tensorboard: List[str], logdir: pathlib.Path, port: int, task_id: str, extra_args: List[str]
) -> List[str]:
    return tensorboard + [
        "--logdir", str(logdir),
        "--port", str(port),
        "--bind_all",
        "--path_prefix", f"/proxy/{task_id}",
        "--load_fast", "false",
    ] + extra_args


def is_serving_line(line: str) -> bool:
    return "TensorBoard" in line and "http://" in line


def _forward(stream: IO[str], out: IO[str], on_line: Callable[[str], None]) -> None:
    for line in stream:
        out.write(line)
        out.flush()
        on_line(line)


def run(env: Mapping[str, str]) -> int:
    logdir = pathlib.Path.cwd() / "logs"
    try:
        sources = parse_sources(env.get("DET_TENSORBOARD_SOURCES"), logdir)
        extra_args = parse_args(env.get("DET_TENSORBOARD_ARGS"))
        refresh = parse_refresh(env.get("DET_TENSORBOARD_REFRESH_SECONDS"))
        for name in ("DET_MASTER", "DET_TASK_ID", "DET_ALLOCATION_ID", "DET_SESSION_TOKEN"):
            if not env.get(name):
                raise UsageError(f"{name} is not set (the master sets it in every task)")
    except UsageError as e:
        log_error(str(e))
        return 1

    logdir.mkdir(parents=True, exist_ok=True)
    fetcher = Fetcher(sources)
    fetcher.fetch()

    tensorboard = find_tensorboard()
    if tensorboard is None:
        log_error(MISSING_TENSORBOARD.format(python=sys.executable))
        return 1

    port = _runner.free_port()
    master = _runner.MasterClient(env["DET_MASTER"], env["DET_SESSION_TOKEN"], env.get("DET_MASTER_CERT_FILE"),
                                  env.get("DET_MASTER_CERT_NAME"))
    cmd = tensorboard_command(tensorboard, logdir, port, env["DET_TASK_ID"], extra_args)
    log(f"running {' '.join(cmd)}")
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1, errors="replace"
    )

    stopping = threading.Event()
    ready_lock = threading.Lock()
    ready = {"sent": False, "failed": False}

    def end_tensorboard(*_: Any) -> None:
        stopping.set()
        if proc.poll() is None:
            proc.terminate()

    def on_line(line: str) -> None:
        if not is_serving_line(line):
            return
        with ready_lock:
            if ready["sent"]:
                return
            ready["sent"] = True
        if not _runner.report_ready(master, env["DET_ALLOCATION_ID"], port):
            log_error("cannot tell the master that TensorBoard is ready; stopping it")
            ready["failed"] = True
            end_tensorboard()

    signal.signal(signal.SIGTERM, end_tensorboard)
    signal.signal(signal.SIGINT, end_tensorboard)
    readers = [
        threading.Thread(target=_forward, args=(proc.stdout, sys.stdout, on_line), daemon=True),
        threading.Thread(target=_forward, args=(proc.stderr, sys.stderr, on_line), daemon=True),
    ]
    for r in readers:
        r.start()

    def refresh_loop() -> None:
        while not stopping.wait(refresh):
            fetcher.fetch()

    threading.Thread(target=refresh_loop, daemon=True).start()

    rc = proc.wait()
    stopping.set()
    for r in readers:
        r.join(timeout=10)
    if ready["failed"]:
        return 1
    if rc < 0:
        rc = 128 - rc
    log(f"TensorBoard exited with status {rc}")
    return rc


def main() -> None:
    sys.exit(run(os.environ))


if __name__ == "__main__":
    main()
