#!/usr/bin/env bash
# Runs every benchmark against the current build and prints the figures (see bench/RESULTS.md).
# --large-db (first argument): also the large-database benchmarks (query latency on 10M metric rows,
# metric ingestion); the first time this makes the database under bench/out/ (~80 s, 1.5 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
large_db=0
if [[ "${1:-}" == "--large-db" ]]; then
  large_db=1
  shift
fi
/usr/bin/python3 bench/create_to_first_metric.py "$@"
/usr/bin/python3 bench/harness_overhead.py
/usr/bin/python3 bench/store_path_throughput.py
if (( large_db )); then
  [[ -f bench/out/metricsdb/bench_db.json ]] || /usr/bin/python3 bench/metrics_db_gen.py
  /usr/bin/python3 bench/query_bench.py
  /usr/bin/python3 bench/ingest_bench.py
fi
