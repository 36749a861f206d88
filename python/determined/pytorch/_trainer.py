"""``determined.pytorch.init()`` and ``Trainer``: training a PyTorchTrial on or off a cluster."""

import contextlib
import logging
import os
import random
import sys
from typing import Any, Dict, Iterator, Optional, Union

import numpy as np
import torch
import torch.distributed

import determined as det
from determined import core
from determined.pytorch import _profiling
from determined.pytorch._controller import TrialController
from determined.pytorch._trial import PyTorchTrial
from determined.pytorch._trial_context import PyTorchTrialContext
from determined.pytorch._units import Batch, TrainUnit

logger = logging.getLogger("determined.pytorch")


def _on_cluster(info: Optional["det.ClusterInfo"]) -> bool:
    return info is not None and info.task_type == "TRIAL"


class Trainer:
    """
    Trains a :class:`PyTorchTrial`: checkpoints, validates and reports metrics on the way, and
    resumes from a checkpoint. Use it inside ``with determined.pytorch.init() as context:``.

    .. code:: python

       with det.pytorch.init(hparams=hparams, exp_conf=config) as context:
           trial = MyTrial(context)
           trainer = det.pytorch.Trainer(trial, context)
           trainer.fit(max_length=pytorch.Epoch(5), validation_period=pytorch.Batch(100))
    """

    def __init__(self, trial: PyTorchTrial, context: PyTorchTrialContext) -> None:
        self._trial = trial
        self._context = context
        self._core = context._core
        self._info = self._core.info
        self._local_training = not _on_cluster(self._info)

    def configure_profiler(
        self,
        sync_timings: bool = True,
        enabled: bool = False,
        begin_on_batch: int = 0,
        end_after_batch: Optional[int] = None,
    ) -> None:
        """Deprecated: use ``fit(..., profiling_enabled=True)``."""
        logger.warning(
            "Trainer.configure_profiler() is deprecated; use fit(..., profiling_enabled=True)"
        )

    def fit(
        self,
        checkpoint_period: Optional[TrainUnit] = None,
        validation_period: Optional[TrainUnit] = None,
        max_length: Optional[TrainUnit] = None,
        reporting_period: TrainUnit = Batch(100),  # noqa: B008 (immutable in practice)
        checkpoint_policy: str = "best",
        latest_checkpoint: Optional[str] = None,
        step_zero_validation: bool = False,
        test_mode: bool = False,
        profiling_enabled: bool = False,
    ) -> None:
        """
        Trains the trial.

        Arguments:
            checkpoint_period: checkpoint after every period (a ``Batch`` or ``Epoch``, of an int, or
                of a container of ints as a schedule: ``Batch([5, 30])``). Default: only at the end,
                before exiting, and as ``checkpoint_policy`` says.
            validation_period: validate after every period (same forms). Default: only at the end.
            max_length: how long to train, ``Batch(n)`` or ``Epoch(n)``. Required off-cluster. On a
                cluster it defaults to the deprecated ``searcher.max_length`` of the experiment
                config (in its units: batches, records or epochs).
            reporting_period: report training metrics and progress after every period.
            checkpoint_policy: after a validation, checkpoint if it is the best so far for the
                experiment (``"best"``, by ``searcher.metric`` and ``smaller_is_better``; on a
                cluster only, off-cluster it falls back to ``"all"``), always (``"all"``), or not
                (``"none"``).
            latest_checkpoint: the checkpoint to resume from (its UUID), normally
                ``det.get_cluster_info().latest_checkpoint``: models, optimizers, LR schedulers,
                random states, callbacks and the training position are restored.
            step_zero_validation: validate once before training.
            test_mode: train one batch, validate on one batch, checkpoint, and return (off-cluster).
            profiling_enabled: profile the trial (on a cluster), as the experiment config's
                ``profiling: {enabled: true}`` does: system metrics (``core_context.profiler``) and
                the timings of the training loop, for the batches from ``profiling.begin_on_batch``
                to ``profiling.end_after_batch`` (docs/profiler.md).

        Preemption (a pause, or the searcher stopping the trial) is checked after every batch: the
        trial checkpoints and ``fit()`` returns.
        """
        if checkpoint_period is None:
            checkpoint_period = Batch(sys.maxsize)
        if validation_period is None:
            validation_period = Batch(sys.maxsize)
        for name, unit in (
            ("checkpoint_period", checkpoint_period),
            ("validation_period", validation_period),
            ("reporting_period", reporting_period),
        ):
            if not isinstance(unit, TrainUnit):
                raise TypeError(f"{name} must be a pytorch.Batch or pytorch.Epoch, got {unit!r}")
        if max_length is not None:
            if not isinstance(max_length, TrainUnit) or not isinstance(max_length.value, int):
                raise TypeError(f"max_length must be Batch(int) or Epoch(int), got {max_length!r}")
        exp_conf = self._context._exp_conf or {}
        profiling = _profiling.settings_from(exp_conf, profiling_enabled)
        if profiling is not None and self._local_training:
            logger.warning("profiling: off-cluster there is no trial to report system metrics to")
            profiling = None

        searcher_cfg = exp_conf.get("searcher") if isinstance(exp_conf, dict) else None
        searcher_cfg = searcher_cfg if isinstance(searcher_cfg, dict) else {}
        hparams = self._context._hparams or {}
        global_batch_size = (
            int(hparams["global_batch_size"]) if hparams.get("global_batch_size") else None
        )

        if self._local_training:
            if max_length is None:
                raise ValueError("max_length is required off-cluster, e.g. fit(max_length=Epoch(1))")
            if checkpoint_policy == "best":
                logger.warning(
                    "checkpoint_policy='best' needs the cluster's best validation; off-cluster it "
                    "falls back to 'all'"
                )
                checkpoint_policy = "all"
            trial_id = 0
            steps_completed = 0
            metric_name = None
            smaller_is_better = True
        else:
            if test_mode:
                raise ValueError("test_mode is only supported off-cluster")
            assert self._info is not None
            if latest_checkpoint is None and self._info.latest_checkpoint is not None:
                logger.warning(
                    "this trial has a checkpoint to resume from, but latest_checkpoint was not "
                    "given; pass fit(latest_checkpoint=det.get_cluster_info().latest_checkpoint) "
                    "to resume after a pause"
                )
            trial_id = self._info.trial.trial_id
            steps_completed = self._info.trial.steps_completed
            metric_name = searcher_cfg.get("metric")
            smaller_is_better = bool(searcher_cfg.get("smaller_is_better", True))

        controller = TrialController(
            self._trial,
            self._context,
            max_length=max_length,
            checkpoint_period=checkpoint_period,
            validation_period=validation_period,
            reporting_period=reporting_period,
            checkpoint_policy=checkpoint_policy,
            latest_checkpoint=latest_checkpoint,
            step_zero_validation=step_zero_validation,
            test_mode=test_mode,
            on_cluster=not self._local_training,
            trial_id=trial_id,
            steps_completed=steps_completed,
            searcher_metric_name=metric_name,
            smaller_is_better=smaller_is_better,
            global_batch_size=global_batch_size,
            profiling=profiling,
        )
        controller.run()


def _set_random_seeds(seed: int) -> None:
    """The same seed on every worker: each reads its own shard of the same shuffled data."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.random.manual_seed(seed)


def _init_process_group() -> None:
    if torch.distributed.is_initialized():
        return
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        if name not in os.environ:
            raise RuntimeError(
                f"distributed training needs torch.distributed, and {name} is not set: launch with "
                "python3 -m determined.launch.torch_distributed, or call "
                "torch.distributed.init_process_group() before determined.pytorch.init()"
            )
    torch.distributed.init_process_group("nccl" if torch.cuda.is_available() else "gloo")


def _distributed_from_launcher(info: Optional["det.ClusterInfo"]) -> Optional[core.DistributedContext]:
    """The DistributedContext of a worker started by determined.launch.torch_distributed."""
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        _init_process_group()
        return core.DistributedContext.from_torch_distributed()
    if info is not None and (len(info.container_addrs) > 1 or len(info.slot_ids) > 1):
        raise ValueError(
            "this trial has several slots: launch it with python3 -m "
            "determined.launch.torch_distributed -- <command> so that one worker runs per slot"
        )
    return None


@contextlib.contextmanager
def init(
    *,
    hparams: Optional[Dict[str, Any]] = None,
    exp_conf: Optional[Dict[str, Any]] = None,
    distributed: Optional[core.DistributedContext] = None,
    aggregation_frequency: int = 1,
    enable_tensorboard_logging: bool = True,
    checkpoint_storage: Optional[Union[str, Dict[str, Any]]] = None,
) -> Iterator[PyTorchTrialContext]:
    """
    ``with determined.pytorch.init() as context:`` builds the :class:`PyTorchTrialContext` to build a
    trial and a :class:`Trainer` with; leaving the block sends the last metrics and releases the
    Core API context.

    On a cluster, the context gets the trial's hyperparameters, experiment config and seed (set on
    every worker), and a worker started by ``determined.launch.torch_distributed`` joins the others
    through torch.distributed (gloo on CPU, nccl on GPU). Off-cluster, the Core API's local context
    is used: metrics are logged and checkpoints go to a local directory.

    Arguments:
        hparams: the hyperparameters (default on a cluster: the trial's).
        exp_conf: the experiment config (default on a cluster: the trial's); needed off-cluster for
            ``context.get_experiment_config()`` and ``get_data_config()``.
        distributed: a Core API DistributedContext, to run several workers off-cluster (with
            torch.distributed initialized); on a cluster it comes from the launcher.
        aggregation_frequency: apply gradients every this many batches (summed in between).
        enable_tensorboard_logging: write metrics for TensorBoard (when the tensorboard package is
            installed) and upload the TensorBoard directory.
        checkpoint_storage: where checkpoints go, as :func:`determined.core.init`'s (default: the
            experiment's; off-cluster ``~/.local/share/determined``). Ours, not upstream's.
    """
    info = det.get_cluster_info()
    on_cluster = _on_cluster(info)
    trial_seed: Optional[int] = None
    steps_completed = 0
    debug = False
    if on_cluster:
        assert info is not None
        if distributed is None:
            distributed = _distributed_from_launcher(info)
        trial_seed = info.trial.trial_seed
        hparams = info.trial.hparams if hparams is None else hparams
        exp_conf = info.trial.config if exp_conf is None else exp_conf
        steps_completed = info.trial.steps_completed
        debug = bool(info.trial.config.get("debug", False))
        _set_random_seeds(trial_seed)
    if distributed is not None and distributed.size > 1:
        _init_process_group()

    tensorboard_mode = (
        core.TensorboardMode.AUTO if enable_tensorboard_logging else core.TensorboardMode.MANUAL
    )
    with core.init(
        distributed=distributed,
        checkpoint_storage=checkpoint_storage,
        preempt_mode=core.PreemptMode.WorkersAskChief,
        tensorboard_mode=tensorboard_mode,
    ) as core_context:
        yield PyTorchTrialContext(
            core_context=core_context,
            trial_seed=trial_seed,
            hparams=hparams,
            slots_per_trial=core_context.distributed.size,
            num_gpus=torch.cuda.device_count() if torch.cuda.is_available() else 0,
            exp_conf=exp_conf,
            aggregation_frequency=aggregation_frequency,
            steps_completed=steps_completed,
            managed_training=True,
            debug_enabled=debug,
            enable_tensorboard_logging=enable_tensorboard_logging,
        )
