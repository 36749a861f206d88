"""``PyTorchCallback``: hooks into the PyTorchTrial lifecycle."""

from typing import Any, Dict, List, Optional


class PyTorchCallback:
    """
    Subclass and override the hooks you need; return instances from
    :meth:`PyTorchTrial.build_callbacks` (a dict of name to callback).

    Order within a trial run::

        on_trial_startup
          on_checkpoint_load_start          (resuming only)
          on_training_start
            on_training_epoch_start(e) ... on_training_epoch_end(e)
            on_training_workload_end        (after each reported period of training)
            on_validation_start
              on_validation_epoch_start     (evaluate_batch only)
              on_validation_epoch_end
            on_validation_end
            on_checkpoint_save_start        (chief only)
            on_checkpoint_write_end         (chief only)
            on_checkpoint_upload_end
        on_trial_shutdown                   (always, even after an error)

    Unless noted, hooks run on every worker. A callback with state implements :meth:`state_dict` and
    :meth:`load_state_dict`: the chief's state is saved under the callback's name in checkpoints.
    """

    def on_trial_startup(self, first_batch_idx: int, checkpoint_uuid: Optional[str]) -> None:
        """
        Before anything else: ``first_batch_idx`` is the number of batches already trained (from the
        cluster, or 0 off-cluster) and ``checkpoint_uuid`` the checkpoint training resumes from.
        """

    def on_trial_shutdown(self) -> None:
        """After training ends, however it ends (also after an exception)."""

    def on_training_start(self) -> None:
        """Once training is about to start, after any checkpoint has been loaded."""

    def on_training_epoch_start(self, epoch_idx: int) -> None:
        """Before the first batch of epoch ``epoch_idx``."""

    def on_training_epoch_end(self, epoch_idx: int) -> None:
        """After the last batch of epoch ``epoch_idx``."""

    def on_training_workload_end(
        self, avg_metrics: Dict[str, Any], batch_metrics: List[Dict[str, Any]]
    ) -> None:
        """After each period of training whose metrics were reported (averaged over workers)."""

    def on_validation_start(self) -> None:
        """Before validation, with the models in eval mode."""

    def on_validation_epoch_start(self) -> None:
        """Before the first validation batch (only with ``evaluate_batch``)."""

    def on_validation_epoch_end(self, outputs: List[Any]) -> None:
        """After the last validation batch: ``outputs`` are this worker's ``evaluate_batch`` results."""

    def on_validation_end(self, metrics: Dict[str, Any]) -> None:
        """After validation, with the reduced metrics (the same on every worker)."""

    def on_checkpoint_load_start(self, checkpoint: Dict[str, Any]) -> None:
        """Before the models are restored: ``checkpoint`` is the loaded ``state_dict.pth`` dict."""

    def on_checkpoint_save_start(self, checkpoint: Dict[str, Any]) -> None:
        """Chief only: before ``checkpoint`` is written to ``state_dict.pth``; it may be modified."""

    def on_checkpoint_write_end(self, checkpoint_dir: str) -> None:
        """Chief only: after every file of the checkpoint is written in ``checkpoint_dir``."""

    def on_checkpoint_end(self, checkpoint_dir: str) -> None:
        """Deprecated: use :meth:`on_checkpoint_write_end`."""

    def on_checkpoint_upload_end(self, uuid: str) -> None:
        """After the checkpoint ``uuid`` is stored and reported."""

    def state_dict(self) -> Dict[str, Any]:
        """This callback's state, saved in checkpoints (picklable)."""
        return {}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores the state returned by :meth:`state_dict` when resuming."""
