"""The TensorBoard task's runner, ``python3 -m determined.exec.tensorboard``.

TensorBoard itself is not installed on this machine, so these tests cover everything around it:
the download of the trials' files from checkpoint storage into the log directory layout, the
message and exit status when TensorBoard is missing, and (with a stand-in script named
``tensorboard``, see ``_STAND_IN``) the command line, the ready report to the master, the periodic
refresh and the end on SIGTERM.
"""

import getpass
import http.server
import importlib.util
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

from determined._native import native
from determined.exec import tensorboard as runner

PREFIX_3_7 = "tensorboard/experiment/3/trial/7"


def _storage_config(root: pathlib.Path):
    return {"type": "shared_fs", "host_path": str(root)}


def _upload(config, prefix, files):
    """Stores `files` (name -> text) under `prefix`, as a trial's harness does."""
    storage = native().StorageManager(json.dumps(config))
    src = pathlib.Path(config["host_path"]).parent / "upload-src"
    for name, text in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        storage.upload_file(str(path), prefix, name)


def _tree(root: pathlib.Path):
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_fetch_downloads_every_source_into_the_log_dir_layout(tmp_path, capsys):
    config = _storage_config(tmp_path / "storage")
    _upload(config, PREFIX_3_7, {"events.out.tfevents.1": "a", "plugins/profile/x.pb": "p"})
    _upload(config, "tensorboard/experiment/3/trial/8", {"events.out.tfevents.2": "b"})
    logdir = tmp_path / "logs"
    sources = runner.parse_sources(
        json.dumps([
            {"experiment_id": 3, "trial_id": 7, "storage": config},
            {"experiment_id": 3, "trial_id": 8, "storage": config},
            {"experiment_id": 4, "trial_id": 9, "storage": {"type": "gcs", "bucket": "b"}},
        ]),
        logdir,
    )
    fetcher = runner.Fetcher(sources)
    assert fetcher.fetch() == 3
    assert _tree(logdir) == {
        "experiment_3/trial_7/events.out.tfevents.1": "a",
        "experiment_3/trial_7/plugins/profile/x.pb": "p",
        "experiment_3/trial_8/events.out.tfevents.2": "b",
    }
    out, err = capsys.readouterr()
    assert (
        f"downloaded 2 files from shared_fs at {tmp_path / 'storage'} {PREFIX_3_7}/ into "
        f"{logdir / 'experiment_3' / 'trial_7'}" in out
    )
    assert "downloaded 1 files from" in out
    # A storage that cannot be read is named; the others are fetched all the same.
    assert "cannot fetch the TensorBoard files of experiment 4 trial 9" in err
    assert "gcs" in err

    # Later fetches copy only new or changed files, and say nothing when there are none.
    assert fetcher.fetch() == 0
    assert "downloaded" not in capsys.readouterr().out
    _upload(config, PREFIX_3_7, {"events.out.tfevents.1": "a and more", "events.out.tfevents.3": "c"})
    assert fetcher.fetch() == 2
    assert (logdir / "experiment_3" / "trial_7" / "events.out.tfevents.1").read_text() == "a and more"
    assert (logdir / "experiment_3" / "trial_7" / "events.out.tfevents.3").read_text() == "c"


@pytest.mark.parametrize(
    "sources, message",
    [
        (None, "DET_TENSORBOARD_SOURCES is not set"),
        ("[{", "DET_TENSORBOARD_SOURCES: not JSON"),
        ('{"a": 1}', "DET_TENSORBOARD_SOURCES: must be a JSON list"),
        ('[{"experiment_id": 0, "trial_id": 1, "storage": {}}]', "DET_TENSORBOARD_SOURCES[0].experiment_id"),
        ('[{"experiment_id": 1, "trial_id": "x", "storage": {}}]', "DET_TENSORBOARD_SOURCES[0].trial_id"),
        ('[{"experiment_id": 1, "trial_id": 2}]', "DET_TENSORBOARD_SOURCES[0].storage"),
    ],
)
def test_malformed_sources_are_named(tmp_path, sources, message):
    with pytest.raises(runner.UsageError, match=message.replace("[", r"\[")):
        runner.parse_sources(sources, tmp_path)


def test_args_and_refresh_parsing():
    assert runner.parse_args(None) == []
    assert runner.parse_args('["--samples_per_plugin", "images=100"]') == ["--samples_per_plugin", "images=100"]
    with pytest.raises(runner.UsageError, match="DET_TENSORBOARD_ARGS"):
        runner.parse_args('"--x"')
    assert runner.parse_refresh(None) == 20
    assert runner.parse_refresh("0.5") == 0.5
    with pytest.raises(runner.UsageError, match="DET_TENSORBOARD_REFRESH_SECONDS"):
        runner.parse_refresh("0")


def _task_env(tmp_path, sources, master="http://127.0.0.1:1", **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
    # The runner imports the same determined package and native module as this test.
    import _determined
    import determined

    env["PYTHONPATH"] = os.pathsep.join(
        [str(pathlib.Path(determined.__file__).parents[1]), str(pathlib.Path(_determined.__file__).parent)]
    )
    env.update({
        "DET_MASTER": master,
        "DET_TASK_ID": "tb-task-1",
        "DET_ALLOCATION_ID": "tb-task-1.1",
        "DET_SESSION_TOKEN": "alloc-token",
        "DET_TASK_TYPE": "TENSORBOARD",
        "DET_TENSORBOARD_SOURCES": json.dumps(sources),
    })
    env.update(extra)
    return env


@pytest.mark.skipif(
    importlib.util.find_spec("tensorboard") is not None,
    reason="the tensorboard module is installed here: this test needs an environment without it",
)
def test_missing_tensorboard_is_one_clear_message_and_exit_1(tmp_path):
    config = _storage_config(tmp_path / "storage")
    _upload(config, PREFIX_3_7, {"events.out.tfevents.1": "a"})
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = _task_env(tmp_path, [{"experiment_id": 3, "trial_id": 7, "storage": config}], PATH=str(empty_bin))
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "determined.exec.tensorboard"],
        cwd=work, env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert time.monotonic() - start < 30, "it exits at once"
    assert "downloaded 1 files from" in proc.stdout
    assert (work / "logs" / "experiment_3" / "trial_7" / "events.out.tfevents.1").read_text() == "a"
    assert proc.stderr.strip().splitlines() == [
        "determined.exec.tensorboard: error: tensorboard is not installed in this task's environment: "
        f"no `tensorboard` on PATH and `import tensorboard` fails in {sys.executable}; install it "
        "(pip install tensorboard) or use an environment that has it"
    ]


# Stands in for the TensorBoard binary, which is not installed on this machine, in this unit test
# only: it records its arguments, prints the line TensorBoard prints once it serves, and exits 7
# on SIGTERM. It serves nothing.
_STAND_IN = """#!{python}
# Stand-in for `tensorboard` in python/tests/test_tensorboard_runner.py only (not a TensorBoard).
import json, os, signal, sys, time
with open(os.environ["STAND_IN_ARGV"], "w") as f:
    json.dump(sys.argv[1:], f)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(7))
port = sys.argv[sys.argv.index("--port") + 1]
print("stand-in starting", flush=True)
print("TensorBoard 0.0 (stand-in) at http://localhost:%s/proxy/tb-task-1/ (Press CTRL+C to quit)" % port,
      file=sys.stderr, flush=True)
while True:
    time.sleep(1)
"""


class _ReadyRecorder(http.server.BaseHTTPRequestHandler):
    posts = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _ReadyRecorder.posts.append((self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(body)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def _wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_launch_ready_refresh_and_sigterm_with_a_stand_in(tmp_path):
    config = _storage_config(tmp_path / "storage")
    _upload(config, PREFIX_3_7, {"events.out.tfevents.1": "a"})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / "tensorboard"
    stand_in.write_text(_STAND_IN.format(python=sys.executable))
    stand_in.chmod(0o755)

    _ReadyRecorder.posts = []
    master = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ReadyRecorder)
    threading.Thread(target=master.serve_forever, daemon=True).start()
    work = tmp_path / "work"
    work.mkdir()
    argv_file = tmp_path / "argv.json"
    env = _task_env(
        tmp_path,
        [{"experiment_id": 3, "trial_id": 7, "storage": config}],
        master=f"http://127.0.0.1:{master.server_port}",
        PATH=str(bin_dir),
        STAND_IN_ARGV=str(argv_file),
        DET_TENSORBOARD_ARGS='["--samples_per_plugin", "images=100"]',
        DET_TENSORBOARD_REFRESH_SECONDS="0.2",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "determined.exec.tensorboard"],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert _wait_for(lambda: _ReadyRecorder.posts), "no ready report"
        path, headers, body = _ReadyRecorder.posts[0]
        assert path == "/api/v1/allocations/tb-task-1.1/ready"
        assert headers["authorization"] == "Bearer alloc-token"  # docs/interactive.md
        # The header the master's authenticator reads allocation tokens from today.
        assert headers["grpc-metadata-x-allocation-token"] == "Bearer alloc-token"
        argv = json.loads(argv_file.read_text())
        port = argv[argv.index("--port") + 1]
        assert body == {"port": int(port), "user": getpass.getuser()}
        assert argv == [
            "--logdir", str(work / "logs"),
            "--port", port,
            "--bind_all",
            "--path_prefix", "/proxy/tb-task-1",
            "--load_fast", "false",
            "--samples_per_plugin", "images=100",
        ]
        assert (work / "logs" / "experiment_3" / "trial_7" / "events.out.tfevents.1").read_text() == "a"

        # Files the trial uploads later arrive with the next refresh.
        _upload(config, PREFIX_3_7, {"events.out.tfevents.2": "b"})
        later = work / "logs" / "experiment_3" / "trial_7" / "events.out.tfevents.2"
        assert _wait_for(lambda: later.exists() and later.read_text() == "b"), "not refreshed"

        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        master.shutdown()
    assert proc.returncode == 7, out + err  # the stand-in's status on SIGTERM
    assert "stand-in starting" in out, "TensorBoard's output is forwarded"
    assert "TensorBoard 0.0 (stand-in) at http://localhost:" in err
    assert len(_ReadyRecorder.posts) == 1


def test_is_serving_line():
    assert runner.is_serving_line("TensorBoard 2.15.1 at http://host:6006/proxy/x/ (Press CTRL+C to quit)")
    assert not runner.is_serving_line("TensorFlow installation not found - running with reduced feature set.")
