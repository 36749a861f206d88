"""The GPU check of issue 40 on a real NVIDIA machine (run by bench/gpu_check.sh run; the standard library
only, for any Python 3). It starts a local cluster with our binaries (DET_BIN_DIR) and checks, each a PASS or
FAIL line with what it saw, all in RESULTS/gpu-check.txt:

1. the agent offers each GPU as a cuda slot with the brand and uuid nvidia-smi shows;
2. examples/digits on one GPU slot completes, trained on cuda;
3. the PyTorchTrial example (examples/digits_trial) completes on the GPU, and a run paused and activated
   halfway ends with the very same validation metrics as an uninterrupted one (GPU random state included);
4. our launcher (determined.launch.torch_distributed) runs NCCL with one worker;
5. a profiled trial under load reports its GPU's utilisation above zero (the "gpu" metrics group, NVML).
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request

BIN = pathlib.Path(os.environ["DET_BIN_DIR"])
DEADLINE = time.time() + float(os.environ.get("DET_GPU_CHECK_SECONDS", "330"))
lines = []


def say(text):
    print(text, flush=True)
    lines.append(text)


def det(*args, check=True, timeout=120):
    proc = subprocess.run([str(BIN / "det"), *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError(f"det {' '.join(args)}: {proc.stdout}{proc.stderr}")
    return proc.stdout


class Master:
    def __init__(self, url):
        self.url = url
        body = json.dumps({"username": "determined", "password": ""}).encode()
        req = urllib.request.Request(url + "/api/v1/auth/login", data=body, headers={"Content-Type": "application/json"})
        self.token = json.load(urllib.request.urlopen(req, timeout=30))["token"]

    def get(self, path, **params):
        q = ("?" + urllib.parse.urlencode(params)) if params else ""
        req = urllib.request.Request(self.url + path + q, headers={"Authorization": "Bearer " + self.token})
        with urllib.request.urlopen(req, timeout=60) as resp:
            text = resp.read().decode()
        return [json.loads(line) for line in text.splitlines() if line] if "\n{" in text else json.loads(text)

    def state(self, exp):
        return self.get(f"/api/v1/experiments/{exp}")["experiment"]["state"]

    def wait(self, exp, until=("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED")):
        while time.time() < DEADLINE:
            state = self.state(exp)
            if state in until:
                return state
            time.sleep(1)
        return f"still {self.state(exp)} at the deadline"

    def trial(self, exp):
        trials = self.get(f"/api/v1/experiments/{exp}/trials")["trials"]
        return trials[0]["id"] if trials else None

    def metrics(self, trial, group):
        out = self.get("/api/v1/trials/metrics/trial_metrics", trialIds=trial, group=group)
        out = out if isinstance(out, list) else [out]
        return [m for line in out for m in line["result"]["metrics"]]


def logs(trial):
    return det("trial", "logs", str(trial), check=False)


def create(config_path, context, *overrides):
    out = det("experiment", "create", str(config_path), str(context), *sum((["--config", o] for o in overrides), []))
    return int(re.search(r"Created experiment (\d+)", out).group(1))


def check(name, ok, detail):
    say(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    return ok


def extra_env():
    """environment_variables for every experiment: the scikit-learn stand-in where the machine lacks it."""
    shim = os.environ.get("DET_GPU_CHECK_SHIM")
    return [f"environment.environment_variables=[PYTHONPATH={shim}]"] if shim else []


LOAD = r"""
import time, torch
import determined as det
with det.core.init() as ctx:
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    end = time.time() + 15
    while time.time() < end:
        for _ in range(20):
            y = x @ x
        torch.cuda.synchronize()
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": float(y[0, 0])})
"""

NCCL = r"""
import os, torch, torch.distributed as dist
dist.init_process_group("nccl")
t = torch.ones(4, device="cuda")
dist.all_reduce(t)
print("nccl", dist.get_backend(), "world", dist.get_world_size(), "all_reduce", t.tolist(),
      "on", torch.cuda.get_device_name(0), flush=True)
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repo", type=pathlib.Path, required=True)
    p.add_argument("--results", type=pathlib.Path, required=True)
    a = p.parse_args()
    a.results.mkdir(parents=True, exist_ok=True)
    data = a.results / "cluster"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir()
    os.environ["DET_AUTH_FILE"] = str(data / "auth.json")
    smi = subprocess.run(["nvidia-smi", "--query-gpu=index,name,uuid", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout
    say("nvidia-smi: " + smi.strip().replace("\n", " | "))
    say(det("deploy", "local", "cluster-up", "--agents", "1", "--master-port", "0", "--data-dir", str(data),
            timeout=180).strip().splitlines()[-2])
    url = json.loads((data / "cluster.json").read_text())["master_url"]
    os.environ["DET_MASTER"] = url
    m = Master(url)
    results = []

    def detection():
        slots = det("slot", "list")
        say(slots.rstrip())
        want = [(i.strip(), n.strip(), u.strip()) for i, n, u in (l.split(",") for l in smi.strip().splitlines())]
        got = [(r[2], r[8], r[9]) for r in ([c.strip() for c in l.split("|")] for l in slots.splitlines()[2:])]
        return check("detection", got == want and "TYPE_CUDA" in slots, f"slots {got}, nvidia-smi {want}")

    def digits_on_one_gpu():
        digits = a.repo / "examples" / "digits"
        exp = create(digits / "const.yaml", digits, *extra_env())
        state, text = m.wait(exp), logs(m.trial(exp))
        acc = re.findall(r"final validation accuracy=(\S+)", text)
        return check("digits on one GPU", state == "STATE_COMPLETED" and "training on cuda:0" in text,
                     f"{state}, {'trained on cuda:0' if 'training on cuda:0' in text else 'not on cuda'}, "
                     f"accuracy {acc}")

    def pytorch_trial_resumes_exactly():
        # 4500 batches (validated every 45), long enough to pause halfway.
        trial_dir = a.repo / "examples" / "digits_trial"
        longer = ["searcher.max_length.batches=4500", *extra_env()]
        straight = create(trial_dir / "const.yaml", trial_dir, *longer)
        paused = create(trial_dir / "const.yaml", trial_dir, *longer)
        t = None
        while time.time() < DEADLINE and not t:
            t = m.trial(paused)
            time.sleep(0.2)
        while time.time() < DEADLINE and not any(r["totalBatches"] >= 90 for r in m.metrics(t, "validation")):
            time.sleep(0.2)
        det("experiment", "pause", str(paused))
        m.wait(paused, until=("STATE_PAUSED",))
        det("experiment", "activate", str(paused))
        ends = [m.wait(straight), m.wait(paused)]
        finals = [m.metrics(m.trial(e), "validation") for e in (straight, paused)]
        same = ends == ["STATE_COMPLETED"] * 2 and finals[0] and finals[1] and \
            finals[0][-1]["metrics"] == finals[1][-1]["metrics"]
        text = logs(t)
        device = re.search(r"training on (\S+)", text)
        restored = "restoring trial from checkpoint" in text
        return check("PyTorchTrial on the GPU, paused and resumed exactly",
                     bool(same) and device is not None and device.group(1) == "cuda:0" and restored,
                     f"{ends}, trained on {device.group(1) if device else '?'}, "
                     f"{'restored from its checkpoint' if restored else 'never paused'}; last validation straight {finals[0][-1]['metrics'] if finals[0] else None}, "
                     f"paused {finals[1][-1]['metrics'] if finals[1] else None}")

    work = a.results / "work"
    work.mkdir(exist_ok=True)

    def nccl_with_one_worker():
        (work / "nccl.py").write_text(NCCL)
        (work / "nccl.yaml").write_text(
            "name: nccl\nentrypoint: python3 -m determined.launch.torch_distributed -- python3 nccl.py\n"
            "searcher: {name: single, metric: loss}\nresources: {slots_per_trial: 1}\nmax_restarts: 0\n")
        exp = create(work / "nccl.yaml", work)
        state, text = m.wait(exp), logs(m.trial(exp))
        line = re.search(r"nccl nccl world 1 all_reduce \[1.0, 1.0, 1.0, 1.0\].*", text)
        return check("NCCL with one worker", state == "STATE_COMPLETED" and line is not None,
                     f"{state}, {line.group(0) if line else 'no all_reduce line'}")

    def gpu_figures_under_load():
        (work / "load.py").write_text(LOAD)
        nvml = os.environ.get("DET_GPU_CHECK_NVML_DIR")
        env = [f"LD_LIBRARY_PATH={nvml}", "DET_FAKE_GPU_UTIL=50"] if nvml else []
        (work / "load.yaml").write_text(
            "name: load\nentrypoint: python3 load.py\nsearcher: {name: single, metric: loss}\n"
            "resources: {slots_per_trial: 1}\nmax_restarts: 0\nprofiling: {enabled: true}\n"
            f"environment: {{environment_variables: {json.dumps(env)}}}\n")
        exp = create(work / "load.yaml", work)
        state = m.wait(exp)
        reports = m.metrics(m.trial(exp), "gpu")
        utils = [u["gpu_util"] for r in reports for per_gpu in r["metrics"]["avg_metrics"].values()
                 for u in per_gpu.values()]
        return check("GPU utilisation reported under load", bool(utils) and max(utils) > 0,
                     f"{state}, gpu_util {utils}")

    try:
        for step in (detection, digits_on_one_gpu, pytorch_trial_resumes_exactly, nccl_with_one_worker,
                     gpu_figures_under_load):
            try:
                results.append(step())
            except Exception as e:  # the other checks still run
                results.append(check(step.__name__, False, f"{type(e).__name__}: {e}"))
    finally:
        det("deploy", "local", "cluster-down", "--data-dir", str(data), check=False, timeout=120)
        say(f"{sum(results)} of 5 checks passed")
        (a.results / "gpu-check.txt").write_text("\n".join(lines) + "\n")
    return 0 if len(results) == 5 and all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
