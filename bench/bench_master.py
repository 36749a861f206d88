"""Shared by the database benchmarks: start a bare determined-master (no agents) on a data directory,
log in, read its CPU time, stop it.

The binaries come from $DET_BIN_DIR (default build/bin); copy them elsewhere first if build/ is being
rebuilt while you measure."""
import contextlib
import glob
import http.client
import json
import os
import pathlib
import shutil
import signal
import socket
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
def master(data_dir, timeout=600, db_flags=()):
    """A determined-master on `data_dir` (its SQLite file is data_dir/determined.db, unless `db_flags`
    name another database: postgres_flags()), stopped on exit.
    startup_s: seconds until it accepted connections (it recovers every stored experiment first)."""
    data_dir = pathlib.Path(data_dir)
    port_file = data_dir / "master.port"
    port_file.unlink(missing_ok=True)
    log = open(data_dir / "master.log", "ab")
    start = time.monotonic()
    proc = subprocess.Popen([str(BIN / "determined-master"), "--data-dir", str(data_dir), "--host", "127.0.0.1",
                             "--port", "0", "--port-file", str(port_file), "--log-level", "warn", *db_flags],
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


class Postgres:
    """A PostgreSQL server of the benchmark's own in `directory` (Debian's postgresql, run as the postgres
    user when we are root), durable (fsync on), as a production database would be."""

    def __init__(self, directory):
        self.dir = pathlib.Path(directory)
        self.bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
        self.port = free_port()

    def run(self, command):
        full = f"{self.bin}/{command}"
        argv = ["su", "postgres", "-s", "/bin/sh", "-c", full] if os.geteuid() == 0 else ["sh", "-c", full]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def __enter__(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self.run(f"initdb -D {self.dir}/data -U postgres --auth=trust -E UTF8 --no-locale")
        self.run(f"pg_ctl -D {self.dir}/data -l {self.dir}/log -o '-p {self.port} -k {self.dir} "
                 f"-c listen_addresses=127.0.0.1' -w start")
        self.run(f"createdb -h 127.0.0.1 -p {self.port} -U postgres determined")
        return self

    def __exit__(self, *exc):
        self.run(f"pg_ctl -D {self.dir}/data -m fast -w stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def url(self):
        return f"postgres://postgres@127.0.0.1:{self.port}/determined"

    def flags(self):
        return ["--db-host", "127.0.0.1", "--db-port", str(self.port), "--db-user", "postgres",
                "--db-name", "determined"]

    def cpu_seconds(self):
        """User + system CPU seconds so far of the server and its live backends."""
        postmaster = int((self.dir / "data/postmaster.pid").read_text().split()[0])
        total = cpu_seconds(postmaster)
        for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
            try:
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    total += cpu_seconds(int(stat.parent.name))
            except (OSError, ValueError):
                pass  # gone meanwhile
        return total

    def query(self, sql):
        """One row of `sql`'s result, as strings."""
        out = subprocess.run([f"{self.bin}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                              "-d", "determined", "-tAc", sql], check=True, capture_output=True, text=True)
        return out.stdout.strip().split("|")

    def copy_from_sqlite(self, sqlite_path):
        """The cluster in `sqlite_path`, copied with determined-master db copy."""
        subprocess.run([str(BIN / "determined-master"), "db", "copy", "--from", f"sqlite:{sqlite_path}",
                        "--to", self.url], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def keepalive_get(m):
    """A GET of `m`'s API as the default user over one keep-alive connection: get(path) -> (seconds,
    status, body)."""
    headers = {"Authorization": "Bearer " + login(m.url)}
    conn = http.client.HTTPConnection("127.0.0.1", m.port, timeout=120)

    def get(path):
        start = time.perf_counter()
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        return time.perf_counter() - start, resp.status, body

    return get


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentiles(values, ps=(50, 95, 99)):
    """{p: value} by nearest rank over a list of numbers."""
    s = sorted(values)
    return {p: s[min(len(s) - 1, max(0, int(round(p / 100 * len(s))) - 1))] for p in ps} if s else {}


def loadavg():
    return os.getloadavg()[0]
