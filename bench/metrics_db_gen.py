#!/usr/bin/python3
"""Fills a master's SQLite database with a large history, for bench/query_bench.py.

    DET_BIN_DIR=/tmp/bench-bin /usr/bin/python3 bench/metrics_db_gen.py [--data-dir bench/out/metricsdb]

Default size: 10,000 experiments x 10 trials (100,000 trials); each trial has 90 training and 10
validation reports (a few metric names each), except the 10 trials of the last experiment ("big" trials),
which have 1,000 training reports of 100 metric names m0..m99 each plus 10 validation reports:
10,009,100 rows in table `metrics` in all (one row per report).

The schema comes from the real master: it is started once on the empty data directory (migrations),
one real experiment (examples/digits/adaptive.yaml, paused) is created through `det` so that the stored
config and model definition have the master's own shape, then the master is stopped and the rows are
written directly with sqlite3 (experiments owned by the admin user, all in terminal states; one
allocation per trial, whose token is allocation_token(allocation id); trial summaries consistent with
their metrics)."""
import argparse
import hashlib
import json
import math
import os
import pathlib
import random
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid

import bench_master

HOUR_US = 3600 * 10**6


def create_template(data_dir):
    """Starts the master on the empty data dir and creates one paused experiment; returns its row."""
    with bench_master.master(data_dir) as m:
        env = dict(os.environ, DET_MASTER=m.url, DET_AUTH_FILE=str(data_dir / "auth.json"))
        subprocess.run([str(bench_master.BIN / "det"), "experiment", "create", "--paused",
                        str(bench_master.REPO / "examples/digits/adaptive.yaml"),
                        str(bench_master.REPO / "examples/digits")], env=env, check=True, capture_output=True)
    db = sqlite3.connect(data_dir / "determined.db")
    row = db.execute("SELECT config, original_config, model_definition FROM experiments").fetchone()
    db.execute("DELETE FROM searcher_snapshots")
    db.execute("DELETE FROM trials")
    db.execute("DELETE FROM experiments")
    db.commit()
    db.close()
    return json.loads(row[0]), row[1], row[2]


def allocation_token(allocation_id):
    """The session token of a generated allocation (the database keeps its SHA-256), so that
    bench/ingest_bench.py can report metrics the way a trial does."""
    return "bench-" + allocation_id


def workload(end_us, batches, metrics):
    return json.dumps({"endTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(end_us / 1e6)),
                       "metrics": {"avgMetrics": metrics, "batchMetrics": []}, "numInputs": 0,
                       "totalBatches": batches}, separators=(",", ":"))


def summary(values):
    """The master's summary_metrics entry for one metric's reported values."""
    return {"type": "number", "count": len(values), "sum": sum(values), "min": min(values), "max": max(values),
            "last": values[-1], "mean": sum(values) / len(values)}


def trial_metrics(rng, trial_id, start_us, big, big_steps, big_names, reports):
    """Metric rows of one trial (oldest first) and the trial's summary fields."""
    rows, train, val = [], {}, {}
    decay, floor = rng.uniform(0.2, 2.0), rng.uniform(0.02, 0.4)
    n_train = big_steps if big else reports - reports // 10
    step = 10 if big else 100
    for i in range(1, n_train + 1):
        b = i * step
        loss = floor + 2.3 * math.exp(-decay * i / n_train * 5) + rng.random() * 0.05
        if big:
            vals = {f"m{k}": round(loss * (1 + k / 100), 6) for k in range(big_names)}
            text = json.dumps(vals, separators=(",", ":"))
        else:
            vals = {"loss": round(loss, 6), "accuracy": round(1 - loss / 2.5, 6), "lr": 0.001}
            text = '{"loss":%.6f,"accuracy":%.6f,"lr":0.001}' % (vals["loss"], vals["accuracy"])
        for k, v in vals.items():
            train.setdefault(k, []).append(v)
        rows.append((trial_id, 1, "training", b, start_us + b * 10_000, text))
    last = None
    for i in range(1, 11):
        b = n_train * step * i // 10
        acc = min(0.999, 1 - floor - 2.0 * math.exp(-decay * i / 2) + rng.random() * 0.01)
        last = {"validation_loss": round(1 - acc, 6), "accuracy": round(acc, 6)}
        for k, v in last.items():
            val.setdefault(k, []).append(v)
        rows.append((trial_id, 1, "validation", b, start_us + b * 10_000 + 5_000,
                     json.dumps(last, separators=(",", ":"))))
    end_us = start_us + n_train * step * 10_000 + 10_000
    best = max(val["accuracy"])
    fields = {"total_batches": n_train * step, "end_time": end_us,
              "latest_validation": workload(end_us, n_train * step, last),
              "best_validation": workload(end_us, n_train * step, {"validation_loss": round(1 - best, 6),
                                                                      "accuracy": best}),
              "summary_metrics": json.dumps({"avg_metrics": {k: summary(v) for k, v in train.items()},
                                             "validation_metrics": {k: summary(v) for k, v in val.items()}}),
              "searcher_metric_value": best}
    return rows, fields


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=str(bench_master.REPO / "bench/out/metricsdb"))
    p.add_argument("--experiments", type=int, default=10_000)
    p.add_argument("--trials-per-experiment", type=int, default=10)
    p.add_argument("--reports-per-trial", type=int, default=100)
    p.add_argument("--big-steps", type=int, default=1000, help="training reports of each big trial")
    p.add_argument("--big-names", type=int, default=100, help="metric names per report of a big trial")
    p.add_argument("--force", action="store_true", help="replace an existing data dir")
    args = p.parse_args()

    data_dir = pathlib.Path(args.data_dir).resolve()
    if data_dir.exists():
        if not args.force:
            sys.exit(f"{data_dir} exists; pass --force to replace it")
        shutil.rmtree(data_dir)
    data_dir.mkdir(parents=True)
    t0 = time.monotonic()
    config, original_config, model_def = create_template(data_dir)

    db = sqlite3.connect(data_dir / "determined.db", isolation_level=None)
    for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-1000000", "temp_store=MEMORY"):
        db.execute("PRAGMA " + pragma)
    rng = random.Random(42)
    now_us = int(time.time() * 1e6)
    t0_us = now_us - 365 * 24 * HOUR_US
    trial_id, metric_rows, big_trials = 0, 0, []
    states = ["COMPLETED"] * 8 + ["CANCELED", "ERROR"]
    for chunk_start in range(1, args.experiments + 1, 500):
        db.execute("BEGIN")
        for exp_id in range(chunk_start, min(args.experiments, chunk_start + 499) + 1):
            big = exp_id == args.experiments
            start_us = t0_us + (exp_id - 1) * (365 * 24 * HOUR_US // args.experiments)
            config["name"] = f"bench-{exp_id}"
            trials, exp_end = [], start_us
            for t in range(args.trials_per_experiment):
                trial_id += 1
                t_start = start_us + t * 60_000_000
                rows, f = trial_metrics(rng, trial_id, t_start, big, args.big_steps, args.big_names,
                                        args.reports_per_trial)
                db.executemany("INSERT INTO metrics (trial_id, trial_run_id, metric_group, total_batches, end_time, "
                               "metrics) VALUES (?, ?, ?, ?, ?, ?)", rows)
                metric_rows += len(rows)
                exp_end = max(exp_end, f["end_time"])
                task_id = f"{exp_id}.{uuid.UUID(int=rng.getrandbits(128))}"
                hparams = {"learning_rate": 10 ** rng.uniform(-2.5, -0.5), "hidden_size": rng.randint(16, 256),
                           "global_batch_size": rng.choice([16, 32, 64]), "epochs": 1}
                trials.append((trial_id, exp_id, str(uuid.UUID(int=rng.getrandbits(128))), task_id, "COMPLETED",
                               json.dumps(hparams), rng.getrandbits(31), t_start, f["end_time"], f["total_batches"],
                               f["latest_validation"], f["best_validation"], f["summary_metrics"],
                               f["searcher_metric_value"]))
                if big:
                    big_trials.append(trial_id)
            db.execute("INSERT INTO experiments (id, name, description, labels, state, archived, config, "
                       "original_config, model_definition, owner_id, start_time, end_time, progress, job_id) "
                       "VALUES (?, ?, '', ?, ?, 0, ?, ?, ?, 1, ?, ?, 1.0, ?)",
                       (exp_id, config["name"], json.dumps(["bench"] if exp_id % 7 == 0 else []),
                        "COMPLETED" if big else rng.choice(states), json.dumps(config, separators=(",", ":")),
                        original_config, model_def, start_us, exp_end, str(uuid.UUID(int=rng.getrandbits(128)))))
            db.executemany("INSERT INTO trials (id, experiment_id, request_id, task_id, state, hparams, seed, "
                           "restarts, run_id, start_time, end_time, total_batches, latest_validation, "
                           "best_validation, summary_metrics, searcher_metric_value) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, 0, 1, ?, ?, ?, ?, ?, ?, ?)", trials)
            db.executemany("INSERT INTO allocations (allocation_id, task_id, trial_id, state, token_hash, agent_id, "
                           "slots, start_time, end_time, exit_code, slot_ids) "
                           "VALUES (?, ?, ?, 'TERMINATED', ?, 'agent-0', 1, ?, ?, 0, "
                           "'[{\"agent_id\":\"agent-0\",\"slot_ids\":[0]}]')",
                           [(t[3] + ".1", t[3], t[0], hashlib.sha256(allocation_token(t[3] + ".1").encode()).hexdigest(),
                             t[7], t[8]) for t in trials])
        db.execute("COMMIT")
        print(f"{exp_id} experiments, {trial_id} trials, {metric_rows} metric rows, "
              f"{time.monotonic() - t0:.0f} s", flush=True)
    # The experiments' totals the master keeps current as trials and checkpoints come (migration 0010).
    db.execute("UPDATE experiments SET num_trials = (SELECT count(*) FROM trials t WHERE t.experiment_id = "
               "experiments.id)")
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    size = (data_dir / "determined.db").stat().st_size
    info = {"experiments": args.experiments, "trials": trial_id, "metric_rows": metric_rows,
            "big_trials": big_trials, "big_trial_reports": args.big_steps, "big_trial_names": args.big_names,
            "db_bytes": size, "generation_s": round(time.monotonic() - t0, 1)}
    (data_dir / "bench_db.json").write_text(json.dumps(info, indent=2) + "\n")
    print(json.dumps(info, indent=2))


if __name__ == "__main__":
    main()
