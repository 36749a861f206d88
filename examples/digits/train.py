"""
Trains a small MLP (64 -> hidden -> 10) on scikit-learn's bundled 8x8 digits with the Determined
Core API: per-epoch training and validation metrics, a checkpoint every epoch, resuming from the
latest checkpoint, and exiting early when the master asks the trial to stop.

Runs unchanged on a cluster (``det experiment create const.yaml .``) and off-cluster
(``python3 train.py``), where the hyperparameters below are used and checkpoints stay local.

Distributed (distributed.yaml): launched by ``python3 -m determined.launch.torch_distributed``, every worker
trains a DistributedDataParallel replica on its share of each global batch; only the chief (rank 0) reports
metrics and saves checkpoints, and all workers stop at the same batch when the trial is preempted.

How long a trial trains: ``searcher.max_time`` batches when the searcher measures time in batches
(``time_metric: batches``, as adaptive.yaml does), else ``data.max_batches``, else the ``epochs``
hyperparameter. It validates
(and checkpoints) every ``data.validation_period_batches`` batches, else once per epoch; every
validation report carries ``batches``, the searcher's time metric.
"""

import logging
import os
import pathlib
from typing import Any, Dict, Optional, Tuple

import torch
import torch.distributed
from sklearn.datasets import load_digits
from torch import nn
from torch.nn.parallel import DistributedDataParallel

import determined as det

# The same values as const.yaml, for running off-cluster.
DEFAULT_HPARAMS = {"learning_rate": 0.1, "hidden_size": 128, "global_batch_size": 32, "epochs": 5}


def load_data() -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """80/20 train/validation split of the 1797 digits, the same split for every trial."""
    x, y = load_digits(return_X_y=True)
    x = torch.tensor(x / 16.0, dtype=torch.float32)
    y = torch.tensor(y, dtype=torch.long)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    n_val = len(x) // 5
    val, train = perm[:n_val], perm[n_val:]
    return x[train], y[train], x[val], y[val]


def training_device(local_rank: int) -> torch.device:
    """The trial's GPU for this worker (the agent shows each task only its own GPUs, and the launcher's
    LOCAL_RANK picks one), else the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda", local_rank % torch.cuda.device_count())
    return torch.device("cpu")


def build_model(hidden_size: int) -> nn.Module:
    return nn.Sequential(nn.Linear(64, hidden_size), nn.ReLU(), nn.Linear(hidden_size, 10))


def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> Tuple[float, float]:
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    return loss, accuracy


def save_state(path: pathlib.Path, model: nn.Module, opt: torch.optim.Optimizer, epoch: int,
               steps: int) -> None:
    torch.save(
        {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch,
         "steps_completed": steps},
        path / "state.pt",
    )


def load_state(path: pathlib.Path, model: nn.Module, opt: torch.optim.Optimizer) -> Tuple[int, int]:
    state = torch.load(path / "state.pt", map_location=next(model.parameters()).device)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    return int(state["epoch"]), int(state["steps_completed"])


def training_plan(config: Dict[str, Any], hparams: Dict[str, Any],
                  batches_per_epoch: int) -> Tuple[int, int]:
    """(total batches, batches between validations) for this trial."""
    searcher = config.get("searcher") or {}
    data = config.get("data") or {}
    if searcher.get("time_metric") == "batches" and searcher.get("max_time"):
        total = int(searcher["max_time"])
    elif data.get("max_batches"):
        total = int(data["max_batches"])
    else:
        total = int(hparams["epochs"]) * batches_per_epoch
    period = int(data.get("validation_period_batches") or batches_per_epoch)
    return total, max(1, period)


def train(core_context: det.core.Context, hparams: Dict[str, Any], seed: int,
          latest_checkpoint: Optional[str], config: Dict[str, Any]) -> Dict[str, float]:
    torch.manual_seed(seed)
    dist = core_context.distributed
    chief = dist.rank == 0
    device = training_device(dist.local_rank)
    x_train, y_train, x_val, y_val = (t.to(device) for t in load_data())
    model = build_model(int(hparams["hidden_size"])).to(device)
    print(f"training on {device}", flush=True)
    opt = torch.optim.SGD(model.parameters(), lr=float(hparams["learning_rate"]), momentum=0.9)
    batch_size = int(hparams["global_batch_size"])
    # Each worker trains on its share of every global batch; DDP averages the gradients.
    shard = (batch_size + dist.size - 1) // dist.size
    ddp_model = model
    if dist.size > 1:
        ddp_model = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    batches_per_epoch = (len(x_train) + batch_size - 1) // batch_size
    total_batches, period = training_plan(config, hparams, batches_per_epoch)

    steps = 0
    if latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(latest_checkpoint) as path:
            _, steps = load_state(path, model, opt)
        print(f"resumed from checkpoint {latest_checkpoint} at step {steps}", flush=True)

    results: Dict[str, float] = {}
    total_loss, since_report = 0.0, 0
    while steps < total_batches:
        epoch, offset = divmod(steps, batches_per_epoch)
        # Shuffle per (seed, epoch), so a resumed trial sees the batches it would have seen.
        order = torch.randperm(len(x_train), generator=torch.Generator().manual_seed(seed + epoch)).to(device)
        idx = order[offset * batch_size:(offset + 1) * batch_size][dist.rank * shard:(dist.rank + 1) * shard]
        ddp_model.train()
        opt.zero_grad()
        loss = nn.functional.cross_entropy(ddp_model(x_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
        if dist.size > 1:
            loss = loss.detach()
            torch.distributed.all_reduce(loss)
            loss /= dist.size
        total_loss += loss.item()
        since_report += 1
        steps += 1
        if steps % period != 0 and steps != total_batches:
            continue

        train_loss = total_loss / since_report
        total_loss, since_report = 0.0, 0
        val_loss, accuracy = evaluate(model, x_val, y_val)
        results = {"validation_loss": val_loss, "accuracy": accuracy, "batches": steps}
        if chief:
            core_context.train.report_training_metrics(steps_completed=steps,
                                                       metrics={"loss": train_loss})
            core_context.train.report_validation_metrics(steps_completed=steps, metrics=results)
            print(f"batch {steps}/{total_batches}: loss={train_loss:.4f} "
                  f"validation_loss={val_loss:.4f} accuracy={accuracy:.4f}", flush=True)
            with core_context.checkpoint.store_path({"steps_completed": steps}) as (path, uuid):
                save_state(path, model, opt, steps // batches_per_epoch, steps)
            print(f"saved checkpoint {uuid} at batch {steps}", flush=True)
            core_context.train.report_progress(steps / total_batches)

        if core_context.preempt.should_preempt():
            print(f"preemption requested; stopping at batch {steps}", flush=True)
            break
    return results


def main() -> Dict[str, float]:
    info = det.get_cluster_info()
    if info is not None and info.task_type == "TRIAL":
        hparams = {**DEFAULT_HPARAMS, **info.trial.hparams}
        seed = info.trial.trial_seed
        latest_checkpoint = info.latest_checkpoint
        config = info.trial._config
    else:
        hparams, seed, latest_checkpoint, config = dict(DEFAULT_HPARAMS), 0, None, {}
    print(f"hyperparameters: {hparams} seed={seed}", flush=True)
    distributed = None
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        # Started by determined.launch.torch_distributed: one process per slot.
        torch.distributed.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        distributed = det.core.DistributedContext.from_torch_distributed()
    with det.core.init(distributed=distributed) as core_context:
        results = train(core_context, hparams, seed, latest_checkpoint, config)
    if results:
        print(f"final validation accuracy={results['accuracy']:.4f}", flush=True)
    return results


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    main()
