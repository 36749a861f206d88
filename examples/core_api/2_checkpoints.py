"""
Core API, stage 2: checkpoints and preemption.

Every 10 steps the trial saves its state (``x`` and the step count) in a checkpoint, with
``steps_completed`` in the checkpoint's metadata, and then asks the master whether it should stop
(``should_preempt()``: true after ``det experiment pause``, when a higher-priority job needs the
slot, or when the searcher is done with the trial). It stops right after a checkpoint, so nothing
is lost. When the trial runs again (``det experiment activate``, or a restart after a failure),
``det.get_cluster_info().latest_checkpoint`` names the checkpoint to resume from.
"""

import json
import logging
import pathlib
import time
from typing import Optional, Tuple

import determined as det

STEPS = 100
CHECKPOINT_EVERY = 10
SECONDS_PER_STEP = 0.05


# NEW: the state a checkpoint holds, as one small JSON file in the checkpoint directory.
def save_state(path: pathlib.Path, x: int, steps_completed: int) -> None:
    (path / "state.json").write_text(json.dumps({"x": x, "steps_completed": steps_completed}))


def load_state(path: pathlib.Path) -> Tuple[int, int]:
    state = json.loads((path / "state.json").read_text())
    return int(state["x"]), int(state["steps_completed"])


def train(
    core_context: det.core.Context, latest_checkpoint: Optional[str], increment_by: int
) -> int:
    x, start = 0, 0
    # NEW: resume from the latest checkpoint, if this trial has one.
    if latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(latest_checkpoint) as path:
            x, start = load_state(path)
        logging.info(f"resuming from checkpoint {latest_checkpoint} at step {start} (x={x})")
    else:
        logging.info("starting from step 0")

    for step in range(start, STEPS):
        x += increment_by
        time.sleep(SECONDS_PER_STEP)
        steps_completed = step + 1
        if steps_completed % CHECKPOINT_EVERY != 0:
            continue
        core_context.train.report_training_metrics(
            steps_completed=steps_completed, metrics={"x": x}
        )
        # NEW: save a checkpoint. The metadata must say how many steps the checkpoint holds.
        with core_context.checkpoint.store_path({"steps_completed": steps_completed}) as (
            path,
            uuid,
        ):
            save_state(path, x, steps_completed)
        logging.info(f"step {steps_completed}: x={x}, saved checkpoint {uuid}")
        # NEW: stop when asked, right after a checkpoint.
        if core_context.preempt.should_preempt():
            logging.info(f"preempted at step {steps_completed}; exiting")
            return x

    core_context.train.report_validation_metrics(steps_completed=STEPS, metrics={"x": x})
    logging.info(f"done: x={x}")
    return x


def main() -> None:
    info = det.get_cluster_info()
    # Off-cluster there is no cluster info and nothing to resume from.
    latest_checkpoint = info.latest_checkpoint if info is not None else None
    with det.core.init() as core_context:
        train(core_context, latest_checkpoint, increment_by=1)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    main()
