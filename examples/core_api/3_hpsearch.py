"""
Core API, stage 3: hyperparameter search.

Each trial of the experiment gets its own hyperparameter values from the searcher
(``det.get_cluster_info().trial.hparams``); here the only one is ``increment_by``. The searcher
also sets how long a trial trains: with ``time_metric: batches`` and ``max_time: N`` (the
adaptive ASHA searcher, see 3_hpsearch_asha.yaml) a trial trains N steps; searchers without a time
budget (grid, random) train the default 100. Validation metrics carry ``batches``, the time metric
that ASHA compares trials by, and a trial the searcher stops early sees ``should_preempt()``.
"""

import json
import logging
import pathlib
import time
from typing import Any, Dict, Optional, Tuple

import determined as det

DEFAULT_STEPS = 100
VALIDATE_EVERY = 10
SECONDS_PER_STEP = 0.05


def training_length(config: Dict[str, Any]) -> int:
    """Steps to train: the searcher's time budget when it counts batches, else the default."""
    searcher = config.get("searcher") or {}
    if searcher.get("time_metric") == "batches" and searcher.get("max_time"):
        return int(searcher["max_time"])
    return DEFAULT_STEPS


def save_state(path: pathlib.Path, x: int, steps_completed: int, trial_id: int) -> None:
    state = {"x": x, "steps_completed": steps_completed, "trial_id": trial_id}
    (path / "state.json").write_text(json.dumps(state))


def load_state(path: pathlib.Path, trial_id: int) -> Tuple[int, int]:
    """(x, steps completed) from a checkpoint. A checkpoint of another trial (a warm start) gives
    its x but this trial's own step count starts from 0."""
    state = json.loads((path / "state.json").read_text())
    steps = int(state["steps_completed"]) if state["trial_id"] == trial_id else 0
    return int(state["x"]), steps


def train(
    core_context: det.core.Context,
    latest_checkpoint: Optional[str],
    trial_id: int,
    increment_by: int,
    length: int,
) -> None:
    x, start = 0, 0
    if latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(latest_checkpoint) as path:
            x, start = load_state(path, trial_id)
        logging.info(f"resuming from checkpoint {latest_checkpoint} at step {start} (x={x})")
    logging.info(f"training {length} steps with increment_by={increment_by}")

    for step in range(start, length):
        x += increment_by
        time.sleep(SECONDS_PER_STEP)
        steps_completed = step + 1
        if steps_completed % VALIDATE_EVERY != 0 and steps_completed != length:
            continue
        core_context.train.report_training_metrics(
            steps_completed=steps_completed, metrics={"x": x}
        )
        # NEW: validate periodically; an early-stopping searcher decides from these reports.
        core_context.train.report_validation_metrics(
            steps_completed=steps_completed, metrics={"x": x, "batches": steps_completed}
        )
        core_context.train.report_progress(steps_completed / length)
        with core_context.checkpoint.store_path({"steps_completed": steps_completed}) as (
            path,
            _,
        ):
            save_state(path, x, steps_completed, trial_id)
        if core_context.preempt.should_preempt():
            logging.info(f"stopping at step {steps_completed} (x={x}) as the master asked")
            return
    logging.info(f"done: x={x} after {length} steps")


def main() -> None:
    info = det.get_cluster_info()
    assert info is not None, "this example runs on a cluster: det experiment create 3_hpsearch.yaml ."
    # NEW: this trial's hyperparameters, chosen by the searcher.
    hparams = info.trial.hparams
    with det.core.init() as core_context:
        train(
            core_context,
            info.latest_checkpoint,
            info.trial.trial_id,
            increment_by=int(hparams["increment_by"]),
            length=training_length(info.trial.config),
        )


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    main()
