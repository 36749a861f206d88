"""
The PyTorch Trial API (upstream Determined's ``determined.pytorch``): subclass :class:`PyTorchTrial`,
then train it with :class:`Trainer` inside ``with determined.pytorch.init() as context:``, on a
cluster or off it, or name it in a legacy ``model_def:MyTrial`` entrypoint run by
``python3 -m determined.exec.harness``.

Not here: ``determined.pytorch.deepspeed`` (DeepSpeed), ``determined.pytorch.lightning``, NVIDIA
apex (``configure_apex_amp``) and ``context.experimental.use_amp()``; ``determined.keras`` does not
exist either (TensorFlow cannot be installed here).
"""

from determined.pytorch import samplers
from determined.pytorch._callback import PyTorchCallback
from determined.pytorch._data import (
    DataLoader,
    TorchData,
    adapt_batch_sampler,
    data_length,
    to_device,
)
from determined.pytorch._lr import LRScheduler
from determined.pytorch._reducer import MetricReducer, Reducer
from determined.pytorch._units import Batch, Epoch, TrainUnit
from determined.pytorch._trial_context import PyTorchExperimentalContext, PyTorchTrialContext
from determined.pytorch._trial import PyTorchTrial
from determined.pytorch._load import CheckpointLoadContext, load_trial_from_checkpoint_path
from determined.pytorch._trainer import Trainer, init

__all__ = [
    "Batch",
    "CheckpointLoadContext",
    "DataLoader",
    "Epoch",
    "LRScheduler",
    "MetricReducer",
    "PyTorchCallback",
    "PyTorchExperimentalContext",
    "PyTorchTrial",
    "PyTorchTrialContext",
    "Reducer",
    "TorchData",
    "TrainUnit",
    "Trainer",
    "adapt_batch_sampler",
    "data_length",
    "init",
    "load_trial_from_checkpoint_path",
    "samplers",
    "to_device",
]
