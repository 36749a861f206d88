#!/usr/bin/python3
"""Read latency on a large database (made by bench/metrics_db_gen.py): starts a bare master on it, then
sends each query many times, one at a time over one keep-alive connection, and reports p50/p95/p99/max
per query, the response size, and the master's CPU time per request (its cost without the wait for a
core on a shared machine).

    DET_BIN_DIR=/tmp/bench-bin /usr/bin/python3 bench/query_bench.py [--data-dir bench/out/metricsdb] [--requests 200]
        [--db sqlite,postgres]

Each database is measured in turn in one run: the SQLite file, then PostgreSQL (a durable server of the
benchmark's own, given the same cluster by `determined-master db copy`; the copy's time is reported).

Queries (goals from the issue on large databases):
  experiment list     GET /api/v1/experiments?limit=100                                    p95 < 50 ms
  full metric stream  GET /api/v1/trials/metrics/trial_metrics?trialIds=ID&group=training  < 500 ms
                      (a "big" trial: 1,000 training reports x 100 metric names, NDJSON)
  chart series        GET /api/v1/trials/time-series?trialIds=ID&maxDatapoints=200&metricNames=m0
                      &metricType=METRIC_TYPE_TRAINING                                      < 50 ms
plus a few variants for context (newest first, a deep page, sorted by trial count and by checkpoint size, one experiment's
trials, a normal trial's metrics). A query that fails (e.g. not served by this build) is reported with
its status and error."""
import argparse
import itertools
import json
import pathlib
import sys
import time

import bench_master


def queries(info, big_reps):
    big = itertools.cycle(info["big_trials"])
    normal = itertools.cycle(range(1, info["trials"] - len(info["big_trials"]), 997))
    exps = itertools.cycle(range(1, info["experiments"], 101))
    n = info["experiments"]
    return [
        ("experiment list (goal: p95 < 50 ms)", None, lambda: "/api/v1/experiments?limit=100", 50),
        ("experiment list, newest first", None, lambda: "/api/v1/experiments?limit=100&orderBy=ORDER_BY_DESC", None),
        ("experiment list, offset 9,000", None, lambda: f"/api/v1/experiments?limit=100&offset={max(0, n - 1000)}", None),
        ("experiment list, sorted by trial count", None,
         lambda: "/api/v1/experiments?limit=100&sortBy=SORT_BY_NUM_TRIALS&orderBy=ORDER_BY_DESC", 50),
        ("experiment list, sorted by checkpoint size", None,
         lambda: "/api/v1/experiments?limit=100&sortBy=SORT_BY_CHECKPOINT_SIZE&orderBy=ORDER_BY_DESC", 50),
        ("experiment list, sorted by name", None,
         lambda: "/api/v1/experiments?limit=100&sortBy=SORT_BY_NAME", 50),
        ("one experiment's trials (10)", None, lambda: f"/api/v1/experiments/{next(exps)}/trials", None),
        ("normal trial's training metrics (90 reports x 3 names)", None,
         lambda: f"/api/v1/trials/metrics/trial_metrics?trialIds={next(normal)}&group=training", None),
        ("big trial's full metric stream (goal: < 500 ms)", big_reps,
         lambda: f"/api/v1/trials/metrics/trial_metrics?trialIds={next(big)}&group=training", 500),
        ("downsampled chart series, 200 points (goal: < 50 ms)", None,
         lambda: (f"/api/v1/trials/time-series?trialIds={next(big)}&maxDatapoints=200&metricNames=m0"
                  "&metricType=METRIC_TYPE_TRAINING"), 50),
    ]


def measure(args, data_dir, info, db_flags):
    """Every query against a master on the database `db_flags` name."""
    results = {"loadavg_before": round(bench_master.loadavg(), 2)}
    with bench_master.master(data_dir, db_flags=db_flags) as m:
        results["master_startup_s"] = round(m.startup_s, 2)
        get = bench_master.keepalive_get(m)
        for name, reps, path, goal in queries(info, max(10, args.requests // 5)):
            if args.only and args.only not in name:
                continue
            reps = reps or args.requests
            first_s, status, body = get(path())  # first call: cold statement and page caches
            if status != 200:  # e.g. an endpoint this build does not serve yet
                results[name] = {"status": status, "body": body[:300].decode(errors="replace")}
                print(name, json.dumps(results[name]), file=sys.stderr, flush=True)
                continue
            cpu0, lat = bench_master.cpu_seconds(m.pid), []
            for _ in range(reps):
                seconds, status, body = get(path())
                assert status == 200, (name, status, body[:300])
                lat.append(seconds * 1000)
            cpu_ms = (bench_master.cpu_seconds(m.pid) - cpu0) * 1000 / reps
            pct = bench_master.percentiles(lat)
            r = {"requests": reps, "first_ms": round(first_s * 1000, 1),
                 **{f"p{k}_ms": round(v, 1) for k, v in pct.items()}, "max_ms": round(max(lat), 1),
                 "mean_ms": round(sum(lat) / reps, 1), "master_cpu_ms_per_request": round(cpu_ms, 1),
                 "response_bytes": len(body)}
            if "time-series" in path() or "trial_metrics" in path():
                lines = [json.loads(line) for line in body.splitlines() if line.strip()]
                r["response_shape"] = summarize(lines)
            if goal is not None:
                r["goal_ms"] = goal
                r["goal_met_at_p95"] = pct[95] < goal
            results[name] = r
            print(name, json.dumps(r), file=sys.stderr, flush=True)
        results["master_rss_mib"] = round(bench_master.rss_mib(m.pid))
    results["loadavg_after"] = round(bench_master.loadavg(), 2)
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=str(bench_master.REPO / "bench/out/metricsdb"))
    p.add_argument("--requests", type=int, default=200, help="per query (the big metric stream: a fifth)")
    p.add_argument("--only", help="run only the queries whose name contains this")
    p.add_argument("--db", default="sqlite,postgres", help="databases to measure, comma-separated")
    args = p.parse_args()
    data_dir = pathlib.Path(args.data_dir)
    info = json.loads((data_dir / "bench_db.json").read_text())
    results = {"database": info}
    for db in args.db.split(","):
        if db == "sqlite":
            results["sqlite"] = measure(args, data_dir, info, [])
        elif db == "postgres":
            with bench_master.Postgres(data_dir / "postgres") as pg:
                start = time.monotonic()
                pg.copy_from_sqlite(data_dir / "determined.db")
                copy_s = time.monotonic() - start
                results["postgres"] = {"db_copy_s": round(copy_s, 1), **measure(args, data_dir, info, pg.flags())}
        else:
            sys.exit(f"--db {db}: expected sqlite or postgres")
    print(json.dumps(results, indent=2))


def summarize(messages):
    """A short description of a metrics response (reports, names per report) or of a time-series
    response (series, points in the first)."""
    out = {"messages": len(messages)}
    reports = [m for msg in messages for m in msg.get("result", {}).get("metrics", [])]
    if reports:
        out["reports"] = len(reports)
        first = reports[0].get("metrics", {}).get("avgMetrics", reports[0].get("metrics", {}))
        out["names_in_first_report"] = len(first) if isinstance(first, dict) else None
    series = [s for msg in messages for t in msg.get("trials", []) for s in t.get("metrics", [])]
    if series:
        out["series"] = len(series)
        out["points_in_first_series"] = len(series[0].get("data", []))
    return out


if __name__ == "__main__":
    main()
