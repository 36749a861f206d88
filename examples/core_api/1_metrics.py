"""
Core API, stage 1: report metrics.

Every 10 steps the trial reports ``x`` as a training metric; at the end it reports ``x`` once more
as a validation metric (the metric the searcher looks at, ``searcher.metric: x``). Reporting does
not wait for the network: reports are queued and sent by the harness's background thread, and
leaving ``det.core.init()`` sends whatever is still queued.
"""

import logging
import time

import determined as det

STEPS = 100
REPORT_EVERY = 10
SECONDS_PER_STEP = 0.05


def train(core_context: det.core.Context, increment_by: int) -> int:
    x = 0
    for step in range(STEPS):
        x += increment_by
        time.sleep(SECONDS_PER_STEP)
        steps_completed = step + 1
        if steps_completed % REPORT_EVERY == 0:
            # NEW: training metrics, keyed by how many steps (batches) are done.
            core_context.train.report_training_metrics(
                steps_completed=steps_completed, metrics={"x": x}
            )
            logging.info(f"step {steps_completed}: x is now {x}")
    # NEW: a validation metric at the end; it carries the searcher metric.
    core_context.train.report_validation_metrics(steps_completed=STEPS, metrics={"x": x})
    return x


def main() -> None:
    with det.core.init() as core_context:
        x = train(core_context, increment_by=1)
    logging.info(f"done: x={x}")


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    main()
