"""``PyTorchTrialContext``: what a PyTorchTrial gets to build, wrap and step its objects."""

import contextlib
import logging
import pathlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple, Type

import torch
import torch.distributed
from torch import nn

from determined import core
from determined.pytorch._data import TorchData, _Data, to_device
from determined.pytorch._lr import LRScheduler
from determined.pytorch._reducer import _ReducerRegistry

logger = logging.getLogger("determined.pytorch")


def _batch_sizes(hparams: Dict[str, Any], slots: int) -> Tuple[int, int]:
    """(per-slot, effective global) batch size from the global_batch_size hyperparameter."""
    global_batch_size = int(hparams["global_batch_size"])
    if global_batch_size < slots:
        raise ValueError(
            f"global_batch_size ({global_batch_size}) must be >= the number of slots ({slots})"
        )
    per_slot = global_batch_size // slots
    effective = per_slot * slots
    if effective != global_batch_size:
        logger.warning(
            f"PyTorchTrial cannot use global_batch_size={global_batch_size} with {slots} slots; "
            f"using a per-slot batch size of {per_slot} (an effective global batch size of "
            f"{effective})"
        )
    return per_slot, effective


def _params(optimizer: torch.optim.Optimizer) -> List[torch.Tensor]:
    return [p for group in optimizer.param_groups for p in group.get("params", [])]


class _DistributedDataParallel(nn.parallel.DistributedDataParallel):
    """DDP that forwards unknown attributes to the wrapped module (``model.my_layer`` keeps working)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)


class PyTorchExperimentalContext:
    """``context.experimental``: features whose API may change."""

    def __init__(self, parent: "PyTorchTrialContext") -> None:
        self._parent = parent
        self._auto_to_device = True
        self._data_repro_checks_disabled = False

    def disable_dataset_reproducibility_checks(self) -> None:
        """
        Lets ``build_*_data_loader`` return a plain ``torch.utils.data.DataLoader``: it is used as it
        is, so sharding between workers, repeating and resuming at the right batch are up to you.
        """
        self._data_repro_checks_disabled = True

    def disable_auto_to_device(self) -> None:
        """Stops the Trainer from moving each batch to ``context.device`` (do it yourself)."""
        self._auto_to_device = False

    def use_amp(self) -> None:
        """Not supported here: call ``context.wrap_scaler(torch.cuda.amp.GradScaler())``, run the
        forward pass under ``torch.autocast``, and pass the scaler to ``step_optimizer``."""
        raise NotImplementedError(
            "context.experimental.use_amp() is not supported by this harness; use "
            "context.wrap_scaler(torch.cuda.amp.GradScaler()) with torch.autocast in your model and "
            "context.step_optimizer(optimizer, scaler=scaler)"
        )

    def wrap_reducer(self, *args: Any, **kwargs: Any) -> Any:
        """Deprecated: use ``context.wrap_reducer``."""
        return self._parent.wrap_reducer(*args, **kwargs)


class PyTorchTrialContext(_ReducerRegistry):
    """
    The context a :class:`PyTorchTrial` is built with (from :func:`determined.pytorch.init`):

    1. wrap the models, optimizers and LR schedulers (:meth:`wrap_model`, :meth:`wrap_optimizer`,
       :meth:`wrap_lr_scheduler`) so that they are moved to the device, made distributed, saved in
       checkpoints and restored;
    2. in ``train_batch``, compute gradients with :meth:`backward` and apply them with
       :meth:`step_optimizer`;
    3. read the trial's configuration (:meth:`get_hparams`, :meth:`get_experiment_config`, the batch
       sizes) and the training position (:meth:`current_train_batch`, :meth:`is_epoch_start`).

    ``distributed`` is the Core API's :class:`~determined.core.DistributedContext`.
    """

    def __init__(
        self,
        core_context: core.Context,
        trial_seed: Optional[int],
        hparams: Optional[Dict[str, Any]],
        slots_per_trial: int,
        num_gpus: int,
        exp_conf: Optional[Dict[str, Any]],
        aggregation_frequency: int,
        steps_completed: int,
        managed_training: bool,
        debug_enabled: bool,
        enable_tensorboard_logging: bool = True,
    ) -> None:
        self._core = core_context
        #: The Core API DistributedContext (rank, size, collectives).
        self.distributed = core_context.distributed
        super().__init__(self.distributed.allgather)
        self._hparams = hparams
        self._exp_conf = exp_conf
        self._trial_seed = trial_seed
        self._num_gpus = num_gpus
        self._steps_completed = steps_completed
        self._managed_training = managed_training
        self._debug_enabled = debug_enabled
        self._enable_tensorboard_logging = enable_tensorboard_logging
        if aggregation_frequency < 1:
            raise ValueError(f"aggregation_frequency must be >= 1, got {aggregation_frequency}")
        self._aggregation_frequency = aggregation_frequency
        self._per_slot_batch_size: Optional[int] = None
        self._global_batch_size: Optional[int] = None
        if hparams and hparams.get("global_batch_size"):
            self._per_slot_batch_size, self._global_batch_size = _batch_sizes(
                hparams, slots_per_trial
            )

        #: The device models and batches are put on.
        self.device = self._init_device()
        #: The wrapped models, optimizers and LR schedulers, in the order they were wrapped.
        self.models: List[nn.Module] = []
        self.optimizers: List[torch.optim.Optimizer] = []
        self.lr_schedulers: List[LRScheduler] = []
        #: A torch profiler set with :meth:`set_profiler`, stepped after every batch.
        self.profiler: Any = None
        self.experimental = PyTorchExperimentalContext(self)

        self._optimizer_settings: Dict[int, bool] = {}  # id(optimizer) -> average gradients
        self._scaler: Any = None
        self._stop_requested = False
        self._epoch_len: Optional[int] = None
        self._current_batch_idx: Optional[int] = None
        # The Trainer's timings of the batch being trained, while profiling (pytorch._profiling).
        self._loop_timings: Any = None
        self._to_device_warned_types: Set[Type] = set()
        self._average_aggregated_gradients_default = True
        self._is_pre_trainer = False
        self._tb_writer: Any = None

    # --- configuration -----------------------------------------------------------------------

    def get_hparams(self) -> Dict[str, Any]:
        """The trial's hyperparameters."""
        if self._hparams is None:
            raise ValueError(
                "hparams is not set for this trial: pass hparams=... to determined.pytorch.init()"
            )
        return self._hparams

    def get_hparam(self, name: str) -> Any:
        """The value of hyperparameter ``name``."""
        hparams = self.get_hparams()
        if name not in hparams:
            raise ValueError(
                f"hyperparameter {name!r} is not set; the trial has {sorted(hparams)} (check the "
                "hyperparameters section of the experiment config)"
            )
        if name == "global_batch_size":
            logger.warning(
                "use context.get_per_slot_batch_size() and context.get_global_batch_size() instead "
                "of reading the global_batch_size hyperparameter"
            )
        return hparams[name]

    def get_experiment_config(self) -> Dict[str, Any]:
        """The experiment config (on a cluster), or ``exp_conf`` given to ``pytorch.init()``."""
        if self._exp_conf is None:
            raise ValueError(
                "the experiment config is not set for this trial: pass exp_conf=... to "
                "determined.pytorch.init()"
            )
        return self._exp_conf

    def get_data_config(self) -> Dict[str, Any]:
        """The ``data`` section of the experiment config ({} when unset)."""
        data = self.get_experiment_config().get("data")
        return data if isinstance(data, dict) else {}

    def get_global_batch_size(self) -> int:
        """The global batch size (hyperparameter ``global_batch_size``) used by all workers together."""
        if self._global_batch_size is None:
            raise ValueError(
                "the global_batch_size hyperparameter is not set (pass hparams with "
                "global_batch_size to determined.pytorch.init())"
            )
        return self._global_batch_size

    def get_per_slot_batch_size(self) -> int:
        """The batch size of one worker: the global batch size divided by the number of slots."""
        if self._per_slot_batch_size is None:
            raise ValueError(
                "the global_batch_size hyperparameter is not set (pass hparams with "
                "global_batch_size to determined.pytorch.init())"
            )
        return self._per_slot_batch_size

    def get_trial_id(self) -> int:
        """The trial's ID on the cluster (0 off-cluster)."""
        info = self._core.info
        return info.trial.trial_id if info is not None and info.task_type == "TRIAL" else 0

    def get_experiment_id(self) -> int:
        """The experiment's ID on the cluster (0 off-cluster)."""
        info = self._core.info
        return info.trial.experiment_id if info is not None and info.task_type == "TRIAL" else 0

    def get_trial_seed(self) -> int:
        """The trial's random seed (set on every worker before the trial is built, on a cluster)."""
        if self._trial_seed is None:
            raise ValueError("this trial has no seed (off-cluster, none is set)")
        return self._trial_seed

    def get_initial_batch(self) -> int:
        """The number of batches the cluster says were trained before this run started."""
        return self._steps_completed

    def get_stop_requested(self) -> bool:
        """Whether :meth:`set_stop_requested` asked training to stop."""
        return self._stop_requested

    def set_stop_requested(self, stop_requested: bool) -> None:
        """Asks the Trainer to stop after the current period: it checkpoints, then returns."""
        if not isinstance(stop_requested, bool):
            raise TypeError(f"stop_requested must be a bool, got {type(stop_requested).__name__}")
        if stop_requested:
            logger.info("trial stop requested: stopping at the end of the current period")
        self._stop_requested = stop_requested

    def get_enable_tensorboard_logging(self) -> bool:
        return self._enable_tensorboard_logging

    def set_enable_tensorboard_logging(self, enable_tensorboard_logging: bool) -> None:
        """Whether metrics are written for TensorBoard and TensorBoard files uploaded."""
        self._enable_tensorboard_logging = bool(enable_tensorboard_logging)

    def get_tensorboard_path(self) -> pathlib.Path:
        """Where files for TensorBoard go (uploaded to the trial's TensorBoard storage)."""
        return self._core.train.get_tensorboard_path()

    def get_tensorboard_writer(self) -> Any:
        """A ``torch.utils.tensorboard.SummaryWriter`` writing into :meth:`get_tensorboard_path`
        (needs the ``tensorboard`` package)."""
        if self._tb_writer is None:
            try:
                from torch.utils import tensorboard
            except ImportError as e:
                raise ImportError(
                    f"get_tensorboard_writer() needs the tensorboard package, which is missing ({e})"
                ) from e
            self._tb_writer = tensorboard.SummaryWriter(str(self.get_tensorboard_path()))
        return self._tb_writer

    # --- devices and wrapping --------------------------------------------------------------------

    def _init_device(self) -> torch.device:
        if self._num_gpus > 0 and torch.cuda.is_available():
            if self.distributed.size > 1:
                device = torch.device("cuda", self.distributed.local_rank)
                torch.cuda.set_device(device)
                return device
            return torch.device("cuda", 0)
        return torch.device("cpu")

    def to_device(self, data: _Data) -> TorchData:
        """Moves ``data`` (tensors, arrays, and dicts, lists or tuples of them) to :attr:`device`."""
        return to_device(data, self.device, self._to_device_warned_types)

    def wrap_model(self, model: nn.Module) -> nn.Module:
        """
        Registers ``model`` for checkpointing and returns the model to train with: moved to
        :attr:`device`, and wrapped in ``DistributedDataParallel`` when there are several workers.
        """
        if self._managed_training:
            model = model.to(self.device)
            if self.distributed.size > 1:
                if not (torch.distributed.is_available() and torch.distributed.is_initialized()):
                    raise RuntimeError(
                        "wrap_model(): training with several workers needs torch.distributed; launch "
                        "with python3 -m determined.launch.torch_distributed, or call "
                        "torch.distributed.init_process_group() before determined.pytorch.init()"
                    )
                device_ids = [self.device] if self.device.type == "cuda" else None
                model = _DistributedDataParallel(model, device_ids=device_ids)
        self.models.append(model)
        return model

    def wrap_optimizer(
        self,
        optimizer: torch.optim.Optimizer,
        backward_passes_per_step: int = 1,
        fp16_compression: Optional[bool] = None,
        average_aggregated_gradients: Optional[bool] = None,
    ) -> torch.optim.Optimizer:
        """
        Registers ``optimizer`` (over parameters of wrapped models) for checkpointing; returns it.
        ``average_aggregated_gradients`` (default True) divides gradients accumulated over an
        ``aggregation_frequency`` > 1 by that frequency. ``backward_passes_per_step`` and
        ``fp16_compression`` only mattered for Horovod and are accepted for compatibility.
        """
        if backward_passes_per_step < 1:
            raise ValueError(f"backward_passes_per_step must be >= 1, got {backward_passes_per_step}")
        if fp16_compression:
            logger.warning("wrap_optimizer(fp16_compression=True) only applies to Horovod; ignored")
        if average_aggregated_gradients is None:
            average_aggregated_gradients = self._average_aggregated_gradients_default
        self._optimizer_settings[id(optimizer)] = bool(average_aggregated_gradients)
        self.optimizers.append(optimizer)
        return optimizer

    def wrap_lr_scheduler(
        self,
        lr_scheduler: Any,
        step_mode: LRScheduler.StepMode,
        frequency: int = 1,
    ) -> Any:
        """
        Registers a torch LR scheduler (of a wrapped optimizer) for checkpointing and for stepping
        by the Trainer according to ``step_mode``; returns the scheduler itself.
        """
        if isinstance(lr_scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            if step_mode != LRScheduler.StepMode.MANUAL_STEP:
                raise ValueError(
                    "ReduceLROnPlateau needs a metric to step, so it can only be wrapped with "
                    "step_mode=LRScheduler.StepMode.MANUAL_STEP (step it from a callback's "
                    "on_validation_end(metrics), for example)"
                )
        optimizer = getattr(lr_scheduler, "optimizer", None)
        if optimizer is not None and not any(optimizer is o for o in self.optimizers):
            raise ValueError(
                "wrap_lr_scheduler(): the scheduler's optimizer was not returned by wrap_optimizer()"
            )
        self.lr_schedulers.append(LRScheduler(lr_scheduler, step_mode, frequency))
        return lr_scheduler

    def wrap_scaler(self, scaler: Any) -> Any:
        """
        Registers a ``torch.cuda.amp.GradScaler`` for checkpointing; pass it to
        :meth:`step_optimizer`. Scale the loss, unscale before clipping and call ``update()`` after
        the optimizer steps as plain PyTorch does.
        """
        if self._scaler is not None:
            raise ValueError("wrap_scaler() can only be called once")
        self._scaler = scaler
        return scaler

    def configure_apex_amp(self, *args: Any, **kwargs: Any) -> Any:
        """Not supported: NVIDIA apex is not available here; use :meth:`wrap_scaler`."""
        raise NotImplementedError(
            "configure_apex_amp() is not supported (apex is deprecated upstream and not installed); "
            "use torch AMP with context.wrap_scaler()"
        )

    def set_profiler(self, *args: Any, **kwargs: Any) -> None:
        """
        Sets a ``torch.profiler.profile`` (same arguments, except ``on_trace_ready``, which writes
        traces into :meth:`get_tensorboard_path`); the Trainer enters it and steps it every batch.
        """
        self.profiler = torch.profiler.profile(
            *args,
            on_trace_ready=torch.profiler.tensorboard_trace_handler(str(self.get_tensorboard_path())),
            **kwargs,
        )

    # --- the training step -----------------------------------------------------------------------

    def _should_communicate_and_update(self) -> bool:
        """Whether this batch applies the gradients (the last of ``aggregation_frequency``)."""
        if not self._managed_training or self._aggregation_frequency == 1:
            return True
        if self._current_batch_idx is None:
            raise RuntimeError("training has not started: there is no current batch")
        return (self._current_batch_idx + 1) % self._aggregation_frequency == 0

    @contextlib.contextmanager
    def _no_sync(self) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for model in self.models:
                if isinstance(model, nn.parallel.DistributedDataParallel):
                    stack.enter_context(model.no_sync())
            yield

    def backward(
        self,
        loss: torch.Tensor,
        gradient: Optional[torch.Tensor] = None,
        retain_graph: bool = False,
        create_graph: bool = False,
    ) -> None:
        """
        ``loss.backward(...)``, with the same arguments. With ``aggregation_frequency`` > 1 and several
        workers, gradients are only exchanged on the batch that applies them.
        """
        timings = self._loop_timings
        started = timings.start() if timings is not None else 0.0
        if self.distributed.size > 1 and not self._should_communicate_and_update():
            with self._no_sync():
                loss.backward(gradient=gradient, retain_graph=retain_graph, create_graph=create_graph)
        else:
            loss.backward(gradient=gradient, retain_graph=retain_graph, create_graph=create_graph)
        if timings is not None:
            timings.stop("backward", started)

    def step_optimizer(
        self,
        optimizer: torch.optim.Optimizer,
        clip_grads: Optional[Callable[[Iterator], None]] = None,
        auto_zero_grads: bool = True,
        scaler: Optional[Any] = None,
    ) -> None:
        """
        One optimization step of ``optimizer`` (call it once per optimizer per batch). With an
        ``aggregation_frequency`` > 1 the step only happens on every ``aggregation_frequency``-th
        batch, with the gradients summed since (and averaged, see :meth:`wrap_optimizer`).

        Arguments:
            optimizer: a wrapped optimizer.
            clip_grads: called with the optimizer's parameters before the step, e.g.
                ``lambda params: torch.nn.utils.clip_grad_norm_(params, 1.0)``.
            auto_zero_grads: zero the gradients after the step (required with an
                ``aggregation_frequency`` > 1).
            scaler: a ``GradScaler`` to step through (``scaler.step(optimizer)``).
        """
        timings = self._loop_timings
        started = timings.start() if timings is not None else 0.0
        if self._aggregation_frequency > 1:
            if not auto_zero_grads:
                raise ValueError("auto_zero_grads must be True when aggregation_frequency > 1")
            if not self._should_communicate_and_update():
                return
            if self._optimizer_settings.get(id(optimizer), True):
                for p in _params(optimizer):
                    if p.grad is not None:
                        p.grad.data.div_(float(self._aggregation_frequency))
        if clip_grads is not None:
            clip_grads(_params(optimizer))  # type: ignore[arg-type]
        if scaler is not None:
            scaler.step(optimizer)
        else:
            optimizer.step()
        if auto_zero_grads:
            optimizer.zero_grad()
        if timings is not None:  # batches without a step (aggregation) count for none
            timings.stop("optimizer_step", started)

    # --- the training position -------------------------------------------------------------------

    def _require_position(self) -> Tuple[int, int]:
        if self._current_batch_idx is None:
            raise RuntimeError("training has not started: there is no current batch")
        if not self._epoch_len:
            raise RuntimeError("the training data loader is not built yet")
        return self._current_batch_idx, self._epoch_len

    def current_train_batch(self) -> int:
        """The index of the batch being trained, counted from the start of training."""
        if self._current_batch_idx is None:
            raise RuntimeError("training has not started: there is no current batch")
        return self._current_batch_idx

    def current_train_epoch(self) -> int:
        """The index of the epoch being trained."""
        batch, epoch_len = self._require_position()
        return batch // epoch_len

    def is_epoch_start(self) -> bool:
        """Whether the current batch is the first of its epoch."""
        batch, epoch_len = self._require_position()
        return batch % epoch_len == 0

    def is_epoch_end(self) -> bool:
        """Whether the current batch is the last of its epoch."""
        batch, epoch_len = self._require_position()
        return batch % epoch_len == epoch_len - 1

    # --- for the harness -------------------------------------------------------------------------

    def _set_default_gradient_compression(self, gradient_compression: bool) -> None:
        if gradient_compression:
            logger.warning("optimizations.gradient_compression only applies to Horovod; ignored")

    def _set_default_average_aggregated_gradients(self, average: bool) -> None:
        self._average_aggregated_gradients_default = bool(average)

    def _set_is_pre_trainer(self) -> None:
        """Marks a trial run by the legacy harness entrypoint (recorded in load_data.json)."""
        self._is_pre_trainer = True
