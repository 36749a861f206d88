"""``core_context.experimental``: links a task to the checkpoint or model version it uses."""

from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

if TYPE_CHECKING:
    from determined.common.api import Session
    from determined.common.experimental.checkpoint import Checkpoint
    from determined.common.experimental.model import ModelVersion

_INFERENCE = "TRIAL_SOURCE_INFO_TYPE_INFERENCE"


class ExperimentalCoreContext:
    """
    Reports which checkpoint or model version this trial uses (an inference or fine-tuning run), so
    that the metrics it reports are found from them: ``Checkpoint.get_metrics()`` and
    ``ModelVersion.get_metrics()``.
    """

    def __init__(self, session: Callable[[], "Session"], trial_id: int) -> None:
        self._make_session = session  # called at the first report
        self._session: Optional["Session"] = None
        self._trial_id = trial_id

    def _report(self, checkpoint_uuid: str, **model: Optional[int]) -> None:
        info: Dict[str, Any] = {
            "trialId": self._trial_id,
            "checkpointUuid": checkpoint_uuid,
            "trialSourceInfoType": _INFERENCE,
        }
        info.update({k: v for k, v in model.items() if v is not None})
        if self._session is None:
            self._session = self._make_session()
        self._session.post("/api/v1/trial-source-info", body={"trialSourceInfo": info})

    def report_task_using_checkpoint(self, checkpoint: "Checkpoint") -> None:
        """Links this trial to ``checkpoint``."""
        self._report(checkpoint.uuid)

    def report_task_using_model_version(self, model_version: "ModelVersion") -> None:
        """Links this trial to ``model_version`` (and the checkpoint it holds)."""
        if model_version.checkpoint is None:
            raise ValueError(f"{model_version!r} has no checkpoint")
        self._report(
            model_version.checkpoint.uuid,
            modelId=model_version.model_id,
            modelVersion=model_version.model_version,
        )


class DummyExperimentalCoreContext(ExperimentalCoreContext):
    """Off-cluster and in tasks that are not trials: there is nothing to link, so nothing is sent."""

    def __init__(self) -> None:
        pass

    def report_task_using_checkpoint(self, checkpoint: "Checkpoint") -> None:
        pass

    def report_task_using_model_version(self, model_version: "ModelVersion") -> None:
        pass
