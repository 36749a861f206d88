#!/usr/bin/python3
"""Metric ingestion throughput: 50 concurrent reporters POST /api/v1/trials/{id}/metrics to a bare master
as fast as it answers, for a fixed time. Each reporter is one keep-alive connection reporting training
metrics for its own trial with increasing stepsCompleted, one report awaiting its reply before the next
(like a trial's reporter thread), authenticated with the trial's allocation token as a trial is.
Reports requests (= rows in table `metrics`) per second, metric values per second (reports/s x names
per report), the slowest one-second window, latency p50/p95/p99/max, and the CPU seconds used by the
master, by the client and by the PostgreSQL server, so the reader can see which one was the limit. The
client builds each report from prebuilt pieces, so that on a small machine it leaves the cores to the
master and the database.

    DET_BIN_DIR=/tmp/bench-bin /usr/bin/python3 bench/ingest_bench.py [--reporters 50] [--names 10]
        [--duration 30] [--data-dir bench/out/ingestdb] [--procs 2] [--auth allocation|user]
        [--db sqlite,postgres] [--batch 1,100] [--rounds 1] [--pause 0]

Each database (SQLite, and PostgreSQL: a durable server of the benchmark's own, given a copy of the
same cluster by `determined-master db copy`) is measured with each batch size (reports per request:
1 posts to /metrics, more to /metrics/batch as a client that buffers its reports does), side by
side in one run; one JSON object per combination. A small machine's figures vary from run to run:
--rounds N measures every combination N times, each on the database as it was before the first
(PostgreSQL: a fresh server each round), --pause S waits before each measurement for the last one's
load to pass, and the medians go to stderr.

The data dir must hold a database made by bench/metrics_db_gen.py (default: a small one, made on first
use with 10 experiments). Rows are added to it; the script checks afterwards that the table grew by
exactly the number of successful reports. The client is raw asyncio sockets with prebuilt requests
(no HTTP library), split over --procs processes."""
import argparse
import asyncio
import json
import multiprocessing
import os
import pathlib
import sqlite3
import statistics
import subprocess
import sys
import time

import bench_master
import metrics_db_gen


def report_head(trial_id):
    """A report's text up to its step number."""
    return b'{"metrics":{"trialId":%d,"trialRunId":1,"stepsCompleted":' % trial_id


def report_tails(names):
    """A report's text after its step number, for each step % 977 (the values cycle with it), built once so
    the client's per-report work is two concatenations and the client does not take the master's CPU."""
    tails = []
    for phase in range(977):
        metrics = ",".join(f'"metric_{k}":{phase / 1000 + k:.6f}' for k in range(names))
        tails.append((',"metrics":{"avgMetrics":{%s},"batchMetrics":[]}},"group":"training"}' % metrics).encode())
    return tails


def body(head, tails, first_step, batch):
    """One request's body: a report, or {"reports": [...]} of `batch` of them."""
    if batch == 1:
        return head + b"%d" % first_step + tails[first_step % 977]
    return b'{"reports":[' + b",".join(head + b"%d" % s + tails[s % 977]
                                         for s in range(first_step, first_step + batch)) + b"]}"


async def reporter(port, auth_header, trial_id, tails, batch, start_step, stop_at, out):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    path = f"/api/v1/trials/{trial_id}/metrics" + ("/batch" if batch > 1 else "")
    request_head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"{auth_header}\r\nContent-Type: application/json\r\n").encode()
    head = report_head(trial_id)
    step = start_step
    while time.time() < stop_at:
        b = body(head, tails, step + 1, batch)
        step += batch
        t0 = time.perf_counter()
        writer.write(request_head + b"Content-Length: %d\r\n\r\n" % len(b) + b)
        status_line = await reader.readline()
        length = 0
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        await reader.readexactly(length)
        t1 = time.perf_counter()
        status = int(status_line.split()[1])
        out.append((time.time(), t1 - t0, status))
    writer.close()


def worker(port, reporters, names, batch, start_step, stop_at, queue):
    """Runs (trial id, auth header) reporters in one process; puts (samples, CPU seconds) on the queue."""
    out = []
    cpu0 = os.times()

    tails = report_tails(names)

    async def run():
        await asyncio.gather(*(reporter(port, auth, t, tails, batch, start_step, stop_at, out) for t, auth in reporters))

    asyncio.run(run())
    cpu1 = os.times()
    queue.put((out, (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)))


def count_rows(db_path):
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*), coalesce(max(id), 0) FROM metrics").fetchone()
    finally:
        db.close()


def copy_sqlite(source, target):
    """`target` becomes a copy of the SQLite database `source` (through SQLite, so a WAL is no matter)."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def allocation_headers(db_path, trial_ids):
    """The header a trial sends: its allocation's token (see metrics_db_gen.allocation_token)."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        ids = dict(db.execute("SELECT trial_id, allocation_id FROM allocations"))
    finally:
        db.close()
    return [f"Grpc-Metadata-x-allocation-token: Bearer {metrics_db_gen.allocation_token(ids[t])}" for t in trial_ids]


def measure(args, data_dir, batch, db_flags, count_rows, label, server_cpu=None):
    """One run against a master on the database `db_flags` name; the result as a dict. `server_cpu`, for a
    database server, gives its CPU seconds so far."""
    info = json.loads((data_dir / "bench_db.json").read_text())
    normal = [t for t in range(1, info["trials"] + 1) if t not in info["big_trials"]]
    if len(normal) < args.reporters:
        sys.exit(f"{data_dir} has {len(normal)} trials; {args.reporters} reporters need one each")
    trial_ids = normal[:args.reporters]
    rows_before, max_id = count_rows()
    result = {"database": label, "reports_per_request": batch, "reporters": args.reporters,
              "names_per_report": args.names, "client_procs": args.procs, "auth": args.auth,
              "db_metric_rows_before": rows_before, "request_bytes": len(body(report_head(trial_ids[0]), report_tails(args.names), 100000, batch)),
              "loadavg_before": round(bench_master.loadavg(), 2)}
    with bench_master.master(data_dir, db_flags=db_flags) as m:
        if args.auth == "user":
            headers = [f"Authorization: Bearer {bench_master.login(m.url)}"] * len(trial_ids)
        else:
            headers = allocation_headers(data_dir / "determined.db", trial_ids)
        reporters = list(zip(trial_ids, headers))
        cpu_master0 = bench_master.cpu_seconds(m.pid)
        cpu_server0 = server_cpu() if server_cpu else 0
        started = time.time()
        stop_at = started + args.duration
        queue = multiprocessing.Queue()
        procs = [multiprocessing.Process(target=worker, args=(m.port, reporters[i::args.procs], args.names, batch,
                                                              100_000_000 + max_id, stop_at, queue))
                 for i in range(args.procs)]
        for pr in procs:
            pr.start()
        parts = [queue.get() for _ in procs]
        for pr in procs:
            pr.join()
        elapsed = time.time() - started
        cpu_master = bench_master.cpu_seconds(m.pid) - cpu_master0
        if server_cpu:
            result["db_server_cpu_s"] = round(server_cpu() - cpu_server0, 1)
        result["master_rss_mib"] = round(bench_master.rss_mib(m.pid))
    result["loadavg_after"] = round(bench_master.loadavg(), 2)

    samples = [s for part, _ in parts for s in part]
    ok = [s for s in samples if s[2] == 200]
    statuses = {}
    for s in samples:
        statuses[s[2]] = statuses.get(s[2], 0) + 1
    per_second = {}
    for t, _, status in ok:
        sec = int(t - started)
        if 1 <= sec < int(elapsed) - 1:  # whole seconds, first and last left out
            per_second[sec] = per_second.get(sec, 0) + 1
    pct = bench_master.percentiles([s[1] * 1000 for s in ok])
    rows_after, _ = count_rows()
    rate = len(ok) * batch / elapsed
    result.update({
        "duration_s": round(elapsed, 1),
        "requests_ok": len(ok),
        "statuses": statuses,
        "db_rows_added": rows_after - rows_before,
        "rows_per_s": round(rate),
        "slowest_1s_window_rows": min(per_second.values()) * batch if per_second else None,
        "metric_values_per_s": round(rate * args.names),
        **{f"request_p{k}_ms": round(v, 2) for k, v in pct.items()},
        "request_max_ms": round(max(s[1] for s in ok) * 1000, 2) if ok else None,
        "master_cpu_s": round(cpu_master, 1),
        "master_cpu_us_per_row": round(cpu_master / max(1, len(ok) * batch) * 1e6, 1),
        "client_cpu_s": round(sum(c for _, c in parts), 1),
        "cores": os.cpu_count(),
    })
    result["ok"] = result["db_rows_added"] == len(ok) * batch and len(ok) == len(samples)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=str(bench_master.REPO / "bench/out/ingestdb"))
    p.add_argument("--reporters", type=int, default=50)
    p.add_argument("--names", type=int, default=10, help="metric names per report")
    p.add_argument("--duration", type=float, default=30)
    p.add_argument("--procs", type=int, default=2, help="client processes")
    p.add_argument("--auth", choices=["allocation", "user"], default="allocation",
                   help="report with each trial's allocation token, as trials do, or as user 'determined'")
    p.add_argument("--db", default="sqlite,postgres", help="databases to measure, comma-separated")
    p.add_argument("--batch", default="1,100", help="reports per request to measure, comma-separated")
    p.add_argument("--rounds", type=int, default=1, help="measure every combination this many times")
    p.add_argument("--pause", type=float, default=0, help="seconds to wait before each measurement")
    args = p.parse_args()

    data_dir = pathlib.Path(args.data_dir)
    if not (data_dir / "bench_db.json").exists():
        subprocess.run([sys.executable, str(pathlib.Path(__file__).with_name("metrics_db_gen.py")), "--data-dir",
                        str(data_dir), "--experiments", "10", "--force"], check=True, stdout=subprocess.DEVNULL)
    batches = [int(b) for b in args.batch.split(",")]
    databases = args.db.split(",")
    for db in databases:
        if db not in ("sqlite", "postgres"):
            sys.exit(f"--db {db}: expected sqlite or postgres")
    db_path = data_dir / "determined.db"
    pristine = data_dir / "determined.db.pristine"
    if args.rounds > 1:
        copy_sqlite(db_path, pristine)
    results = []

    def run(round_number, batch, db_flags, rows, label, server_cpu=None):
        time.sleep(args.pause)
        result = measure(args, data_dir, batch, db_flags, rows, label, server_cpu)
        if args.rounds > 1:
            result["round"] = round_number
        results.append(result)

    for round_number in range(1, args.rounds + 1):
        for db in databases:
            if args.rounds > 1:
                copy_sqlite(pristine, db_path)  # every round starts from the same database
            if db == "sqlite":
                for batch in batches:
                    run(round_number, batch, [], lambda: count_rows(db_path), "sqlite")
            else:
                with bench_master.Postgres(data_dir / "postgres") as pg:
                    pg.copy_from_sqlite(db_path)
                    for batch in batches:
                        run(round_number, batch, pg.flags(),
                            lambda: tuple(int(x) for x in pg.query("SELECT count(*), coalesce(max(id), 0) FROM metrics")),
                            "postgres", pg.cpu_seconds)
    if args.rounds > 1:
        for db in databases:
            for batch in batches:
                rates = [r["rows_per_s"] for r in results if r["database"] == db and r["reports_per_request"] == batch]
                print(f"{db}, {batch} reports a request: median {statistics.median(rates):,.0f} rows/s over "
                      f"{len(rates)} rounds ({min(rates):,}-{max(rates):,})", file=sys.stderr)
    print(json.dumps(results, indent=2))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
