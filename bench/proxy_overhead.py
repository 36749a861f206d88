#!/usr/bin/python3
"""The master's proxy against a direct connection to the same backend, in one run: latency (p50/p99) of
small requests over one keep-alive connection, throughput of a 1 GiB download, WebSocket round-trip time;
and `POST /api/v1/notebooks` to a ready notebook (issue 19).

The backend is tests/e2e/proxy_backend.py, run twice: as a command on the cluster (reached at
/proxy/{task}/...) and as a plain local process (reached directly).

    /usr/bin/python3 bench/proxy_overhead.py [--requests 3000] [--bytes 1073741824] [--ws 2000] [--notebooks 3]

Goals: added p50 latency < 1 ms; proxied throughput >= 90 % of direct. Upstream's notebook start: tens of
seconds (image pull aside)."""
import argparse
import http.client
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import websocket

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))
BACKEND = REPO / "tests" / "e2e" / "proxy_backend.py"
sys.path.insert(0, str(REPO / "bench"))
from local_cluster import local_cluster  # noqa: E402


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def latencies_ms(host, port, path, headers, n):
    conn = http.client.HTTPConnection(host, port, timeout=30)
    out = []
    for _ in range(n):
        start = time.perf_counter()
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 200, resp.status
        out.append((time.perf_counter() - start) * 1000)
    conn.close()
    return out


def download_mib_per_s(host, port, path, headers, n):
    conn = http.client.HTTPConnection(host, port, timeout=120)
    start = time.perf_counter()
    conn.request("GET", f"{path}?n={n}", headers=headers)
    resp = conn.getresponse()
    got = 0
    buf = bytearray(1 << 20)
    while True:
        k = resp.readinto(buf)
        if not k:
            break
        got += k
    assert got == n, got
    return n / (1 << 20) / (time.perf_counter() - start)


def ws_rtt_ms(url, headers, n):
    ws = websocket.create_connection(url, header=headers, timeout=30)
    out = []
    for _ in range(n):
        start = time.perf_counter()
        ws.send("ping")
        assert ws.recv() == "ping"
        out.append((time.perf_counter() - start) * 1000)
    ws.close()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--bytes", type=int, default=1 << 30)
    parser.add_argument("--ws", type=int, default=2000)
    parser.add_argument("--notebooks", type=int, default=3)
    args = parser.parse_args()

    direct = subprocess.Popen(["/usr/bin/python3", str(BACKEND), "--direct"], stdout=subprocess.PIPE, text=True)
    try:
        rows, starts = measure(args, int(direct.stdout.readline()))
    finally:
        direct.terminate()
    report(rows, starts)


def measure(args, direct_port):
    with local_cluster(str(BIN / "det"), agents=1, slots=1) as cluster, tempfile.TemporaryDirectory() as ctx:
        shutil.copy(BACKEND, ctx)
        task = subprocess.run([str(BIN / "det"), "cmd", "run", "-d", "--config", "resources.slots=0", "-c", ctx,
                               "python3", "proxy_backend.py"], env=cluster.env, check=True, capture_output=True,
                              text=True).stdout.strip()
        host, port = cluster.master.removeprefix("http://").split(":")
        auth = {"Authorization": cluster.session.headers["Authorization"]}
        base = f"/proxy/{task}"
        deadline = time.time() + 60
        while cluster.session.get(f"{cluster.master}{base}/small").status_code != 200:
            assert time.time() < deadline, "the backend did not come up"
            time.sleep(0.2)

        rows = []
        lat_d = latencies_ms("127.0.0.1", direct_port, f"{base}/small", {}, args.requests)
        lat_p = latencies_ms(host, int(port), f"{base}/small", auth, args.requests)
        rows.append(("small GET p50 (ms)", statistics.median(lat_d), statistics.median(lat_p)))
        rows.append(("small GET p99 (ms)", percentile(lat_d, 0.99), percentile(lat_p, 0.99)))
        thr_d = download_mib_per_s("127.0.0.1", direct_port, f"{base}/bytes", {}, args.bytes)
        thr_p = download_mib_per_s(host, int(port), f"{base}/bytes", auth, args.bytes)
        rows.append((f"{args.bytes >> 20} MiB download (MiB/s)", thr_d, thr_p))
        ws_d = ws_rtt_ms(f"ws://127.0.0.1:{direct_port}{base}/ws", [], args.ws)
        ws_p = ws_rtt_ms(f"ws://{host}:{port}{base}/ws", [f"Authorization: {auth['Authorization']}"], args.ws)
        rows.append(("WebSocket RTT p50 (ms)", statistics.median(ws_d), statistics.median(ws_p)))
        rows.append(("WebSocket RTT p99 (ms)", percentile(ws_d, 0.99), percentile(ws_p, 0.99)))
        cluster.session.post(f"{cluster.master}/api/v1/commands/{task}/kill")

        starts = []
        for _ in range(args.notebooks):
            start = time.perf_counter()
            nb = cluster.session.post(f"{cluster.master}/api/v1/notebooks", json={}).json()["notebook"]["id"]
            while True:
                allocations = cluster.session.get(f"{cluster.master}/api/v1/tasks/{nb}").json()["task"]["allocations"]
                if allocations and allocations[-1]["isReady"]:
                    break
                time.sleep(0.05)
            starts.append(time.perf_counter() - start)
            cluster.session.post(f"{cluster.master}/api/v1/notebooks/{nb}/kill")
            while cluster.session.get(f"{cluster.master}/api/v1/notebooks/{nb}").json()["notebook"]["state"] != \
                    "STATE_TERMINATED":
                time.sleep(0.1)
    return rows, starts


def report(rows, starts):
    print(f"{'':32} {'direct':>10} {'proxy':>10} {'proxy - direct':>15} {'proxy / direct':>15}")
    for name, d, p in rows:
        print(f"{name:32} {d:10.3f} {p:10.3f} {p - d:15.3f} {p / d:15.2f}")
    added = rows[0][2] - rows[0][1]
    ratio = rows[2][2] / rows[2][1]
    print(f"added p50 latency {added:.3f} ms (goal < 1 ms): {'met' if added < 1 else 'MISSED'}")
    print(f"proxied throughput {ratio:.0%} of direct (goal >= 90 %): {'met' if ratio >= 0.9 else 'MISSED'}")
    print(f"notebook start to ready: {', '.join(f'{s:.2f}' for s in starts)} s (median {statistics.median(starts):.2f} s;"
          " upstream: tens of seconds)")


if __name__ == "__main__":
    main()
