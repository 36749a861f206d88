"""
Core API, stage 4: distributed training with a launcher.

4_distributed.yaml asks for 2 slots and starts this script through
``python3 -m determined.launch.torch_distributed``, which runs one worker per slot (on one agent or
across agents) with torch.distributed's environment (RANK, WORLD_SIZE, ...). Each worker builds its
context from that environment, counts its own share of ``x``, and the workers combine their shares
with ``allgather``. Only the chief (rank 0) reports metrics; every worker saves its own part of each
checkpoint (``shard=True``) and restores it on resume; ``should_preempt()`` is collective, so all
workers stop at the same step.
"""

import json
import logging
import time
from typing import Optional

import determined as det

STEPS = 100
VALIDATE_EVERY = 10


def train(core_context: det.core.Context, latest_checkpoint: Optional[str], increment_by: int,
          seconds_per_step: float) -> None:
    dist = core_context.distributed
    my_x, start = 0, 0
    if latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(latest_checkpoint) as path:
            # NEW: each worker restores its own shard.
            state = json.loads((path / f"state-rank{dist.rank}.json").read_text())
        my_x, start = int(state["x"]), int(state["steps_completed"])
        logging.info(f"rank {dist.rank} resuming at step {start} with its x={my_x}")

    for step in range(start, STEPS):
        my_x += increment_by
        time.sleep(seconds_per_step)
        steps_completed = step + 1
        if steps_completed % VALIDATE_EVERY != 0:
            continue
        # NEW: every worker's share, in rank order.
        x = sum(dist.allgather(my_x))
        if dist.rank == 0:
            core_context.train.report_training_metrics(steps_completed=steps_completed, metrics={"x": x})
            core_context.train.report_validation_metrics(steps_completed=steps_completed, metrics={"x": x})
            core_context.train.report_progress(steps_completed / STEPS)
        # NEW: a sharded checkpoint; every worker writes its own file into it.
        with core_context.checkpoint.store_path({"steps_completed": steps_completed}, shard=True) as (path, _):
            (path / f"state-rank{dist.rank}.json").write_text(
                json.dumps({"x": my_x, "steps_completed": steps_completed}))
        if core_context.preempt.should_preempt():
            logging.info(f"rank {dist.rank} stopping at step {steps_completed} as the master asked")
            return
    logging.info(f"rank {dist.rank} done: its x={my_x}")


def main() -> None:
    info = det.get_cluster_info()
    assert info is not None, "this example runs on a cluster: det experiment create 4_distributed.yaml ."
    # NEW: the workers' ranks and the chief's address come from the launcher's environment.
    distributed = det.core.DistributedContext.from_torch_distributed()
    with det.core.init(distributed=distributed) as core_context:
        hparams = info.trial.hparams
        train(core_context, info.latest_checkpoint, int(hparams["increment_by"]),
              float(hparams.get("seconds_per_step", 0.05)))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    main()
