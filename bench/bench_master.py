"""Shared by the database benchmarks: start a bare determined-master (no agents) on a data directory,
log in, read its CPU time, stop it.

The binaries come from $DET_BIN_DIR (default build/bin); copy them elsewhere first if build/ is being
rebuilt while you measure."""
import contextlib
import json
import os
import pathlib
import signal
import subprocess
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))


def login(url, username="determined"):
    req = urllib.request.Request(f"{url}/api/v1/auth/login", method="POST",
                                 data=json.dumps({"username": username, "password": ""}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())["token"]


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far (from /proc)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Master:
    def __init__(self, proc, url, startup_s):
        self.proc, self.url, self.startup_s = proc, url, startup_s
        self.pid = proc.pid
        self.port = int(url.rsplit(":", 1)[1])


@contextlib.contextmanager
def master(data_dir, timeout=600):
    """A determined-master on `data_dir` (its SQLite file is data_dir/determined.db), stopped on exit.
    startup_s: seconds until it accepted connections (it recovers every stored experiment first)."""
    data_dir = pathlib.Path(data_dir)
    port_file = data_dir / "master.port"
    port_file.unlink(missing_ok=True)
    log = open(data_dir / "master.log", "ab")
    start = time.monotonic()
    proc = subprocess.Popen([str(BIN / "determined-master"), "--data-dir", str(data_dir), "--host", "127.0.0.1",
                             "--port", "0", "--port-file", str(port_file), "--log-level", "warn"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        while not (port_file.exists() and port_file.read_text().strip()):
            if proc.poll() is not None:
                raise RuntimeError(f"determined-master exited ({proc.returncode}); see {data_dir}/master.log")
            if time.monotonic() - start > timeout:
                raise RuntimeError("determined-master did not start listening")
            time.sleep(0.05)
        yield Master(proc, f"http://127.0.0.1:{int(port_file.read_text())}", time.monotonic() - start)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def percentiles(values, ps=(50, 95, 99)):
    """{p: value} by nearest rank over a list of numbers."""
    s = sorted(values)
    return {p: s[min(len(s) - 1, max(0, int(round(p / 100 * len(s))) - 1))] for p in ps} if s else {}


def loadavg():
    return os.getloadavg()[0]
