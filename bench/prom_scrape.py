#!/usr/bin/python3
"""The cost of a Prometheus scrape of the master (docs/prometheus.md): latency and size of
GET /debug/prom/metrics and GET /prom/det-state-metrics on a cluster with some load: AGENTS agents with
SLOTS slots each, EXPERIMENTS single-trial experiments of a sleeping trial (so that some run and the rest
queue), and CLIENTS threads requesting a mix of routes with ids during the scrapes (so that the request
histograms have many series).

    /usr/bin/python3 bench/prom_scrape.py [--scrapes 300] [--agents 4] [--slots 2] [--experiments 12] [--clients 4]

Starts its own local cluster from build/bin (DET_BIN_DIR) with `det deploy local cluster-up`."""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))
sys.path.insert(0, str(REPO / "bench"))
from local_cluster import local_cluster  # noqa: E402


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def scrape_stats(session, url, scrapes):
    times, size = [], 0
    for _ in range(scrapes):
        start = time.perf_counter()
        resp = session.get(url, timeout=30)
        times.append(time.perf_counter() - start)
        resp.raise_for_status()
        size = len(resp.content)
    return times, size


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scrapes", type=int, default=300)
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--experiments", type=int, default=12)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    with local_cluster(str(BIN / "det"), agents=args.agents, slots=args.slots) as cluster:
        model = pathlib.Path(tempfile.mkdtemp(dir=cluster.data_dir))
        (model / "sleep.py").write_text("import time\ntime.sleep(3600)\n")
        (model / "exp.yaml").write_text("name: sleeper\nentrypoint: python3 sleep.py\nlabels: [bench, prom]\n"
                                        "searcher: {name: single, metric: loss}\nmax_restarts: 0\n")
        exp_ids = []
        for _ in range(args.experiments):
            out = subprocess.run([str(BIN / "det"), "experiment", "create", str(model / "exp.yaml"), str(model)],
                                 check=True, env=cluster.env, capture_output=True, text=True).stdout
            exp_ids.append(int(re.search(r"Created experiment (\d+)", out).group(1)))
        running_target = min(args.experiments, args.agents * args.slots)
        deadline = time.time() + 120
        while time.time() < deadline:
            text = cluster.session.get(f"{cluster.master}/prom/det-state-metrics").text
            if text.count("det_container_id_allocation_id{") >= running_target:
                break
            time.sleep(0.5)

        requests_done = [0]

        def load(stop):
            import requests
            s = requests.Session()
            s.headers.update(cluster.session.headers)
            i = 0
            while not stop.is_set():
                exp = exp_ids[i % len(exp_ids)]
                for path in (f"/api/v1/experiments/{exp}", f"/api/v1/experiments/{exp}/trials", "/api/v1/agents",
                             "/api/v1/job-queues", f"/api/v1/nothing/{i}"):
                    s.get(cluster.master + path, timeout=30)
                    requests_done[0] += 1
                i += 1

        results = {}
        for label in ("idle", "loaded"):
            stop = threading.Event()
            threads = []
            if label == "loaded":
                threads = [threading.Thread(target=load, args=(stop,), daemon=True) for _ in range(args.clients)]
                for t in threads:
                    t.start()
                time.sleep(2)
            for path in ("/debug/prom/metrics", "/prom/det-state-metrics"):
                results[(label, path)] = scrape_stats(cluster.session, cluster.master + path, args.scrapes)
            stop.set()
            for t in threads:
                t.join()
        series = sum(1 for line in cluster.session.get(f"{cluster.master}/debug/prom/metrics").text.splitlines()
                     if line and not line.startswith("#"))
        print(f"cluster: {args.agents} agents x {args.slots} slots, {args.experiments} sleeping experiments "
              f"({running_target} running), {args.clients} load clients ({requests_done[0]} requests)")
        print(f"/debug/prom/metrics series after the run: {series}")
        print("| load | path | scrapes | median | p95 | max | body |")
        print("|---|---|---|---|---|---|---|")
        for (label, path), (times, size) in results.items():
            print(f"| {label} | `{path}` | {len(times)} | {statistics.median(times) * 1000:.2f} ms | "
                  f"{percentile(times, 0.95) * 1000:.2f} ms | {max(times) * 1000:.2f} ms | {size} B |")


if __name__ == "__main__":
    main()
