#!/usr/bin/python3
"""Workspaces, projects and the model registry at size (issue 22): generates a cluster of 10,000
experiments (10 trials each) spread over 100 projects in 10 workspaces, and 1,000 models x 10 versions
(each a completed checkpoint), written directly with sqlite3 like bench/metrics_db_gen.py; then starts a
bare master on it and sends each query many times, one at a time over one keep-alive connection, and
reports p50/p95/p99/max per query on SQLite and on PostgreSQL (a server of the benchmark's own, given the
same cluster by `determined-master db copy`).

    DET_BIN_DIR=/tmp/bench-bin /usr/bin/python3 bench/registry_bench.py [--data-dir bench/out/registrydb]
        [--requests 200] [--db sqlite,postgres]

Goals (issue 22):
  experiment list of one project   GET /api/v1/experiments?projectId=N&limit=100          p95 < 50 ms
  model list                       GET /api/v1/models?limit=100                           p95 < 50 ms
plus context: a workspace's projects, one model's versions, all models at once."""
import argparse
import itertools
import json
import pathlib
import shutil
import sqlite3
import sys
import time
import uuid

import bench_master
from metrics_db_gen import create_template

WORKSPACES, PROJECTS_PER_WORKSPACE = 10, 10


def generate(data_dir, experiments, models, versions):
    if data_dir.exists():
        shutil.rmtree(data_dir)
    data_dir.mkdir(parents=True)
    t0 = time.monotonic()
    config, original_config, model_def = create_template(data_dir)
    db = sqlite3.connect(data_dir / "determined.db", isolation_level=None)
    for pragma in ("journal_mode=OFF", "synchronous=OFF"):
        db.execute("PRAGMA " + pragma)
    now_us = int(time.time() * 1e6)
    db.execute("BEGIN")
    project_ids = []
    for w in range(WORKSPACES):
        ws_id = 2 + w
        db.execute("INSERT INTO workspaces (id, name, user_id, created_at) VALUES (?, ?, 1, ?)",
                   (ws_id, f"ws-{w}", now_us))
        for p in range(PROJECTS_PER_WORKSPACE):
            project_id = 2 + w * PROJECTS_PER_WORKSPACE + p
            db.execute("INSERT INTO projects (id, name, workspace_id, user_id, created_at, key) "
                       "VALUES (?, ?, ?, 1, ?, ?)", (project_id, f"project-{p}", ws_id, now_us, f"P{project_id}"))
            project_ids.append(project_id)
    trial_id = 0
    checkpoints = []
    for exp_id in range(1, experiments + 1):
        config["name"] = f"bench-{exp_id}"
        start_us = now_us - (experiments - exp_id) * 60_000_000
        db.execute("INSERT INTO experiments (id, name, description, labels, state, archived, config, original_config, "
                   "model_definition, owner_id, start_time, end_time, progress, job_id, project_id) "
                   "VALUES (?, ?, '', '[]', 'COMPLETED', 0, ?, ?, ?, 1, ?, ?, 1.0, ?, ?)",
                   (exp_id, config["name"], json.dumps(config, separators=(",", ":")), original_config, model_def,
                    start_us, start_us + 60_000_000, str(uuid.uuid4()), project_ids[exp_id % len(project_ids)]))
        trials = []
        for _ in range(10):
            trial_id += 1
            trials.append((trial_id, exp_id, str(uuid.uuid4()), f"{exp_id}.{trial_id}", start_us, start_us + 1))
        db.executemany("INSERT INTO trials (id, experiment_id, request_id, task_id, state, hparams, seed, restarts, "
                       "run_id, start_time, end_time, total_batches) VALUES (?, ?, ?, ?, 'COMPLETED', '{}', 0, 0, 1, "
                       "?, ?, 100)", trials)
        checkpoints.append((str(uuid.uuid4()), trials[0][3], trials[0][0], exp_id, start_us))
    db.executemany("INSERT INTO checkpoints (uuid, task_id, allocation_id, trial_id, experiment_id, report_time, "
                   "state, resources, metadata, steps_completed) VALUES (?, ?, '', ?, ?, ?, 'COMPLETED', "
                   "'{\"state\": 100}', '{\"steps_completed\": 100}', 100)", checkpoints)
    db.execute("UPDATE experiments SET num_trials = 10")
    for m in range(1, models + 1):
        db.execute("INSERT INTO models (id, name, description, labels, workspace_id, user_id, creation_time, "
                   "last_updated_time, last_version) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)",
                   (m, f"model-{m:04d}", f"model number {m}", json.dumps(["bench", f"l{m % 10}"]),
                    2 + m % WORKSPACES, now_us, now_us, versions))
        db.executemany("INSERT INTO model_versions (model_id, version, checkpoint_uuid, user_id, creation_time, "
                       "last_updated_time) VALUES (?, ?, ?, 1, ?, ?)",
                       [(m, v, checkpoints[(m * versions + v) % len(checkpoints)][0], now_us, now_us)
                        for v in range(1, versions + 1)])
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    info = {"experiments": experiments, "trials": trial_id, "projects": len(project_ids), "workspaces": WORKSPACES,
            "models": models, "versions_per_model": versions, "generation_s": round(time.monotonic() - t0, 1)}
    (data_dir / "bench_db.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def queries():
    projects = itertools.cycle(range(2, 2 + WORKSPACES * PROJECTS_PER_WORKSPACE, 7))
    workspaces = itertools.cycle(range(2, 2 + WORKSPACES))
    models = itertools.cycle(range(1, 1000, 37))
    return [
        ("experiment list of one project, 100 (goal: p95 < 50 ms)",
         lambda: f"/api/v1/experiments?projectId={next(projects)}&limit=100", 50),
        ("model list, 100 (goal: p95 < 50 ms)", lambda: "/api/v1/models?limit=100", 50),
        ("model list, all 1,000", lambda: "/api/v1/models", None),
        ("model list, sorted by number of versions", lambda: "/api/v1/models?limit=100&sortBy=SORT_BY_NUM_VERSIONS",
         50),
        ("a workspace's projects (10)", lambda: f"/api/v1/workspaces/{next(workspaces)}/projects", None),
        ("one model's versions (10)", lambda: f"/api/v1/models/model-{next(models):04d}/versions", None),
    ]


def measure(args, data_dir, db_flags):
    results = {"loadavg_before": round(bench_master.loadavg(), 2)}
    with bench_master.master(data_dir, db_flags=db_flags) as m:
        get = bench_master.keepalive_get(m)
        for name, path, goal in queries():
            _, status, body = get(path())
            if status != 200:
                results[name] = {"status": status, "body": body[:300].decode(errors="replace")}
                continue
            lat = []
            for _ in range(args.requests):
                seconds, status, body = get(path())
                assert status == 200, (name, status, body[:300])
                lat.append(seconds * 1000)
            pct = bench_master.percentiles(lat)
            r = {"requests": args.requests, **{f"p{k}_ms": round(v, 1) for k, v in pct.items()},
                 "max_ms": round(max(lat), 1), "response_bytes": len(body)}
            if goal is not None:
                r["goal_ms"], r["goal_met_at_p95"] = goal, pct[95] < goal
            results[name] = r
            print(name, json.dumps(r), file=sys.stderr, flush=True)
    results["loadavg_after"] = round(bench_master.loadavg(), 2)
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=str(bench_master.REPO / "bench/out/registrydb"))
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--experiments", type=int, default=10_000)
    p.add_argument("--models", type=int, default=1_000)
    p.add_argument("--versions", type=int, default=10)
    p.add_argument("--db", default="sqlite,postgres", help="databases to measure, comma-separated")
    args = p.parse_args()
    data_dir = pathlib.Path(args.data_dir).resolve()
    results = {"database": generate(data_dir, args.experiments, args.models, args.versions)}
    for db in args.db.split(","):
        if db == "sqlite":
            results["sqlite"] = measure(args, data_dir, [])
        elif db == "postgres":
            with bench_master.Postgres(data_dir / "postgres") as pg:
                pg.copy_from_sqlite(data_dir / "determined.db")
                results["postgres"] = measure(args, data_dir, pg.flags())
        else:
            sys.exit(f"--db {db}: expected sqlite or postgres")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
