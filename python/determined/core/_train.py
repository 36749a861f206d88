import enum
import logging
import pathlib
import tempfile
from typing import Any, Callable, Dict, List, Optional

from determined import util

logger = logging.getLogger("determined.core")


class EarlyExitReason(enum.Enum):
    INVALID_HP = "EXITED_REASON_INVALID_HP"
    # This is generally unnecessary; just exit early.
    USER_REQUESTED_STOP = "EXITED_REASON_USER_REQUESTED_STOP"


def _check_validation_metrics(metrics: Dict[str, Any]) -> None:
    if isinstance(metrics, dict):
        for name, value in metrics.items():
            if value is None:
                raise RuntimeError(
                    f"Validation metric '{name}' returned an invalid scalar value: {value}"
                )


class TrainContext:
    """
    Reports training and validation metrics and trial-level events to the master. Metric reports
    are queued and sent by a background thread: the calls return at once.
    """

    def __init__(self, native_ctx: Any, trial_id: int, tensorboard_path: pathlib.Path) -> None:
        self._native = native_ctx
        self._trial_id = trial_id
        self._tensorboard_path = tensorboard_path
        self._progress_warned = False

    def report_training_metrics(
        self,
        steps_completed: int,
        metrics: Dict[str, Any],
        batch_metrics: Optional[List[Dict[str, Any]]] = None,
    ) -> None:
        """Reports training metrics (the "training" group) at ``steps_completed`` batches."""
        # The native call converts and checks the values (as util.make_jsonable does) and queues them.
        self._native.report("training", int(steps_completed), metrics, batch_metrics)
        logger.info("report_training_metrics(steps_completed=%s, metrics=%s)", steps_completed, metrics)

    def report_validation_metrics(self, steps_completed: int, metrics: Dict[str, Any]) -> None:
        """Reports validation metrics; the master feeds the searcher metric to the searcher."""
        _check_validation_metrics(metrics)
        self._native.report("validation", int(steps_completed), metrics)
        logger.info("report_validation_metrics(steps_completed=%s, metrics=%s)", steps_completed, metrics)

    def report_metrics(self, group: str, steps_completed: int, metrics: Dict[str, Any]) -> None:
        """Reports metrics of any group ("training", "validation", or a custom one)."""
        if group == "validation":
            self.report_validation_metrics(steps_completed, metrics)
            return
        self._native.report(str(group), int(steps_completed), metrics)
        logger.info("report_metrics(group=%s, steps_completed=%s, %s)", group, steps_completed, metrics)

    def report_progress(self, progress: float) -> None:
        """Reports training progress as a fraction in [0, 1], shown by the WebUI."""
        progress = float(progress)
        if not 0 <= progress <= 1:
            raise ValueError(f"progress must be between 0 and 1, got {progress}")
        logger.debug("report_progress(%s)", progress)
        try:
            self._native.report_progress(progress)
        except RuntimeError as e:
            # Progress only feeds the WebUI; never fail training over it.
            if not self._progress_warned:
                logger.warning(f"report_progress({progress}) failed (ignoring): {e}")
                self._progress_warned = True

    def report_early_exit(self, reason: EarlyExitReason) -> None:
        """Reports why the trial exits early (``EarlyExitReason.INVALID_HP``)."""
        reason = EarlyExitReason(reason)
        logger.info(f"report_early_exit({reason})")
        self._native.report_early_exit(reason.value)

    def set_status(self, status: str) -> None:
        """A short status text for the WebUI."""
        logger.debug(f"set_status({status})")
        try:
            self._native.set_status(str(status))
        except RuntimeError as e:
            logger.warning(f"set_status({status}) failed: {e}")

    def get_experiment_best_validation(self) -> Optional[float]:
        """The experiment's best searcher metric so far, or None."""
        return self._native.get_experiment_best_validation()

    def get_tensorboard_path(self) -> pathlib.Path:
        return self._tensorboard_path

    def upload_tensorboard_files(
        self,
        selector: Callable[[pathlib.Path], bool] = lambda _: True,
        mangler: Callable[[pathlib.Path, int], pathlib.Path] = lambda p, __: p,
    ) -> None:
        logger.info("upload_tensorboard_files(): TensorBoard upload is not supported yet")

    def _flush(self) -> None:
        self._native.flush()

    def _close(self) -> None:
        self._native.close()


class DummyTrainContext(TrainContext):
    """Off-cluster: metrics are logged, nothing is sent."""

    def __init__(self, tensorboard_path: Optional[pathlib.Path] = None) -> None:
        self._tensorboard_path = tensorboard_path or pathlib.Path(tempfile.gettempdir()).joinpath(
            "tensorboard"
        )

    def report_training_metrics(
        self,
        steps_completed: int,
        metrics: Dict[str, Any],
        batch_metrics: Optional[List[Dict[str, Any]]] = None,
    ) -> None:
        body = util.metrics_to_json(metrics)
        logger.info("report_training_metrics(steps_completed=%s, metrics=%s)", steps_completed, body)

    def report_validation_metrics(self, steps_completed: int, metrics: Dict[str, Any]) -> None:
        _check_validation_metrics(metrics)
        body = util.metrics_to_json(metrics)
        logger.info("report_validation_metrics(steps_completed=%s, metrics=%s)", steps_completed, body)

    def report_metrics(self, group: str, steps_completed: int, metrics: Dict[str, Any]) -> None:
        body = util.metrics_to_json(metrics)
        logger.info("report_metrics(group=%s, steps_completed=%s, %s)", group, steps_completed, body)

    def report_progress(self, progress: float) -> None:
        progress = float(progress)
        if not 0 <= progress <= 1:
            raise ValueError(f"progress must be between 0 and 1, got {progress}")
        logger.debug("report_progress(%s)", progress)

    def report_early_exit(self, reason: EarlyExitReason) -> None:
        logger.info(f"report_early_exit({EarlyExitReason(reason)})")

    def set_status(self, status: str) -> None:
        logger.info(f"status: {status}")

    def get_experiment_best_validation(self) -> Optional[float]:
        return None

    def _flush(self) -> None:
        pass

    def _close(self) -> None:
        pass
