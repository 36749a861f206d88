"""Two workers over gloo (off-cluster, forked processes): each trains a DistributedDataParallel replica
on its half of every global batch; the result equals one worker training on whole global batches,
the validation metrics are reduced over both workers' shards, and only the chief checkpoints."""

import multiprocessing
import os
import socket
from typing import Any, Dict, List

import numpy as np
import torch
import torch.distributed

from determined import core, pytorch
from test_pytorch_trainer import (
    FakeSearcher,
    PreemptAfter,
    RecordingTrain,
    RegressionTrial,
    cluster_info,
)

HPARAMS = {"global_batch_size": 8, "lr": 0.05, "shuffle": True}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Recorder(pytorch.PyTorchCallback):
    def __init__(self) -> None:
        self.validations: List[Dict[str, Any]] = []
        self.uuids: List[str] = []
        self.saves = 0

    def on_validation_end(self, metrics: Dict[str, Any]) -> None:
        self.validations.append(metrics)

    def on_checkpoint_save_start(self, checkpoint: Dict[str, Any]) -> None:
        self.saves += 1

    def on_checkpoint_upload_end(self, uuid: str) -> None:
        self.uuids.append(uuid)


class Trial(RegressionTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        super().__init__(context)
        self.recorder = Recorder()

    def build_callbacks(self) -> Dict[str, pytorch.PyTorchCallback]:
        return {"recorder": self.recorder}


def train(distributed: Any = None) -> Dict[str, Any]:
    torch.manual_seed(0)
    with pytorch.init(hparams=dict(HPARAMS), distributed=distributed) as context:
        trial = Trial(context)
        pytorch.Trainer(trial, context).fit(
            max_length=pytorch.Batch(8), validation_period=pytorch.Batch(4),
            checkpoint_policy="none")
        model = trial.model.module if context.distributed.size > 1 else trial.model
        return {
            # numpy, not tensors: tensors cross a multiprocessing queue as shared memory, which
            # is gone once the worker exits.
            "params": [p.detach().numpy().copy() for p in model.parameters()],
            "seen": trial.seen,
            "per_slot": context.get_per_slot_batch_size(),
            "validations": trial.recorder.validations,
            "uuids": trial.recorder.uuids,
            "saves": trial.recorder.saves,
            "ddp": isinstance(trial.model, torch.nn.parallel.DistributedDataParallel),
        }


def join(rank: int, ports: Any) -> core.DistributedContext:
    torch.distributed.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{ports[0]}", rank=rank, world_size=2)
    return core.DistributedContext(rank=rank, size=2, local_rank=rank, local_size=2, cross_rank=0,
                                   cross_size=1, chief_ip="127.0.0.1", pub_port=ports[1])


def worker(rank: int, ports: Any, out: Any) -> None:
    try:
        out.put((rank, train(join(rank, ports))))
    except BaseException as e:  # reported to the test
        out.put((rank, repr(e)))


def run_workers(target: Any, *args: Any) -> Dict[int, Any]:
    mp = multiprocessing.get_context("fork")
    out = mp.Queue()
    ports = (free_port(), free_port())
    procs = [mp.Process(target=target, args=(rank, ports, *args, out)) for rank in range(2)]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=30)
    assert all(isinstance(r, dict) for r in results.values()), results
    return results


def test_two_workers_train_like_one_on_whole_batches(tmp_path):
    results = run_workers(worker)
    single = train()

    chief, other = results[0], results[1]
    assert chief["ddp"] and chief["per_slot"] == 4 and single["per_slot"] == 8
    # Rank r reads the r-th half of every global batch: together, the single worker's batches.
    for step in range(8):
        together = sorted(chief["seen"][step][2] + other["seen"][step][2])
        assert together == sorted(single["seen"][step][2])
        assert chief["seen"][step][0] == step and other["seen"][step][0] == step
    for a, b, c in zip(chief["params"], other["params"], single["params"]):
        assert (a == b).all()
        assert np.allclose(a, c, atol=1e-6)
    # Validation: each worker evaluated part of the batches; the reduced metrics are everyone's.
    assert len(chief["validations"]) == 2
    assert chief["validations"] == other["validations"]
    for mine, theirs in zip(chief["validations"], single["validations"]):
        assert abs(mine["validation_loss"] - theirs["validation_loss"]) < 1e-5
    # One checkpoint, written by the chief, known to both.
    assert chief["saves"] == 1 and other["saves"] == 0
    assert chief["uuids"] == other["uuids"] and len(chief["uuids"]) == 1


def cluster_worker(rank: int, ports: Any, context_dir: str, storage: str, out: Any) -> None:
    """A worker of a trial on a cluster: the searcher's length, preempted after 6 batches (several
    workers ask at period boundaries: batches 2, 4 and 6)."""
    try:
        os.chdir(context_dir)
        dist = join(rank, ports)
        config = {"searcher": {"name": "single", "metric": "validation_loss"}}
        core_context = core._dummy_init(distributed=dist, checkpoint_storage=storage)
        core_context.train = train = RecordingTrain()
        core_context.preempt = PreemptAfter(3)
        core_context.info = cluster_info(HPARAMS, config)
        core_context.searcher = searcher = FakeSearcher([10], core.Unit.BATCHES)
        core_context.start()
        context = pytorch.PyTorchTrialContext(
            core_context=core_context, trial_seed=0, hparams=dict(HPARAMS), slots_per_trial=2,
            num_gpus=0, exp_conf=config, aggregation_frequency=1, steps_completed=0,
            managed_training=True, debug_enabled=False, enable_tensorboard_logging=False)
        trial = Trial(context)
        pytorch.Trainer(trial, context).fit(validation_period=pytorch.Batch(4), reporting_period=pytorch.Batch(2))
        core_context.close()
        out.put((rank, {"batches": len(trial.seen), "training": [t[0] for t in train.training],
                        "validation": [v[0] for v in train.validation],
                        "uuids": trial.recorder.uuids, "progress": searcher.ops[0].progress}))
    except BaseException as e:  # reported to the test
        out.put((rank, repr(e)))


def test_two_workers_on_a_cluster_follow_the_chief(tmp_path):
    (tmp_path / "context").mkdir()
    results = run_workers(cluster_worker, str(tmp_path / "context"), str(tmp_path / "ckpts"))
    chief, other = results[0], results[1]
    assert chief["batches"] == other["batches"] == 6
    assert chief["training"] == [2, 4, 6] and chief["validation"] == [4]
    assert other["training"] == [] and other["validation"] == []  # only the chief reports
    assert chief["progress"] == [2, 4, 6] and other["progress"] == []  # the non-chief has no operation
    # "best" (the default) with no best validation yet checkpoints after batch 4; then the exit one.
    assert chief["uuids"] == other["uuids"] and len(chief["uuids"]) == 2
