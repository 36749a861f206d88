"""A trial that does no work: it reports one training metric and exits. Used to measure the platform's
own overhead (bench/)."""
import determined as det


def main():
    with det.core.init() as core_context:
        core_context.train.report_training_metrics(steps_completed=1, metrics={"loss": 0.0})


if __name__ == "__main__":
    main()
