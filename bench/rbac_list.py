#!/usr/bin/python3
"""The cost of RBAC on a large experiment list: GET /api/v1/experiments?limit=100 on 10,000 experiments across
100 workspaces, with `security.authz.type: basic` and then `rbac`, side by side in one run; and on a read by id
(GET /api/v1/experiments/2, visible to both callers), where the path guard looks the experiment up first.

    DET_BIN_DIR=build/bin /usr/bin/python3 bench/rbac_list.py [--requests 300] [--experiments 10000] [--workspaces 100]

The schema comes from the real master (started once on an empty data directory; one real experiment is made
through `det` for the stored config's shape); then 100 workspaces with a project each, the experiments spread
over them, and a user "viewer" who is given Viewer in half of the workspaces are written with sqlite3. The same
data directory is served by a master with each rule in turn; each query is sent `--requests` times over one
keep-alive connection. Reported: p50/p95 per rule and caller, and the ratio rbac/basic (the goal: under 1.10):
  - admin under basic (every experiment visible) vs admin under rbac (ClusterAdmin: visible everywhere);
  - viewer under basic vs viewer under rbac (Viewer in 50 workspaces: the list is narrowed to them)."""
import argparse
import http.client
import json
import pathlib
import shutil
import sqlite3
import statistics
import tempfile
import time
import urllib.parse

import bench_master
from metrics_db_gen import create_template


def fill(data_dir, experiments, workspaces):
    config, original, model_def = create_template(data_dir)
    db = sqlite3.connect(data_dir / "determined.db")
    now_us = int(time.time() * 1e6)
    db.execute("INSERT INTO users (username, password_hash, admin, active, modified_at) VALUES ('viewer', NULL, 0, 1, ?)",
               (now_us,))
    viewer = db.execute("SELECT id FROM users WHERE username = 'viewer'").fetchone()[0]
    projects = []
    for i in range(workspaces):
        cur = db.execute("INSERT INTO workspaces (name, user_id, created_at) VALUES (?, 1, ?) RETURNING id",
                         (f"bench-ws-{i}", now_us))
        ws = cur.fetchone()[0]
        cur = db.execute("INSERT INTO projects (name, workspace_id, user_id, created_at, key) "
                         "VALUES ('p', ?, 1, ?, ?) RETURNING id", (ws, now_us, f"BW{i}"))
        projects.append((ws, cur.fetchone()[0]))
    rows = []
    for exp_id in range(1, experiments + 1):
        _, project = projects[exp_id % workspaces]
        rows.append((exp_id, f"bench-{exp_id}", json.dumps(config, separators=(",", ":")), original, model_def,
                     now_us - exp_id * 1_000_000, now_us, f"job-{exp_id}", project))
    db.executemany("INSERT INTO experiments (id, name, description, labels, state, archived, config, original_config, "
                   "model_definition, owner_id, start_time, end_time, progress, job_id, project_id) "
                   "VALUES (?, ?, '', '[]', 'COMPLETED', 0, ?, ?, ?, 1, ?, ?, 1.0, ?, ?)", rows)
    # Roles: the first rbac start seeds admin (ClusterAdmin) and gives viewer Editor on Uncategorized; viewer
    # also gets Viewer in every other bench workspace.
    cur = db.execute("INSERT INTO groups (group_name, user_id) VALUES (?, ?) RETURNING id",
                     (f"{viewer}DeterminedPersonalGroup", viewer))
    group = cur.fetchone()[0]
    db.execute("INSERT INTO user_group_membership (user_id, group_id) VALUES (?, ?)", (viewer, group))
    db.executemany("INSERT INTO role_assignments (group_id, role_id, scope_workspace_id) VALUES (?, 4, ?)",
                   [(group, ws) for ws, _ in projects[::2]])
    db.commit()
    db.close()


def login(url, username):
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("POST", "/api/v1/auth/login", body=json.dumps({"username": username, "password": ""}),
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    token = json.loads(r.read())["token"]
    return conn, token


def measure(url, username, path, n):
    conn, token = login(url, username)
    times, count = [], None
    for _ in range(n):
        start = time.perf_counter()
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        r = conn.getresponse()
        body = r.read()
        times.append((time.perf_counter() - start) * 1000)
        if r.status != 200:
            raise RuntimeError(f"{path}: {r.status} {body[:200]}")
        count = json.loads(body).get("pagination", {}).get("total", 1)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], count


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=300)
    p.add_argument("--experiments", type=int, default=10_000)
    p.add_argument("--workspaces", type=int, default=100)
    args = p.parse_args()
    data_dir = pathlib.Path(tempfile.mkdtemp(prefix="det-bench-rbac-"))
    try:
        fill(data_dir, args.experiments, args.workspaces)
        paths = ("/api/v1/experiments?limit=100", "/api/v1/experiments/2")
        results = {}
        for rule in ("basic", "rbac"):
            cfg = data_dir / f"master-{rule}.yaml"
            cfg.write_text(f"security:\n  authz:\n    type: {rule}\n")
            with bench_master.master(data_dir, db_flags=("--config-file", str(cfg))) as m:
                for path in paths:
                    for user in ("admin", "viewer"):
                        measure(m.url, user, path, 20)  # warm-up
                        results[(path, rule, user)] = measure(m.url, user, path, args.requests)
        print(f"{args.experiments} experiments in {args.workspaces} workspaces; {args.requests} requests each")
        for path in paths:
            print(f"GET {path}")
            print(f"{'caller':<8} {'rule':<6} {'p50 ms':>8} {'p95 ms':>8} {'total':>7}")
            for user in ("admin", "viewer"):
                for rule in ("basic", "rbac"):
                    p50, p95, total = results[(path, rule, user)]
                    print(f"{user:<8} {rule:<6} {p50:8.2f} {p95:8.2f} {total:7d}")
                b, r = results[(path, "basic", user)], results[(path, "rbac", user)]
                print(f"{user:<8} ratio  {r[0] / b[0]:8.2f} {r[1] / b[1]:8.2f}   (rbac / basic)")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
