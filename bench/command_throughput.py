#!/usr/bin/python3
"""Trivial commands through the task core, end to end: N commands (`true`) submitted through the REST API
at once (POST /api/v1/commands from several threads) to one agent with 2 slots; reports jobs completed per
second from the first submission until the last command has ended, and the master's resident memory
before and after. With --rss-total M it goes on in rounds of N until M commands have finished and
reports the RSS after each round.

    /usr/bin/python3 bench/command_throughput.py [--commands 500] [--rss-total 10000]

Anchor (issue 18): Slurm 22.05 on this machine type completes 2.1 jobs/s (`sbatch --wrap true`). Goal:
at least 100 jobs/s."""
import argparse
import concurrent.futures
import os
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))
sys.path.insert(0, str(REPO / "bench"))
from local_cluster import local_cluster  # noqa: E402

SLURM_JOBS_PER_SECOND = 2.1
GOAL_JOBS_PER_SECOND = 100


def rss_mib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def submit(cluster, n, threads=16):
    def one(_):
        resp = cluster.session.post(f"{cluster.master}/api/v1/commands",
                                    json={"config": {"entrypoint": ["true"]}}, timeout=120)
        resp.raise_for_status()
        return resp.json()["command"]["id"]

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, range(n)))


def wait_queue_empty(cluster, timeout=900):
    """Until no job is queued or running. Polled 5 times a second: the answer lists every queued job, and
    polling faster would take CPU from the cluster being measured (at most 0.2 s of the figure)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        jobs = cluster.session.get(f"{cluster.master}/api/v1/job-queues", params={"limit": 1}, timeout=60).json()
        if jobs["pagination"]["total"] == 0:
            return
        time.sleep(0.2)
    raise SystemExit(f"commands still queued after {timeout}s")


def check_all_succeeded(cluster, ids):
    resp = cluster.session.get(f"{cluster.master}/api/v1/commands", params={"limit": 0}, timeout=300).json()
    by_id = {c["id"]: c for c in resp["commands"]}
    failed = [i for i in ids if by_id.get(i, {}).get("exitCode") != 0]
    if failed:
        raise SystemExit(f"{len(failed)} of {len(ids)} commands did not exit 0, e.g. {by_id.get(failed[0])}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=500)
    parser.add_argument("--rss-total", type=int, default=0, help="go on until this many commands have finished")
    parser.add_argument("--tmp-root", default=None,
                        help="where the cluster's data and the agent's task directories go (default: the system's "
                             "temporary directory; /dev/shm takes the disk's inode allocation out of the figure)")
    args = parser.parse_args()
    with local_cluster(str(BIN / "det"), agents=1, slots=2, tmp_root=args.tmp_root) as cluster:
        rss_start = rss_mib(cluster.master_pid)
        start = time.monotonic()
        ids = submit(cluster, args.commands)
        submitted = time.monotonic() - start
        wait_queue_empty(cluster)
        elapsed = time.monotonic() - start
        check_all_succeeded(cluster, ids)
        rate = args.commands / elapsed
        print(f"{args.commands} commands: submitted in {submitted:.2f} s, all ended after {elapsed:.2f} s")
        print(f"jobs completed per second: {rate:.1f} (Slurm 22.05 anchor {SLURM_JOBS_PER_SECOND}: "
              f"{rate / SLURM_JOBS_PER_SECOND:.0f}x; goal >= {GOAL_JOBS_PER_SECOND}: "
              f"{'met' if rate >= GOAL_JOBS_PER_SECOND else 'NOT met'})")
        print(f"master RSS: {rss_start:.1f} MiB before, {rss_mib(cluster.master_pid):.1f} MiB after "
              f"{args.commands} commands")
        done = args.commands
        while done < args.rss_total:
            n = min(args.commands, args.rss_total - done)
            submit(cluster, n)
            wait_queue_empty(cluster)
            done += n
            if done % 2000 == 0 or done == args.rss_total:
                print(f"master RSS after {done} finished commands: {rss_mib(cluster.master_pid):.1f} MiB", flush=True)


if __name__ == "__main__":
    main()
