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


def _select_every_file(path: pathlib.Path) -> bool:
    return True


def _keep_name(path: pathlib.Path, rank: int) -> pathlib.Path:
    return path


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

    TensorBoard: files written under :meth:`get_tensorboard_path` (by any library) are uploaded to
    the experiment's checkpoint storage under ``tensorboard/experiment/E/trial/T/``, where
    ``det tensorboard start`` finds them. In ``TensorboardMode.AUTO`` (the default) the chief
    uploads new or changed files after every metric report (in the background) and once more when
    the context closes; :meth:`upload_tensorboard_files` uploads at once, on any worker.
    """

    def __init__(
        self,
        native_ctx: Any,
        trial_id: int,
        tensorboard_path: pathlib.Path,
        tensorboard_sync: Any = None,
        *,
        rank: int = 0,
        auto_upload: bool = False,
    ) -> None:
        """
        ``tensorboard_sync``: a native ``TensorboardSync`` for ``tensorboard_path``, or None when
        TensorBoard files cannot be uploaded. ``auto_upload``: upload after every report and at
        close (the chief in ``TensorboardMode.AUTO``).
        """
        self._native = native_ctx
        self._trial_id = trial_id
        self._tensorboard_path = tensorboard_path
        self._progress_warned = False
        self._tb_sync = tensorboard_sync
        self._rank = rank
        self._tb_auto = auto_upload and tensorboard_sync is not None

    def _request_tensorboard_sync(self) -> None:
        """Asks for a background upload of new or changed TensorBoard files; returns at once."""
        if not self._tb_auto:
            return
        try:
            self._tb_sync.request_sync()
        except Exception as e:
            # An earlier background upload failed; training goes on, the next sync retries.
            logger.warning(f"uploading TensorBoard files failed (will retry): {e}")

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
        self._request_tensorboard_sync()

    def report_validation_metrics(self, steps_completed: int, metrics: Dict[str, Any]) -> None:
        """Reports validation metrics; the master feeds the searcher metric to the searcher."""
        _check_validation_metrics(metrics)
        self._native.report("validation", int(steps_completed), metrics)
        logger.info("report_validation_metrics(steps_completed=%s, metrics=%s)", steps_completed, metrics)
        self._request_tensorboard_sync()

    def report_metrics(self, group: str, steps_completed: int, metrics: Dict[str, Any]) -> None:
        """Reports metrics of any group ("training", "validation", or a custom one)."""
        if group == "validation":
            self.report_validation_metrics(steps_completed, metrics)
            return
        self._native.report(str(group), int(steps_completed), metrics)
        logger.info("report_metrics(group=%s, steps_completed=%s, %s)", group, steps_completed, metrics)
        self._request_tensorboard_sync()

    def _report_profiling(self, group: str, metrics: Dict[str, Any], steps_completed: int) -> None:
        """Queues a profiler report (core._profiler): like report_metrics, without a log line or a
        TensorBoard upload for each."""
        self._native.report(group, int(steps_completed), metrics)
        logger.debug("profiler report(group=%s, %s)", group, metrics)

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
        """
        The directory to write TensorBoard files into (created if missing):
        ``<tmp>/tensorboard-<allocation id>-<rank>`` on a cluster, one per worker.
        """
        self._tensorboard_path.mkdir(parents=True, exist_ok=True)
        return self._tensorboard_path

    def upload_tensorboard_files(
        self,
        selector: Callable[[pathlib.Path], bool] = _select_every_file,
        mangler: Callable[[pathlib.Path, int], pathlib.Path] = _keep_name,
    ) -> None:
        """
        Uploads the files under :meth:`get_tensorboard_path` that are new or changed (size or
        modification time) since their last upload, now, to the trial's TensorBoard directory in
        checkpoint storage. ``selector(path)`` (an absolute path) picks the files;
        ``mangler(relative_path, rank)`` names each one there (for example to keep the workers'
        files apart: every worker may call this).
        """
        if self._tb_sync is None:
            logger.warning("upload_tensorboard_files(): TensorBoard files cannot be uploaded here")
            return
        if selector is _select_every_file and mangler is _keep_name:
            n = self._tb_sync.sync_now()
        else:
            base = self._tensorboard_path
            files = []
            if base.is_dir():
                for path in sorted(base.rglob("*")):
                    if path.is_file() and selector(path):
                        name = pathlib.PurePath(mangler(path.relative_to(base), self._rank))
                        files.append((str(path), name.as_posix()))
            n = self._tb_sync.sync_files(files)
        logger.debug(f"upload_tensorboard_files(): uploaded {n} files to {self._tb_sync.key_prefix}")

    def _flush(self) -> None:
        self._native.flush()

    def _close(self) -> None:
        try:
            self._native.close()
        finally:
            self._close_tensorboard_sync()

    def _close_tensorboard_sync(self) -> None:
        """Waits for background uploads, then (AUTO mode, chief) uploads what changed since."""
        if self._tb_sync is None:
            return
        try:
            self._tb_sync.close()
        except Exception as e:
            logger.warning(f"uploading TensorBoard files failed: {e}")
        if not self._tb_auto:
            return
        try:
            n = self._tb_sync.sync_now()
            logger.debug(f"uploaded {n} TensorBoard files at close")
        except Exception as e:
            # The trial's own results are safe; only its TensorBoard files are incomplete.
            logger.warning(f"uploading the last TensorBoard files failed: {e}")


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

    def upload_tensorboard_files(
        self,
        selector: Callable[[pathlib.Path], bool] = _select_every_file,
        mangler: Callable[[pathlib.Path, int], pathlib.Path] = _keep_name,
    ) -> None:
        logger.info(
            f"upload_tensorboard_files(): off-cluster, TensorBoard files stay in "
            f"{self._tensorboard_path}"
        )

    def _flush(self) -> None:
        pass

    def _close(self) -> None:
        pass
