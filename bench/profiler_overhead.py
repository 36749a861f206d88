"""What the profiler costs a training run: the same PyTorchTrial trained by the Trainer with profiling off
and on (`fit(profiling_enabled=True)`: the default sampling interval of 1 s and 10 samples a report,
plus the loop's timings), side by side in one process.

The trial is bench/trainer_overhead.py's (an MLP 64 -> --hidden -> --hidden -> 10, SGD, batches of 32).
The Trainer runs as on a cluster: its training metrics, progress and the profiler's reports go through
the harness's native reporter to a stand-in master (a recording HTTP server in a child process), and
the profiler samples this machine with the real collectors (cpu, memory, disk, network; no GPU here).

Each run is timed by process CPU time (all threads: the profiler's sampling thread and the native
reporter's are counted against it) and by wall time. The runs go as --runs adjacent pairs, the order
alternating, and each pair gives a ratio on / off; the medians of those ratios are the figures (goal:
under 1.01). Two direct figures are printed too: the CPU time of one sample of every collector, and of
one batch's timings (five phases).

Usage: /usr/bin/python3 bench/profiler_overhead.py [--runs 7] [--batches 3000] [--hidden 256]
"""
import argparse
import collections
import http.server
import json
import logging
import multiprocessing
import os
import pathlib
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Tuple

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "build" / "python"))

import torch  # noqa: E402

import determined as det  # noqa: E402
from determined import core, pytorch  # noqa: E402
from determined._native import native  # noqa: E402
from determined.core import _profiler, _system_metrics  # noqa: E402
from determined.pytorch import _profiling  # noqa: E402
from trainer_overhead import BATCH, REPORT_EVERY, BenchTrial  # noqa: E402


def serve(port: Any) -> None:
    """The stand-in master: {} to every request (the preemption poll never comes: the context is local)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _reply(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        do_POST = do_GET = _reply

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port.value = server.server_port
    server.serve_forever()


def cluster_info(hidden: int, batches: int) -> det.ClusterInfo:
    return det.ClusterInfo(
        master_url="http://127.0.0.1:1", cluster_id="bench", agent_id="bench-agent", slot_ids=[0],
        task_id="1.1", allocation_id="1.1.1", session_token="t", task_type="TRIAL",
        trial_info=det.TrialInfo(
            trial_id=1, experiment_id=1, trial_seed=0, config={},
            hparams={"global_batch_size": BATCH, "hidden": hidden, "batches": batches},
            steps_completed=0, trial_run_id=1))


def run(master: str, profiled: bool, batches: int, hidden: int, reports: Dict[str, int]) -> Tuple[float, float]:
    """(CPU seconds, wall seconds) of one fit(); counts the profiler's reports by group into `reports`."""
    info = cluster_info(hidden, batches)
    core_context = core._dummy_init(checkpoint_storage=os.path.join(os.getcwd(), "..", "checkpoints"))
    native_train = native().TrainContext(master, "token", 1, 1, 1)
    core_context.train = core.TrainContext(native_train, 1, pathlib.Path(tempfile.gettempdir()))
    core_context.info = info

    def report(group: str, metrics: Dict[str, Any], steps: int) -> None:
        reports[group] += 1
        core_context.train._report_profiling(group, metrics, steps)

    core_context.profiler = _profiler.ProfilerContext(
        report, info.agent_id, lambda: _system_metrics.machine_collectors(["/", os.getcwd()], []))
    with core_context:
        context = pytorch.PyTorchTrialContext(
            core_context=core_context, trial_seed=0, hparams=dict(info.trial.hparams), slots_per_trial=1,
            num_gpus=0, exp_conf={}, aggregation_frequency=1, steps_completed=0, managed_training=True,
            debug_enabled=False, enable_tensorboard_logging=False)
        trial = BenchTrial(context)
        cpu, wall = time.process_time(), time.perf_counter()
        pytorch.Trainer(trial, context).fit(
            max_length=pytorch.Batch(batches), reporting_period=pytorch.Batch(REPORT_EVERY),
            checkpoint_policy="none", profiling_enabled=profiled)
        core_context.profiler.off()
        core_context.train._flush()
        return time.process_time() - cpu, time.perf_counter() - wall


def cpu_per_call(fn: Callable[[], None], n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - start) / n


def direct_figures() -> Tuple[float, float]:
    """(CPU seconds of one sample of every collector, CPU seconds of one batch's five timed phases)."""
    collectors = _system_metrics.machine_collectors(["/", os.getcwd()], [])
    sample = cpu_per_call(lambda: [c.sample() for c in collectors], 2000)
    timings = _profiling.LoopTimings()

    def batch() -> None:
        for name in ("dataloader_next", "to_device", "train_batch", "backward", "optimizer_step"):
            timings.stop(name, timings.start())

    per_batch = cpu_per_call(batch, 100_000)
    return sample, per_batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--batches", type=int, default=3000)
    parser.add_argument("--hidden", type=int, default=256)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    torch.set_num_threads(1)
    port = multiprocessing.Value("i", 0)
    server = multiprocessing.Process(target=serve, args=(port,), daemon=True)
    server.start()
    while port.value == 0:
        time.sleep(0.01)
    master = f"http://127.0.0.1:{port.value}"
    with tempfile.TemporaryDirectory() as workdir:
        # The Trainer copies the working directory into checkpoints, as on a cluster: an empty one.
        os.mkdir(os.path.join(workdir, "code"))
        os.chdir(os.path.join(workdir, "code"))
        reports: Dict[str, int] = collections.Counter()
        run(master, False, 200, args.hidden, reports)  # warm-up
        times: Dict[str, list] = {"off": [], "on": []}
        modes = [("off", False), ("on", True)]
        for i in range(args.runs):
            for name, profiled in modes if i % 2 == 0 else modes[::-1]:
                cpu, wall = run(master, profiled, args.batches, args.hidden, reports)
                times[name].append((cpu, wall))
                print(f"run {i + 1} profiler {name:3s} {cpu:7.3f} s CPU {wall:7.3f} s wall  "
                      f"{cpu / args.batches * 1e3:6.3f} ms/batch CPU")
            print(f"run {i + 1} ratio on/off: CPU {times['on'][-1][0] / times['off'][-1][0]:.4f}, "
                  f"wall {times['on'][-1][1] / times['off'][-1][1]:.4f}")
        sample, per_batch = direct_figures()
    server.terminate()
    for k, label in ((0, "CPU"), (1, "wall")):
        off = statistics.median(t[k] for t in times["off"])
        on = statistics.median(t[k] for t in times["on"])
        pairs = sorted(a[k] / b[k] for a, b in zip(times["on"], times["off"]))
        print(f"{label}: median off {off:.3f} s, on {on:.3f} s; median of the pairs' ratios on/off "
              f"{statistics.median(pairs):.4f} (goal < 1.01), ratio of the medians {on / off:.4f}; pairs "
              + ", ".join(f"{p:.3f}" for p in pairs))
    print(f"profiler reports sent while on: {json.dumps(dict(sorted(reports.items())))}")
    print(f"one sample of every collector: {sample * 1e6:.0f} us CPU ({sample * 100:.3f} % of a core at 1 s); "
          f"one batch's timings: {per_batch * 1e6:.2f} us CPU")
    print(f"({args.batches} batches of {BATCH}, hidden {args.hidden}, 1 torch thread, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
