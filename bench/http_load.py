#!/usr/bin/python3
"""HTTP load on a real master: N concurrent clients (one thread and one keep-alive connection each, spread
over several processes so that Python's GIL does not become the bottleneck) for D seconds against a mix of read and write endpoints. Reports requests/s, latency percentiles, every
non-2xx status and connection error, and the master's resident memory over the run.

    /usr/bin/python3 bench/http_load.py [--clients 1000] [--duration 60]

Starts its own local cluster (build/bin, one agent) with `det deploy local cluster-up` and seeds it
with a few finished experiments so that the reads return data."""
import argparse
import http.client
import json
import multiprocessing
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))


def det(*args, env):
    return subprocess.run([str(BIN / "det"), *args], capture_output=True, text=True, env=env, check=True,
                          timeout=300).stdout


def rss_mib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(sorted_values, p):
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(p / 100 * len(sorted_values)))]


class Client(threading.Thread):
    def __init__(self, port, token, experiments, trials, stop_at, n):
        super().__init__(daemon=True)
        self.port, self.token, self.experiments, self.trials = port, token, experiments, trials
        self.stop_at, self.n = stop_at, n
        self.latencies, self.statuses, self.errors = [], {}, []
        self.rng = random.Random(n)

    def request(self):
        exp = self.rng.choice(self.experiments)
        r = self.rng.random()
        if r < 0.25:
            return "GET", "/api/v1/experiments?limit=10&orderBy=ORDER_BY_DESC", None
        if r < 0.40:
            return "GET", f"/api/v1/experiments/{exp}", None
        if r < 0.50:
            return "GET", f"/api/v1/experiments/{exp}/trials", None
        if r < 0.60:
            return "GET", f"/api/v1/trials/{self.rng.choice(self.trials)}", None
        if r < 0.67:
            return "GET", "/api/v1/agents", None
        if r < 0.72:
            return "GET", "/api/v1/me", None
        if r < 0.80:
            return "GET", "/api/v1/master", None
        if r < 0.88:
            return "PUT", f"/api/v1/experiments/{exp}/labels/load-{self.n % 50}", None
        if r < 0.94:
            return "DELETE", f"/api/v1/experiments/{exp}/labels/load-{self.n % 50}", None
        return "PATCH", f"/api/v1/experiments/{exp}", json.dumps({"notes": f"client {self.n} at {time.time()}"})

    def run(self):
        conn = None
        while time.time() < self.stop_at:
            method, path, body = self.request()
            headers = {"Authorization": "Bearer " + self.token}
            if body is not None:
                headers["Content-Type"] = "application/json"
            start = time.perf_counter()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                    try:
                        conn.connect()
                    except OSError as e:
                        raise ConnectionError(f"connect: {e}") from e
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                resp.read()
                self.latencies.append(time.perf_counter() - start)
                key = f"{resp.status} {method} {re.sub(r'[0-9]+', 'N', path.split('?')[0])}"
                if resp.status >= 300:
                    self.statuses[key] = self.statuses.get(key, 0) + 1
                self.statuses[resp.status] = self.statuses.get(resp.status, 0) + 1
                if resp.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as e:
                self.errors.append(f"{type(e).__name__}: {e}")
                if conn is not None:
                    conn.close()
                conn = None
                time.sleep(0.05)


def run_worker(port, token, experiments, trials, stop_at, first, count):
    """One process's share of the clients; returns their latencies, statuses and errors."""
    clients = [Client(port, token, experiments, trials, stop_at, n) for n in range(first, first + count)]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    return ([l for c in clients for l in c.latencies], [c.statuses for c in clients],
            [e for c in clients for e in c.errors])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=60)
    args = parser.parse_args()

    data_dir = pathlib.Path(tempfile.mkdtemp(prefix="det-http-load-"))
    env = dict(os.environ, DET_AUTH_FILE=str(data_dir / "auth.json"))
    det("deploy", "local", "cluster-up", "--agents", "1", "--slots", "2", "--master-port", "0",
        "--data-dir", str(data_dir), env=env)
    try:
        record = json.loads((data_dir / "cluster.json").read_text())
        url, master_pid = record["master_url"], record["master_pid"]
        env["DET_MASTER"] = url
        port = int(url.rsplit(":", 1)[1])
        experiments = []
        for _ in range(4):
            out = det("experiment", "create", str(REPO / "examples/noop/noop.yaml"), str(REPO / "examples/noop"),
                      env=env)
            experiments.append(int(re.search(r"Created experiment (\d+)", out).group(1)))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("POST", "/api/v1/auth/login", body=json.dumps({"username": "determined", "password": ""}),
                     headers={"Content-Type": "application/json"})
        token = json.loads(conn.getresponse().read())["token"]
        trials = []
        for exp in experiments:
            while True:
                conn.request("GET", f"/api/v1/experiments/{exp}", headers={"Authorization": "Bearer " + token})
                state = json.loads(conn.getresponse().read())["experiment"]["state"]
                if state in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"):
                    break
                time.sleep(0.2)
            conn.request("GET", f"/api/v1/experiments/{exp}/trials", headers={"Authorization": "Bearer " + token})
            trials += [int(t["id"]) for t in json.loads(conn.getresponse().read())["trials"]]

        rss_before = rss_mib(master_pid)
        stop_at = time.time() + args.duration
        processes = min(args.clients, max(1, (os.cpu_count() or 2) * 4))
        per = [args.clients // processes + (1 if i < args.clients % processes else 0) for i in range(processes)]
        started = time.time()
        with multiprocessing.Pool(processes) as pool:
            pending = [pool.apply_async(run_worker, (port, token, experiments, trials, stop_at, sum(per[:i]), per[i]))
                       for i in range(processes)]
            rss_samples = []
            while not all(p.ready() for p in pending):
                rss_samples.append(rss_mib(master_pid))
                time.sleep(1)
            results = [p.get() for p in pending]
        elapsed = time.time() - started
        rss_after_run = rss_mib(master_pid)
        time.sleep(5)
        rss_settled = rss_mib(master_pid)

        latencies = sorted(l for r in results for l in r[0])
        statuses, errors = {}, {}
        for r in results:
            for per_client in r[1]:
                for k, v in per_client.items():
                    statuses[str(k)] = statuses.get(str(k), 0) + v
            for e in r[2]:
                errors[e] = errors.get(e, 0) + 1
        five_xx = sum(v for k, v in statuses.items() if k[:1] == "5" and " " not in k)
        result = {
            "clients": args.clients,
            "duration_s": round(elapsed, 1),
            "requests": len(latencies),
            "requests_per_s": round(len(latencies) / elapsed),
            "p50_ms": round(percentile(latencies, 50) * 1000, 1),
            "p95_ms": round(percentile(latencies, 95) * 1000, 1),
            "p99_ms": round(percentile(latencies, 99) * 1000, 1),
            "max_ms": round(latencies[-1] * 1000, 1) if latencies else 0,
            "statuses": statuses,
            "5xx": five_xx,
            "connection_errors": errors,
            "master_rss_mib": {"before": round(rss_before), "peak": round(max(rss_samples or [0])),
                               "after": round(rss_after_run), "settled_5s": round(rss_settled)},
        }
        print(json.dumps(result, indent=2))
        return 0 if five_xx == 0 and not errors else 1
    finally:
        det("deploy", "local", "cluster-down", "--data-dir", str(data_dir), env=env)


if __name__ == "__main__":
    sys.exit(main())
