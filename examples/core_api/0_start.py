"""
Core API, stage 0: the "model" on its own.

The model is one integer ``x`` that grows by ``increment_by`` every step. This stage only opens a
Core API context and runs the loop; nothing is reported to the master yet, so the experiment
shows no metrics and no checkpoints, but the script's output appears in ``det trial logs``.

Run it with ``det experiment create 0_start.yaml .`` (it also runs off-cluster:
``python3 0_start.py``).
"""

import logging
import time

import determined as det

STEPS = 100
SECONDS_PER_STEP = 0.05


def train(increment_by: int) -> int:
    x = 0
    for step in range(STEPS):
        x += increment_by
        time.sleep(SECONDS_PER_STEP)  # stands in for a batch of real work
        logging.info(f"step {step + 1}: x is now {x}")
    return x


def main() -> None:
    # det.core.init() connects to the master when the script runs on a cluster, and returns a local
    # stand-in otherwise. Always use it as a context manager: leaving the block closes it cleanly.
    with det.core.init() as core_context:
        del core_context  # not used yet; stage 1 reports metrics through it
        x = train(increment_by=1)
    logging.info(f"done: x={x}")


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    main()
