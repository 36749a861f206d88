"""Overhead of the PyTorch Trainer (determined.pytorch) against a plain PyTorch loop, in one process.

Both train the same MLP (64 -> --hidden -> --hidden -> 10, SGD) on the same synthetic records, --batches
batches of 32 each, and report the mean training loss every 100 batches:

- plain: a torch DataLoader (shuffled), forward, backward, optimizer step, loss.item() per batch;
- trainer: the same model as a PyTorchTrial, run by `pytorch.init()` and `Trainer.fit(max_length=
  Batch(n), reporting_period=Batch(100))` off-cluster (the Core API's local context): the Trainer's
  sampler, metric reduction, LR scheduler bookkeeping, preemption and searcher checks per batch, and
  the one checkpoint it writes at the end (into a temporary directory).

Each is timed by the process's CPU time (time.process_time: one torch thread, and off-cluster the
Trainer starts no threads), which a neighbour taking this VM's cores (steal time) does not inflate as
it does the wall time. The speed still drifts, so the two run as --runs adjacent pairs (which one goes
first alternates) and each pair gives a ratio trainer / plain; the median of those ratios is the
figure (goal < 1.02), beside the ratio of the medians. Upstream's Trainer is not installable here (PyPI is
unreachable), so it is not in the comparison.

Usage: /usr/bin/python3 bench/trainer_overhead.py [--runs 5] [--batches 3000] [--hidden 256]
"""
import argparse
import logging
import os
import pathlib
import statistics
import sys
import tempfile
import time
from typing import Any, Dict

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "build" / "python"))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from determined import pytorch  # noqa: E402

BATCH = 32
REPORT_EVERY = 100


def records(n: int) -> torch.utils.data.TensorDataset:
    g = torch.Generator().manual_seed(0)
    return torch.utils.data.TensorDataset(torch.randn(n, 64, generator=g), torch.randint(0, 10, (n,), generator=g))


def model(hidden: int) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def plain(batches: int, hidden: int) -> float:
    net = model(hidden)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(records(batches * BATCH), batch_size=BATCH, shuffle=True)
    start = time.process_time()
    losses = []
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if (i + 1) % REPORT_EVERY == 0:
            logging.debug("batch %d loss %f", i + 1, sum(losses) / len(losses))
            losses.clear()
    return time.process_time() - start


class BenchTrial(pytorch.PyTorchTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        hidden = int(context.get_hparam("hidden"))
        self.net = context.wrap_model(model(hidden))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.net.parameters(), lr=0.01))
        # The records are made here, before the clock starts, as the plain loop makes its own.
        self.training_records = records(int(context.get_hparam("batches")) * BATCH)
        self.validation_records = records(BATCH)

    def build_training_data_loader(self) -> pytorch.DataLoader:
        return pytorch.DataLoader(self.training_records, batch_size=BATCH, shuffle=True)

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        return pytorch.DataLoader(self.validation_records, batch_size=BATCH)

    def train_batch(self, batch: Any, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch: Any) -> Dict[str, Any]:
        x, y = batch
        return {"validation_loss": nn.functional.cross_entropy(self.net(x), y)}


def trainer(batches: int, hidden: int) -> float:
    with pytorch.init(hparams={"global_batch_size": BATCH, "hidden": hidden, "batches": batches}) as context:
        trial = BenchTrial(context)
        start = time.process_time()
        pytorch.Trainer(trial, context).fit(max_length=pytorch.Batch(batches),
                                            reporting_period=pytorch.Batch(REPORT_EVERY))
        return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--batches", type=int, default=3000)
    parser.add_argument("--hidden", type=int, default=256)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as data:
        os.environ["XDG_DATA_HOME"] = data  # the local context's checkpoints
        times: Dict[str, list] = {"plain": [], "trainer": []}
        plain(200, args.hidden)  # warm-up: imports, allocator
        modes = [("plain", plain), ("trainer", trainer)]
        for run in range(args.runs):
            for name, fn in modes if run % 2 == 0 else modes[::-1]:
                seconds = fn(args.batches, args.hidden)
                times[name].append(seconds)
                print(f"run {run + 1} {name:8s} {seconds:7.3f} s CPU  {seconds / args.batches * 1e3:6.3f} ms/batch")
            print(f"run {run + 1} ratio    {times['trainer'][-1] / times['plain'][-1]:.4f}")
    p, t = statistics.median(times["plain"]), statistics.median(times["trainer"])
    pairs = statistics.median(tr / pl for tr, pl in zip(times["trainer"], times["plain"]))
    print(f"\nmedian of {args.runs}: plain {p:.3f} s, trainer {t:.3f} s ({args.batches} batches of {BATCH}, "
          f"hidden {args.hidden}, 1 torch thread)")
    print(f"median of the pairs' ratios trainer / plain: {pairs:.4f} (goal < 1.02); ratio of the medians {t / p:.4f}")


if __name__ == "__main__":
    main()
