"""``PyTorchTrial``: the class users subclass to train with the Trainer (or the legacy harness)."""

import abc
from typing import TYPE_CHECKING, Any, Dict, Mapping, Union

import torch
import torch.utils.data

from determined.pytorch._callback import PyTorchCallback
from determined.pytorch._data import DataLoader, TorchData, data_length
from determined.pytorch._reducer import Reducer

if TYPE_CHECKING:
    from determined.pytorch._trial_context import PyTorchTrialContext


class PyTorchTrial(metaclass=abc.ABCMeta):
    """
    A PyTorch model, its data and its training step, trained by :class:`determined.pytorch.Trainer`.

    * ``__init__(context)``: build the models, optimizers and LR schedulers and wrap them with
      ``context.wrap_model``, ``context.wrap_optimizer`` and ``context.wrap_lr_scheduler`` (only
      wrapped objects are checkpointed and restored).
    * :meth:`build_training_data_loader` / :meth:`build_validation_data_loader`: return
      :class:`determined.pytorch.DataLoader` s.
    * :meth:`train_batch`: forward pass, ``context.backward(loss)``,
      ``context.step_optimizer(optimizer)``; return the metrics.
    * exactly one of :meth:`evaluate_batch` (recommended: runs on every worker) or
      :meth:`evaluate_full_dataset` (the chief alone, on the whole validation set).
    """

    @abc.abstractmethod
    def __init__(self, context: "PyTorchTrialContext") -> None:
        """Builds and wraps the models, optimizers and LR schedulers with ``context``."""

    @abc.abstractmethod
    def train_batch(
        self, batch: TorchData, epoch_idx: int, batch_idx: int
    ) -> Union[torch.Tensor, Dict[str, Any]]:
        """
        Trains on one batch (already on ``context.device``) and returns its metrics: a dict of name
        to value (tensors are fine), or a tensor reported as ``loss``.

        ``epoch_idx`` is the index of the current epoch and ``batch_idx`` the index of the batch
        since the start of training (both count global steps, and continue across resumes).
        """

    @abc.abstractmethod
    def build_training_data_loader(self) -> Union[DataLoader, torch.utils.data.DataLoader]:
        """
        The training data: a :class:`determined.pytorch.DataLoader` with
        ``batch_size=context.get_per_slot_batch_size()``. A ``torch.utils.data.DataLoader`` is used
        as it is (not sharded, repeated or skipped) only after
        ``context.experimental.disable_dataset_reproducibility_checks()``.
        """

    @abc.abstractmethod
    def build_validation_data_loader(self) -> Union[DataLoader, torch.utils.data.DataLoader]:
        """The validation data (see :meth:`build_training_data_loader`)."""

    def build_callbacks(self) -> Dict[str, PyTorchCallback]:
        """Named :class:`PyTorchCallback` s; the names key their state in checkpoints."""
        return {}

    def evaluate_batch(self, batch: TorchData, batch_idx: int) -> Dict[str, Any]:
        """
        The validation metrics of one batch (a dict of name to number, array or tensor); the
        ``batch_idx`` parameter is optional in overrides. Every worker evaluates its shard, and the
        metrics are reduced over all batches with :meth:`evaluation_reducer`.
        """
        raise NotImplementedError()

    def evaluation_reducer(self) -> Union[Reducer, Mapping[str, Reducer]]:
        """How ``evaluate_batch`` metrics are reduced: one :class:`Reducer` for all (default
        ``Reducer.AVG``, the mean over batches), or a dict of metric name to Reducer."""
        return Reducer.AVG

    def evaluate_full_dataset(self, data_loader: torch.utils.data.DataLoader) -> Dict[str, Any]:
        """
        The validation metrics over the whole validation set, computed by the chief alone from
        ``data_loader`` (batches are not moved to the device for you). Define this instead of
        :meth:`evaluate_batch` when a metric cannot be reduced from batches.
        """
        raise NotImplementedError()

    def get_batch_length(self, batch: Any) -> int:
        """The number of records in ``batch``; override for batches of unusual shape."""
        return data_length(batch)


def _is_overridden(trial: PyTorchTrial, name: str) -> bool:
    method = getattr(type(trial), name, None)
    return method is not None and method is not getattr(PyTorchTrial, name)
