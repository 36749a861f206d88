"""Cost of reporting a training metric every step, measured inside real trials on a real local cluster.

Starts a local cluster (master + 1 agent, 1 slot) and runs the same trial script as alternating
experiments: a 10,000-step loop with a fixed amount of CPU work per step (a pure-Python arithmetic
loop, ~1 ms on the reference VM), once calling `core_context.train.report_training_metrics` every
step and once not. The trial times itself with time.perf_counter():

- loop: the 10,000 steps (what the training loop feels: report() queues and returns);
- close: leaving `det.core.init()`, which waits for every queued report to reach the master;
- cpu: the trial process's CPU time over the loop (the reporter thread's HTTP work included);
- thread: the training thread's own CPU time over the loop (the synchronous cost of the calls).

Before the cluster runs, it measures the synchronous cost of one report_training_metrics call in this
process, against a master that accepts the connection and never answers (so the reporter thread sends
nothing and only the call itself is timed).

Also the master's CPU time over each whole experiment (from /proc), to show where the reports' cost goes
on a machine whose cores the trial shares with the master.

Each mode runs --runs times, interleaved; prints every run and the medians, and the ratio of the
medians (reporting / not reporting) for loop and loop + close. Goal: loop ratio < 1.01.

This VM's speed drifts by more than 1 % between experiments, so the same comparison also runs inside
one trial ("interleaved", --runs trials): --steps steps reporting every step and --steps steps not,
in alternating blocks of --block steps, each block timed. Neighbouring blocks run at the same machine
speed, so the ratio of the two sums is what the reports cost the loop; reports still being sent when
a reporting block ends are charged to the next, non-reporting block, which can only hide overhead
worth at most one batch per block.
Usage: /usr/bin/python3 bench/harness_overhead.py [--runs 3] [--steps 10000] [--work 25000] [--block 1000]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time


from local_cluster import local_cluster, run_experiment

REPO = pathlib.Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of process `pid` (and its waited-for children), in seconds."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / CLK_TCK

TRIAL = """
import json
import os
import time

import determined as det

hp = det.get_cluster_info().trial.hparams
steps, work, mode, block = int(hp["steps"]), int(hp["work"]), hp["mode"], int(hp["block"])
report = mode == "report"


def step_work(n):
    acc = 0
    for i in range(n):
        acc += i * i
    return acc


with det.core.init() as core_context:
    train = core_context.train
    if mode == "interleaved":
        # Alternating blocks: block n reports when n is odd; 2 * steps steps in all.
        times = {True: 0.0, False: 0.0}
        step = 0
        for n in range(2 * steps // block):
            reporting = n % 2 == 1
            t0 = time.perf_counter()
            for _ in range(block):
                step += 1
                loss = step_work(work) % 1000 / 1000.0
                if reporting:
                    train.report_training_metrics(steps_completed=step, metrics={"loss": loss})
            times[reporting] += time.perf_counter() - t0
        print("BENCH " + json.dumps({"plain": times[False], "report": times[True]}), flush=True)
        raise SystemExit(0)
    cpu0, thread0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
    if report:
        for step in range(1, steps + 1):
            loss = step_work(work) % 1000 / 1000.0
            train.report_training_metrics(steps_completed=step, metrics={"loss": loss})
    else:
        for step in range(1, steps + 1):
            loss = step_work(work) % 1000 / 1000.0
    loop, cpu, thread = time.perf_counter() - t0, time.process_time() - cpu0, time.thread_time() - thread0
    t1 = time.perf_counter()
close = time.perf_counter() - t1
print("BENCH " + json.dumps({"report": report, "loop": loop, "close": close, "cpu": cpu, "thread": thread}), flush=True)
"""


def print_queue_only_cost(calls=20000):
    """Prints microseconds per TrainContext.report_training_metrics call when nothing is sent, and
    exits the process."""
    import socket
    sys.path.insert(0, str(REPO / "build" / "python"))
    from determined._native import native
    from determined.core._train import TrainContext

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(128)
    native_ctx = native().TrainContext(f"http://127.0.0.1:{silent.getsockname()[1]}", "token", 1, 1, 1)
    train = TrainContext(native_ctx, 1, pathlib.Path(tempfile.gettempdir()))
    t = time.perf_counter()
    for step in range(calls):
        train.report_training_metrics(steps_completed=step, metrics={"loss": 0.5})
    print(f"{(time.perf_counter() - t) / calls * 1e6:.1f}", flush=True)
    # Leaving would close the reporter, which waits for the queued reports: exit at once instead.
    os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3, help="experiments per mode")
    parser.add_argument("--steps", type=int, default=10000)
    parser.add_argument("--work", type=int, default=25000, help="inner-loop iterations per step")
    parser.add_argument("--block", type=int, default=1000, help="steps per block in the interleaved trials")
    parser.add_argument("--bin-dir", default=str(REPO / "build" / "bin"))
    args = parser.parse_args()
    if args.steps % args.block:
        parser.error(f"--steps ({args.steps}) must be a multiple of --block ({args.block})")
    det_bin = str(pathlib.Path(args.bin_dir) / "det")

    # In a child process: its reporter thread never finishes its first POST, so the child exits hard.
    micro = subprocess.run([sys.executable, __file__, "--queue-only"], check=True, capture_output=True,
                           text=True, timeout=120).stdout.strip()
    print(f"report_training_metrics, queue only (nothing sent): {micro} us/call", flush=True)

    with local_cluster(det_bin) as cluster:
        master, master_pid, s = cluster.master, cluster.master_pid, cluster.session
        model = cluster.data_dir / "model"
        model.mkdir()
        (model / "trial.py").write_text(TRIAL)

        def experiment(mode):
            """Runs the trial in `mode` ("plain", "report" or "interleaved"); returns its experiment id and
            BENCH figures, with the master's CPU seconds over the experiment as "master_cpu"."""
            (model / "bench.yaml").write_text(
                "name: harness-overhead\nentrypoint: python3 trial.py\n"
                f"hyperparameters: {{steps: {args.steps}, work: {args.work}, mode: {mode}, block: {args.block}}}\n"
                "searcher: {name: single, metric: loss}\nmax_restarts: 0\n")
            master_cpu = cpu_seconds(master_pid)
            exp_id, state, trial_id, logs = run_experiment(cluster, det_bin, model / "bench.yaml", model)
            master_cpu = cpu_seconds(master_pid) - master_cpu
            if state != "STATE_COMPLETED" or "BENCH " not in logs:
                sys.exit(f"experiment {exp_id} ended {state}:\n{logs[-3000:]}")
            fig = json.loads(logs.split("BENCH ", 1)[1].splitlines()[0])
            fig["master_cpu"] = master_cpu
            if mode != "plain":
                r = s.get(f"{master}/api/v1/trials/metrics/trial_metrics",
                          params={"trialIds": trial_id, "group": "training"})
                n = sum(len(json.loads(line)["result"]["metrics"]) for line in r.text.splitlines() if line)
                if n != args.steps:
                    sys.exit(f"experiment {exp_id}: {n} training reports arrived, expected {args.steps}")
            return exp_id, fig

        def run(report):
            exp_id, fig = experiment("report" if report else "plain")
            print(f"{'report' if report else 'plain '} exp {exp_id}: loop {fig['loop']:.3f} s, "
                  f"close {fig['close']:.3f} s, cpu {fig['cpu']:.3f} s (loop thread {fig['thread']:.3f} s), master cpu {fig['master_cpu']:.3f} s", flush=True)
            return fig

        results = {True: [], False: []}
        for _ in range(args.runs):
            for report in (False, True):
                results[report].append(run(report))

        def med(report, key):
            return statistics.median(f[key] for f in results[report])

        def med_total(report):
            return statistics.median(f["loop"] + f["close"] for f in results[report])

        plain, reported = med(False, "loop"), med(True, "loop")
        print(f"{args.steps} steps, {args.work} work iterations per step, {args.runs} runs per mode (medians):")
        print(f"  no reporting:         loop {plain:.3f} s ({plain / args.steps * 1e6:.0f} us/step), "
              f"loop+close {med_total(False):.3f} s, cpu {med(False, 'cpu'):.3f} s "
              f"(loop thread {med(False, 'thread'):.3f} s), "
              f"master cpu {med(False, 'master_cpu'):.3f} s")
        print(f"  report every step:    loop {reported:.3f} s ({reported / args.steps * 1e6:.0f} us/step), "
              f"loop+close {med_total(True):.3f} s, cpu {med(True, 'cpu'):.3f} s "
              f"(loop thread {med(True, 'thread'):.3f} s), "
              f"master cpu {med(True, 'master_cpu'):.3f} s")
        print(f"  ratio loop {reported / plain:.4f} ({(reported - plain) / args.steps * 1e6:+.1f} us/step), "
              f"ratio loop+close {med_total(True) / med_total(False):.4f}, "
              f"ratio loop-thread cpu {med(True, 'thread') / med(False, 'thread'):.4f} (goal: loop < 1.01)")

        ratios = []
        for _ in range(args.runs):
            exp_id, fig = experiment("interleaved")
            ratios.append(fig["report"] / fig["plain"])
            print(f"interleaved exp {exp_id}: {args.steps} steps in {args.block}-step blocks: not reporting "
                  f"{fig['plain']:.3f} s, reporting {fig['report']:.3f} s, ratio {ratios[-1]:.4f}", flush=True)
        print(f"  interleaved in one trial: ratio {statistics.median(ratios):.4f} (median of {args.runs}; "
              f"min {min(ratios):.4f}, max {max(ratios):.4f}; goal < 1.01)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--queue-only"]:
        print_queue_only_cost()
    main()
