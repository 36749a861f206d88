"""
The training loop behind ``Trainer.fit()``: trains batch by batch, and at the end of each period
reports training metrics, validates, checkpoints, and checks whether to stop.

Every worker runs the same loop in step: the collectives (metric gathering, broadcasts of the
chief's decisions, the preemption check) are called by all workers in the same order. Only the
chief reports metrics and writes checkpoints.
"""

import contextlib
import enum
import inspect
import logging
import pathlib
import sys
import warnings
from typing import Any, Dict, Iterator, List, Optional, Set

import torch
import torch.utils.data

import determined as det
from determined import core
from determined.pytorch import _checkpoint
from determined.pytorch._callback import PyTorchCallback
from determined.pytorch._data import DataLoader
from determined.pytorch._lr import LRScheduler
from determined.pytorch._metrics import average_training_metrics, to_host
from determined.pytorch._profiling import LoopTimings, ProfilingSettings, TrainerProfiling
from determined.pytorch._reducer import _combine_workers, _local_reduce
from determined.pytorch._trial import PyTorchTrial, _is_overridden
from determined.pytorch._trial_context import PyTorchTrialContext
from determined.pytorch._units import Batch, Epoch, TrainUnit

logger = logging.getLogger("determined.pytorch")


class _ShouldExit(Exception):
    """Leaves the training loop early (preemption, a stop request): checkpoint unless told not to."""

    def __init__(self, skip_checkpoint: bool = False) -> None:
        super().__init__()
        self.skip_checkpoint = skip_checkpoint


class _Boundary(enum.Enum):
    VALIDATE = "validate"
    CHECKPOINT = "checkpoint"
    REPORT = "report"


_NOTHING_REACHED: frozenset = frozenset()


def _repro_message(fn: str, loader: Any) -> str:
    return (
        f"{fn}() returned a {type(loader).__name__}, not a determined.pytorch.DataLoader, so "
        "Determined cannot shard it between workers, repeat it, or resume it at the right batch. "
        "Use determined.pytorch.DataLoader (a drop-in replacement), or call "
        "context.experimental.disable_dataset_reproducibility_checks() in your trial's __init__ "
        "to use it as it is"
    )


class TrialController:
    """Runs one ``fit()``: see :meth:`Trainer.fit` for the meaning of the arguments."""

    def __init__(
        self,
        trial: PyTorchTrial,
        context: PyTorchTrialContext,
        *,
        max_length: Optional[TrainUnit],
        checkpoint_period: TrainUnit,
        validation_period: TrainUnit,
        reporting_period: TrainUnit,
        checkpoint_policy: str,
        latest_checkpoint: Optional[str],
        step_zero_validation: bool,
        test_mode: bool,
        on_cluster: bool,
        trial_id: int,
        steps_completed: int,
        searcher_metric_name: Optional[str],
        smaller_is_better: bool,
        global_batch_size: Optional[int],
        profiling: Optional[ProfilingSettings] = None,
    ) -> None:
        if not isinstance(trial, PyTorchTrial):
            raise TypeError(f"Trainer needs a PyTorchTrial, got {type(trial).__name__}")
        if checkpoint_policy not in ("best", "all", "none"):
            raise ValueError(
                f"checkpoint_policy must be 'best', 'all' or 'none', got {checkpoint_policy!r}"
            )
        self.trial = trial
        self.context = context
        self.core = context._core
        self.dist = context.distributed
        self.is_chief = self.dist.rank == 0
        self.max_length = max_length
        self.periods = {
            _Boundary.VALIDATE: validation_period,
            _Boundary.CHECKPOINT: checkpoint_period,
            _Boundary.REPORT: reporting_period,
        }
        self.checkpoint_policy = checkpoint_policy
        self.latest_checkpoint = latest_checkpoint
        self.step_zero_validation = step_zero_validation
        self.test_mode = test_mode
        self.on_cluster = on_cluster
        self.trial_id = trial_id
        self.steps_completed = steps_completed
        self.searcher_metric_name = searcher_metric_name
        self.smaller_is_better = smaller_is_better
        self.global_batch_size = global_batch_size
        self.profiling = (
            TrainerProfiling(profiling, self.core.profiler, time_loop=self.dist.local_rank == 0)
            if profiling is not None
            else None
        )

        self.callbacks: Dict[str, PyTorchCallback] = {}
        self.state = _checkpoint.TrialState(trial_id=trial_id)
        self.data_seed: Optional[int] = None
        self.training_loader: Any = None
        self.validation_loader: Any = None
        self.training_iterator: Optional[Iterator] = None
        self.searcher_units: Optional[core.Unit] = None
        self.last_searcher_metric: Any = None
        self._op_completed = False
        self._tb_failed = False
        self._status: Optional[str] = None

    # --- setup -----------------------------------------------------------------------------------

    def _check_trial(self) -> None:
        if not self.context.models:
            raise ValueError(
                "the trial wrapped no model: call context.wrap_model() in its __init__()"
            )
        if not self.context.optimizers:
            raise ValueError(
                "the trial wrapped no optimizer: call context.wrap_optimizer() in its __init__()"
            )
        batch = _is_overridden(self.trial, "evaluate_batch")
        full = _is_overridden(self.trial, "evaluate_full_dataset")
        if batch == full:
            raise ValueError(
                "define exactly one of evaluate_batch() and evaluate_full_dataset() in the trial "
                "(evaluate_batch() is recommended: every worker evaluates a part of the data)"
            )
        self.evaluate_batch_defined = batch
        self.evaluate_batch_takes_idx = batch and "batch_idx" in inspect.signature(
            self.trial.evaluate_batch
        ).parameters

    def _build_training_loader(self, raw: Any) -> None:
        skip = self.state.batches_trained
        if isinstance(raw, DataLoader):
            self.training_loader = raw.get_data_loader(
                repeat=True, skip=skip, num_replicas=self.dist.size, rank=self.dist.rank
            )
        elif self.context.experimental._data_repro_checks_disabled:
            self.training_loader = raw
        else:
            raise RuntimeError(_repro_message("build_training_data_loader", raw))
        try:
            epoch_len = len(self.training_loader)
        except TypeError:
            epoch_len = self._epoch_len_from_config()
        # Every worker uses the chief's epoch length.
        epoch_len = self.dist.broadcast(epoch_len)
        if epoch_len < 1:
            raise ValueError("the training data loader is empty")
        self.context._epoch_len = epoch_len

    def _epoch_len_from_config(self) -> int:
        try:
            records = int(self.context.get_experiment_config().get("records_per_epoch") or 0)
        except ValueError:
            records = 0
        if records and self.global_batch_size:
            return max(records // self.global_batch_size, 1)
        logger.warning("the training data loader has no length: epochs never end")
        return sys.maxsize

    def _build_validation_loader(self, raw: Any) -> None:
        if not self.evaluate_batch_defined and not self.is_chief:
            return  # evaluate_full_dataset runs on the chief alone
        if isinstance(raw, DataLoader):
            sharded = self.evaluate_batch_defined
            self.validation_loader = raw.get_data_loader(
                repeat=False,
                num_replicas=self.dist.size if sharded else 1,
                rank=self.dist.rank if sharded else 0,
            )
        elif self.context.experimental._data_repro_checks_disabled:
            self.validation_loader = raw
        else:
            raise RuntimeError(_repro_message("build_validation_data_loader", raw))

    def _restore(self, train_data: Any) -> None:
        """Loads the latest checkpoint (if any) and settles the training position and data seed."""
        saved_seed = None
        logger.info(f"training on {self.context.device}")
        if self.latest_checkpoint is not None:
            logger.info(f"restoring trial from checkpoint {self.latest_checkpoint}")
            with self.core.checkpoint.restore_path(self.latest_checkpoint) as path:
                saved_state, saved_seed = _checkpoint.load(
                    pathlib.Path(path), self.context, self.callbacks
                )
            if saved_state is not None and saved_state.get("trial_id") == self.trial_id:
                self.state = _checkpoint.TrialState(**saved_state)
            else:
                # A checkpoint of another trial: its weights, but training starts over.
                self.state = _checkpoint.TrialState(trial_id=self.trial_id)
                logger.info("the checkpoint is another trial's: training starts at batch 0")
        if isinstance(train_data, DataLoader):
            seed = saved_seed if saved_seed is not None else train_data._shuffle_seed
            seed = self.dist.broadcast(seed)
            train_data._set_shuffle_seed(seed)
            self.data_seed = train_data._shuffle_seed

    # --- the loop --------------------------------------------------------------------------------

    def run(self) -> None:
        self.callbacks = dict(self.trial.build_callbacks())
        self._check_trial()
        for name, callback in self.callbacks.items():
            if _overrides(callback, "on_checkpoint_end"):
                warnings.warn(
                    f"callback {name!r}: on_checkpoint_end is deprecated, use "
                    "on_checkpoint_write_end",
                    FutureWarning,
                    stacklevel=2,
                )
        with contextlib.ExitStack() as stack:
            for callback in self.callbacks.values():
                callback.on_trial_startup(self.steps_completed, self.latest_checkpoint)
                stack.callback(callback.on_trial_shutdown)
            train_data = self.trial.build_training_data_loader()
            validation_data = self.trial.build_validation_data_loader()
            self._restore(train_data)
            self._build_training_loader(train_data)
            self._build_validation_loader(validation_data)
            self.training_iterator = iter(self.training_loader)
            # Shut the loader's worker processes down when leaving, whatever happens.
            stack.callback(self._drop_iterator)
            for callback in self.callbacks.values():
                callback.on_training_start()
            if self.context.profiler is not None:
                stack.enter_context(self.context.profiler)
            self._run()

    def _drop_iterator(self) -> None:
        self.training_iterator = None

    def _run(self) -> None:
        try:
            if self.step_zero_validation and self.state.batches_trained == 0:
                self._validate(None)
            if self.max_length is not None or not self.on_cluster:
                assert self.max_length is not None
                self._train_for(self.max_length, None)
            else:
                self._train_for_searcher()
        except _ShouldExit as e:
            if not e.skip_checkpoint and not self._checkpoint_is_current():
                self._checkpoint()
        except det.InvalidHP:
            if not self._checkpoint_is_current():
                self._checkpoint()
            raise

    def _train_for_searcher(self) -> None:
        """On a cluster without ``max_length``: train for the searcher's ``max_length``."""
        searcher = self.core.searcher
        if searcher is None:
            raise ValueError(
                "no training length: pass max_length to fit() (the experiment config has no "
                "searcher.max_length)"
            )
        self.searcher_units = searcher.get_configured_units()
        # The chief takes the operations and reports on them; the other workers follow the lengths
        # it broadcasts (their own operations would wait for completions only the chief reports).
        ops = searcher.operations() if self.is_chief else None
        while True:
            op = self._next_op(ops)
            op_length = op.length if op is not None else None
            if self.dist.size > 1:
                op_length = self.dist.broadcast(op_length)
            if op_length is None:
                return
            length = TrainUnit._from_searcher_unit(
                op_length, self.searcher_units, self.global_batch_size
            )
            self._train_for(length, op)

    @staticmethod
    def _next_op(ops: Optional[Iterator[Any]]) -> Any:
        if ops is None:
            return None
        with warnings.catch_warnings():
            # The deprecation is for users calling operations(); the Trainer calls it for them.
            warnings.simplefilter("ignore", FutureWarning)
            return next(ops, None)

    def _length_done(self, length: TrainUnit) -> bool:
        if isinstance(length, Epoch):
            return self.state.epochs_trained >= length._length()
        return self.state.batches_trained >= length._length()

    def _period_reached(self, unit: TrainUnit, epoch_ended: bool) -> bool:
        if isinstance(unit, Epoch):
            return epoch_ended and unit.should_stop(self.state.epochs_trained)
        return unit.should_stop(self.state.batches_trained)

    def _next_period_check(self, batches_trained: int) -> int:
        """
        The first value of ``batches_trained`` above ``batches_trained`` after which a batch period
        may end: the next multiple of each ``Batch(n)`` period, or the next batch when any batch
        period is something else (a schedule, every batch). Epoch periods are checked when an
        epoch ends.
        """
        nxt = sys.maxsize
        for unit in self.periods.values():
            if isinstance(unit, Epoch):
                continue
            value = unit.value
            if type(unit) is not Batch or type(value) is not int or value < 1:
                return batches_trained + 1
            nxt = min(nxt, (batches_trained // value + 1) * value)
        return nxt

    def _train_for(self, length: TrainUnit, op: Any) -> None:
        if not isinstance(length, (Batch, Epoch)):
            raise TypeError(f"max_length must be a Batch or an Epoch, got {length!r}")
        if self.test_mode:
            length = Batch(self.state.batches_trained + 1)
        # The loop below is the per-batch path: what does not change during it is looked up once.
        target = length._length()
        by_epoch = isinstance(length, Epoch)
        self._op_completed = False
        epoch_len = self.context._epoch_len
        assert epoch_len and self.training_iterator is not None
        training_iterator = self.training_iterator
        context = self.context
        state = self.state
        one_worker = self.dist.size == 1
        should_preempt = self.core.preempt.should_preempt
        test_mode = self.test_mode
        profiling = self.profiling
        timings: Optional[LoopTimings] = None
        next_check = self._next_period_check(state.batches_trained)

        pending: List[Dict[str, Any]] = []
        self._set_train_mode(True)
        self.context.reset_reducers()
        while (state.epochs_trained if by_epoch else state.batches_trained) < target:
            if self._status != "training":
                self._set_status("training")
            batch_idx = state.batches_trained
            epoch_idx, in_epoch = divmod(batch_idx, epoch_len)
            context._current_batch_idx = batch_idx
            if in_epoch == 0:
                self._on_epoch_start(epoch_idx)
            if profiling is not None:
                timings = profiling.before_batch(batch_idx)
            started = timings.start() if timings is not None else 0.0
            try:
                batch = next(training_iterator)
            except StopIteration:
                raise RuntimeError(
                    "the training data loader ran out of data; a loader used as it is (with "
                    "dataset reproducibility checks disabled) must repeat forever"
                ) from None
            if timings is not None:
                timings.stop("dataloader_next", started)
            pending.append(self._train_batch(batch, epoch_idx, batch_idx, timings))
            state.batches_trained += 1
            epoch_ended = in_epoch == epoch_len - 1
            if epoch_ended:
                state.epochs_trained += 1
                for callback in self.callbacks.values():
                    callback.on_training_epoch_end(epoch_idx)

            # No batch period ends before next_check, and epoch periods only end with an epoch.
            if epoch_ended or state.batches_trained >= next_check:
                reached = {
                    kind
                    for kind, unit in self.periods.items()
                    if self._period_reached(unit, epoch_ended)
                }
                next_check = self._next_period_check(state.batches_trained)
            else:
                reached = _NOTHING_REACHED
            if (
                reached
                or (state.epochs_trained if by_epoch else state.batches_trained) >= target
                or test_mode
            ):
                self._report_training(pending)
                pending = []
                self._report_progress(length, op)
                if _Boundary.VALIDATE in reached and not self._validation_is_current():
                    self._validate(op, length)
                if _Boundary.CHECKPOINT in reached and not self._checkpoint_is_current():
                    self._checkpoint()
                if self._stop_requested():
                    raise _ShouldExit()
            # One worker asks after every batch (a local flag); several workers agree on the chief's
            # answer, a collective, so they ask at the period boundaries only, as upstream's do.
            if (one_worker or reached) and should_preempt():
                logger.info("preempted after batch %d", state.batches_trained)
                if pending:
                    self._report_training(pending)
                raise _ShouldExit()

        if not self._validation_is_current():
            self._validate(op, length)
        if not self._checkpoint_is_current():
            self._checkpoint()
        if op is not None and self.is_chief and not self._op_completed and not self.test_mode:
            op.report_completed(self.last_searcher_metric)
            self._op_completed = True

    def _set_status(self, status: str) -> None:
        """Tells the WebUI what the trial is doing (chief only, and only when it changes)."""
        if self.is_chief and status != self._status:
            self._status = status
            self.core.train.set_status(status)

    def _on_epoch_start(self, epoch_idx: int) -> None:
        for callback in self.callbacks.values():
            if inspect.signature(callback.on_training_epoch_start).parameters:
                callback.on_training_epoch_start(epoch_idx)
            else:
                logger.warning("on_training_epoch_start() without epoch_idx is deprecated")
                callback.on_training_epoch_start()  # type: ignore[call-arg]

    def _set_train_mode(self, training: bool) -> None:
        for model in self.context.models:
            model.train(training)

    def _train_batch(
        self, batch: Any, epoch_idx: int, batch_idx: int, timings: Optional[LoopTimings] = None
    ) -> Dict[str, Any]:
        context = self.context
        if context.experimental._auto_to_device:
            started = timings.start() if timings is not None else 0.0
            batch = context.to_device(batch)
            if timings is not None:
                timings.stop("to_device", started)
        if timings is None:
            metrics = self.trial.train_batch(batch=batch, epoch_idx=epoch_idx, batch_idx=batch_idx)
        else:
            # context.backward() and step_optimizer() time themselves into the same timings.
            context._loop_timings = timings
            started = timings.start()
            try:
                metrics = self.trial.train_batch(batch=batch, epoch_idx=epoch_idx, batch_idx=batch_idx)
            finally:
                context._loop_timings = None
            timings.stop("train_batch", started)
        if context.profiler is not None:
            context.profiler.step()
        if type(metrics) is not dict:
            if isinstance(metrics, torch.Tensor):
                metrics = {"loss": metrics}
            elif not isinstance(metrics, dict):
                raise TypeError(
                    "train_batch() must return a dict of metric name to value (or a loss tensor), "
                    f"got {type(metrics).__name__}"
                )
        for lr_scheduler in context.lr_schedulers:
            self._auto_step_lr_scheduler(lr_scheduler, batch_idx)
        return to_host(metrics)

    def _auto_step_lr_scheduler(self, lr_scheduler: LRScheduler, batch_idx: int) -> None:
        """Steps ``lr_scheduler`` after batch ``batch_idx``, as its step mode says."""
        if not self.context._should_communicate_and_update():
            return  # no optimizer step on this batch, so no LR step either
        mode, freq = lr_scheduler.step_mode, lr_scheduler.frequency
        agg = self.context._aggregation_frequency
        if mode is LRScheduler.StepMode.STEP_EVERY_BATCH:
            # Every batch since the last optimizer step counts.
            for done in range(batch_idx - agg + 2, batch_idx + 2):
                if done % freq == 0:
                    lr_scheduler.step()
        elif mode is LRScheduler.StepMode.STEP_EVERY_OPTIMIZER_STEP:
            if ((batch_idx + 1) // agg) % freq == 0:
                lr_scheduler.step()
        elif mode is LRScheduler.StepMode.STEP_EVERY_EPOCH:
            # Epochs that end before the next optimizer step.
            epoch_len = self.context._epoch_len
            assert epoch_len
            for epoch in range(batch_idx // epoch_len, (batch_idx + agg) // epoch_len):
                if (epoch + 1) % freq == 0:
                    lr_scheduler.step()

    # --- boundaries ------------------------------------------------------------------------------

    def _checkpoint_is_current(self) -> bool:
        return self.state.last_ckpt == self.state.batches_trained

    def _validation_is_current(self) -> bool:
        return self.state.last_val == self.state.batches_trained

    def _stop_requested(self) -> bool:
        stop = self.context.get_stop_requested()
        if self.dist.size > 1:
            stop = any(self.dist.allgather(stop))
        return stop

    def _with_position(self, metrics: Dict[str, Any]) -> Dict[str, Any]:
        """Adds ``batches`` and ``epochs`` (the searcher's time metrics) unless already there."""
        out = dict(metrics)
        out.setdefault("batches", self.state.batches_trained)
        out.setdefault("epochs", self.state.epochs_trained)
        return out

    def _report_training(self, pending: List[Dict[str, Any]]) -> None:
        per_worker = self.dist.allgather(pending) if self.dist.size > 1 else [pending]
        avg, batch_metrics = average_training_metrics(per_worker)
        avg.update(self.context.reduce_metrics(for_training=True))
        self.context.reset_reducers()
        if self.profiling is not None:
            self.profiling.report(self.state.batches_trained)
        if self.is_chief:
            reported = self._with_position(avg)
            self.core.train.report_training_metrics(
                steps_completed=self.state.batches_trained,
                metrics=reported,
                batch_metrics=batch_metrics,
            )
            self._log_tensorboard("train", reported)
        for callback in self.callbacks.values():
            callback.on_training_workload_end(avg_metrics=avg, batch_metrics=batch_metrics)

    def _report_progress(self, length: TrainUnit, op: Any) -> None:
        if not self.is_chief or self.test_mode:
            return
        if op is not None and not self._op_completed:
            units = self.searcher_units
            if units == core.Unit.EPOCHS:
                op.report_progress(self.state.epochs_trained)
            elif units == core.Unit.RECORDS and self.global_batch_size:
                op.report_progress(self.state.batches_trained * self.global_batch_size)
            else:
                op.report_progress(self.state.batches_trained)
            return
        total = length._length()
        if isinstance(length, Epoch):
            total *= self.context._epoch_len or 1
        if total > 0:
            self.core.train.report_progress(min(1.0, self.state.batches_trained / total))

    def _log_tensorboard(self, group: str, metrics: Dict[str, Any]) -> None:
        if not self.context.get_enable_tensorboard_logging() or self._tb_failed:
            return
        try:
            writer = self.context.get_tensorboard_writer()
        except ImportError as e:
            self._tb_failed = True
            logger.debug(f"metrics are not written for TensorBoard: {e}")
            return
        for name, value in metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                writer.add_scalar(f"{group}/{name}", value, self.state.batches_trained)
        writer.flush()

    def _evaluate_batches(self) -> Dict[str, Any]:
        for callback in self.callbacks.values():
            callback.on_validation_epoch_start()
        outputs: List[Dict[str, Any]] = []
        keys: Optional[Set[str]] = None
        assert self.validation_loader is not None
        for idx, batch in enumerate(self.validation_loader):
            if self.context.experimental._auto_to_device:
                batch = self.context.to_device(batch)
            if self.evaluate_batch_takes_idx:
                metrics = self.trial.evaluate_batch(batch=batch, batch_idx=idx)
            else:
                metrics = self.trial.evaluate_batch(batch=batch)  # type: ignore[call-arg]
            if not isinstance(metrics, dict):
                raise TypeError(
                    "evaluate_batch() must return a dict of metric name to value, got "
                    f"{type(metrics).__name__}"
                )
            if keys is None:
                keys = set(metrics)
            elif keys != set(metrics):
                raise ValueError(
                    "evaluate_batch() must return the same metric names for every batch: "
                    f"{sorted(keys)} != {sorted(metrics)}"
                )
            outputs.append(metrics)
            if self.test_mode:
                break
        for callback in self.callbacks.values():
            callback.on_validation_epoch_end(outputs)
        local = _local_reduce([to_host(m) for m in outputs], self.trial.evaluation_reducer())
        per_worker = self.dist.allgather(local) if self.dist.size > 1 else [local]
        if not any(per_worker):
            raise RuntimeError("the validation data loader is empty")
        return _combine_workers(per_worker, self.trial.evaluation_reducer())

    def _validate(self, op: Any, length: Optional[TrainUnit] = None) -> Dict[str, Any]:
        self._set_status("validating")
        self.context.reset_reducers()
        self._set_train_mode(False)
        for callback in self.callbacks.values():
            callback.on_validation_start()
        with torch.no_grad():
            if self.evaluate_batch_defined:
                metrics = self._evaluate_batches()
            elif self.is_chief:
                metrics = self.trial.evaluate_full_dataset(data_loader=self.validation_loader)
                if not isinstance(metrics, dict):
                    raise TypeError(
                        "evaluate_full_dataset() must return a dict of metric name to value, got "
                        f"{type(metrics).__name__}"
                    )
                metrics = to_host(metrics)
            else:
                metrics = {}
            metrics.update(self.context.reduce_metrics(for_training=False))
        if self.dist.size > 1:
            metrics = self.dist.broadcast(metrics)
        for callback in self.callbacks.values():
            callback.on_validation_end(metrics)
        self.state.last_val = self.state.batches_trained

        should_checkpoint = False
        if self.is_chief:
            best_before = self.core.train.get_experiment_best_validation()
            self.core.train.report_validation_metrics(
                self.state.batches_trained, self._with_position(metrics)
            )
            self._log_tensorboard("val", metrics)
            searcher_metric = self._searcher_metric(metrics)
            if searcher_metric is not None:
                self.last_searcher_metric = searcher_metric
            if (
                op is not None
                and length is not None
                and not self._op_completed
                and self._length_done(length)
                and not self.test_mode
            ):
                op.report_completed(searcher_metric)
                self._op_completed = True
            if not self._checkpoint_is_current():
                if self.checkpoint_policy == "all":
                    should_checkpoint = True
                elif self.checkpoint_policy == "best":
                    should_checkpoint = self._is_best(searcher_metric, best_before)
        if self.dist.size > 1:
            should_checkpoint = self.dist.broadcast(should_checkpoint)
        if should_checkpoint:
            self._checkpoint()
        self._set_train_mode(True)
        self.context.reset_reducers()
        return metrics

    def _searcher_metric(self, metrics: Dict[str, Any]) -> Any:
        name = self.searcher_metric_name
        if not name:
            return None
        if name not in metrics:
            raise RuntimeError(
                f"the searcher metric {name!r} (searcher.metric) is not among the validation "
                f"metrics {sorted(metrics)}; return it from evaluate_batch() or "
                "evaluate_full_dataset()"
            )
        value = metrics[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RuntimeError(f"the searcher metric {name!r} must be a number, got {value!r}")
        return value

    def _is_best(self, now: Any, before: Optional[float]) -> bool:
        if now is None:
            return False
        if before is None:
            return True
        return now < before if self.smaller_is_better else now > before

    def _checkpoint(self) -> None:
        self._set_status("checkpointing")
        self.state.last_ckpt = self.state.batches_trained
        uuid = ""
        if self.is_chief:
            metadata = {
                "determined_version": det.__version__,
                "steps_completed": self.state.batches_trained,
                "framework": f"torch-{torch.__version__}",
                "format": "pickle",
            }
            with self.core.checkpoint.store_path(metadata) as (path, storage_id):
                _checkpoint.save(
                    pathlib.Path(path),
                    self.trial,
                    self.context,
                    self.callbacks,
                    self.state,
                    self.data_seed,
                    on_cluster=self.on_cluster,
                )
            uuid = storage_id
        if self.dist.size > 1:
            uuid = self.dist.broadcast(uuid)
        for callback in self.callbacks.values():
            callback.on_checkpoint_upload_end(uuid=uuid)


def _overrides(callback: PyTorchCallback, name: str) -> bool:
    return getattr(type(callback), name) is not getattr(PyTorchCallback, name)
