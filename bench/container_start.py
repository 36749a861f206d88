#!/usr/bin/python3
"""Container start against the process runtime, side by side in one run: a local cluster whose agent has a container
engine (scripts/local-containers.sh: dockerd, or podman) runs N commands printing one line, alternately as a process
on the host and in the test image (pulled once beforehand), one at a time; for each, the seconds from its POST
/api/v1/commands to its first output line being readable through GET /api/v1/tasks/{id}/logs.

    /usr/bin/python3 bench/container_start.py [--runs 10]"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("DET_BIN_DIR", REPO / "build" / "bin"))
sys.path.insert(0, str(REPO / "bench"))
import requests  # noqa: E402


def first_line_seconds(master, session, config):
    start = time.monotonic()
    resp = session.post(f"{master}/api/v1/commands", json={"config": config}, timeout=60)
    resp.raise_for_status()
    task_id = resp.json()["command"]["id"]
    while time.monotonic() - start < 120:
        logs = session.get(f"{master}/api/v1/tasks/{task_id}/logs", timeout=30).text
        if "first-line" in logs:
            return time.monotonic() - start
        time.sleep(0.005)
    raise SystemExit("no first line after 120 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    env_dir = pathlib.Path(tempfile.mkdtemp(prefix="det-bench-containers-"))
    env_dir.chmod(0o755)
    out = subprocess.run(["bash", str(REPO / "scripts/local-containers.sh"), "start", str(env_dir)], check=True,
                         capture_output=True, text=True).stdout
    containers = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    data = pathlib.Path(tempfile.mkdtemp(prefix="det-bench-cluster-"))
    env = dict(os.environ, DOCKER_HOST=containers["DOCKER_HOST"], DET_AUTH_FILE=str(data / "auth.json"))
    try:
        subprocess.run([str(BIN / "det"), "deploy", "local", "cluster-up", "--agents", "1", "--slots", "1",
                        "--master-port", "0", "--data-dir", str(data)], check=True, env=env, capture_output=True)
        master = json.loads((data / "cluster.json").read_text())["master_url"]
        session = requests.Session()
        token = session.post(f"{master}/api/v1/auth/login", json={"username": "determined", "password": ""}).json()
        session.headers["Authorization"] = f"Bearer {token['token']}"
        image = f"{containers['DET_TEST_REGISTRY']}/{containers['DET_TEST_IMAGE']}"
        process = {"entrypoint": ["echo", "first-line"]}
        container = dict(process, environment={"image": image})
        first_line_seconds(master, session, container)  # pulls the image
        times = {"process": [], "container": []}
        for _ in range(args.runs):
            times["process"].append(first_line_seconds(master, session, process))
            times["container"].append(first_line_seconds(master, session, container))
        engine = subprocess.run(["grep", "-h", "run in containers of", str(data / "agent-0.log")],
                                capture_output=True, text=True).stdout.strip().split("containers of ")[-1]
        print(f"engine: {engine}; {os.cpu_count()} CPUs; {args.runs} runs each")
        for kind, ts in times.items():
            print(f"{kind:9}: median {statistics.median(ts) * 1000:.0f} ms, min {min(ts) * 1000:.0f} ms, "
                  f"max {max(ts) * 1000:.0f} ms")
        print(f"container / process (medians): {statistics.median(times['container']) / statistics.median(times['process']):.1f}x")
    finally:
        subprocess.run([str(BIN / "det"), "deploy", "local", "cluster-down", "--data-dir", str(data)], env=env,
                       capture_output=True)
        subprocess.run(["bash", str(REPO / "scripts/local-containers.sh"), "stop", str(env_dir)], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(env_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
