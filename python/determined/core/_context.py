import logging
import os
import pathlib
import signal
import sys
import tempfile
import threading
import traceback
import types
from typing import TYPE_CHECKING, Any, Dict, Optional, Union

import determined as det
from determined._native import native
from determined.core._checkpoint import CheckpointContext, DummyCheckpointContext
from determined.core._distributed import DistributedContext, DummyDistributedContext
from determined.core._experimental import DummyExperimentalCoreContext, ExperimentalCoreContext
from determined.core import _system_metrics
from determined.core._preempt import DummyPreemptContext, PreemptContext, PreemptMode
from determined.core._profiler import DummyProfilerContext, ProfilerContext
from determined.core._searcher import (
    DummySearcherContext,
    SearcherContext,
    _parse_searcher_max_length,
    _parse_searcher_units,
)
from determined.core._tensorboard_mode import TensorboardMode
from determined.core._train import DummyTrainContext, EarlyExitReason, TrainContext

if TYPE_CHECKING:
    from determined.common.api import Session

logger = logging.getLogger("determined.core")


class Context:
    """
    The Core API: ``.train`` (:class:`TrainContext`), ``.checkpoint`` (:class:`CheckpointContext`),
    ``.preempt`` (:class:`PreemptContext`), ``.distributed`` (:class:`DistributedContext`),
    ``.searcher`` (deprecated :class:`SearcherContext`, or None), ``.experimental``
    (:class:`ExperimentalCoreContext`), ``.profiler`` (:class:`ProfilerContext`, system metrics)
    and ``.info`` (the :class:`~determined.ClusterInfo`, None off-cluster).

    Always use ``with det.core.init() as core_context:``; leaving the block sends the metrics still
    queued and stops the background threads.
    """

    def __init__(
        self,
        checkpoint: CheckpointContext,
        distributed: Optional[DistributedContext] = None,
        preempt: Optional[PreemptContext] = None,
        train: Optional[TrainContext] = None,
        searcher: Optional[SearcherContext] = None,
        info: Optional["det.ClusterInfo"] = None,
        experimental: Optional[ExperimentalCoreContext] = None,
        profiler: Optional[ProfilerContext] = None,
    ) -> None:
        self.checkpoint = checkpoint
        self.distributed = distributed or DummyDistributedContext()
        self.preempt = preempt or DummyPreemptContext(self.distributed)
        self.train = train or DummyTrainContext()
        self.searcher = searcher
        self.info = info
        self.experimental = experimental or DummyExperimentalCoreContext()
        self.profiler = profiler or DummyProfilerContext()
        self._closed = False

    def start(self) -> None:
        self.preempt.start()

    def __enter__(self) -> "Context":
        self.start()
        return self

    def close(
        self,
        exc_type: Optional[type] = None,
        exc_val: Optional[BaseException] = None,
        exc_tb: Optional[types.TracebackType] = None,
    ) -> None:
        if self._closed:
            return
        self._closed = True
        self.profiler._close()  # before train: its last report goes out with the rest
        self.preempt.close()
        self.distributed.close()
        try:
            self.train._close()
        except Exception:
            if exc_val is None:
                raise
            logger.exception("sending the last metrics failed")

    def __exit__(
        self,
        exc_type: Optional[type],
        exc_val: Optional[BaseException],
        exc_tb: Optional[types.TracebackType],
    ) -> None:
        if isinstance(exc_val, det.InvalidHP):
            # Report before closing, while the train context can still send.
            self.train.report_early_exit(EarlyExitReason.INVALID_HP)
            self.close(exc_type, exc_val, exc_tb)
            logger.info("InvalidHP detected, converting InvalidHP to exit(0)")
            sys.exit(0)
        self.close(exc_type, exc_val, exc_tb)


def _install_stacktrace_on_sigusr1() -> None:
    """SIGUSR1 prints the main thread's stack to stderr (as upstream)."""
    if not hasattr(signal, "SIGUSR1"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    old_handler = None

    def stacktrace_on_sigusr1(signum: Any, frame: Any) -> None:
        traceback.print_stack(frame, file=sys.stderr)
        if callable(old_handler):
            old_handler(signum, frame)

    try:
        old_handler = signal.signal(signal.SIGUSR1, stacktrace_on_sigusr1)
    except ValueError:
        pass


def _default_local_storage_dir() -> str:
    # appdirs.user_data_dir("determined") on Linux, as upstream.
    home_data = os.path.join(os.path.expanduser("~"), ".local", "share")
    base = os.environ.get("XDG_DATA_HOME") or home_data
    return os.path.join(base, "determined")


def _storage_config(
    checkpoint_storage: Optional[Union[str, Dict[str, Any]]],
    info: Optional["det.ClusterInfo"],
) -> Dict[str, Any]:
    """The checkpoint_storage config the native CheckpointContext is built from."""
    if checkpoint_storage is None:
        if info is not None and info.task_type == "TRIAL":
            cs = info.trial._config.get("checkpoint_storage")
            if not isinstance(cs, dict):
                raise ValueError(
                    "the experiment config has no checkpoint_storage section (the master should "
                    "fill in its default)"
                )
            return cs
        base = _default_local_storage_dir()
        logger.info(f"no checkpoint_storage provided; storing checkpoints in {base}")
        return {"type": "directory", "container_path": base}
    if isinstance(checkpoint_storage, str):
        if checkpoint_storage.startswith("s3://"):
            # Credentials, region and endpoint come from the AWS_* environment variables.
            bucket, _, prefix = checkpoint_storage[len("s3://"):].partition("/")
            if not bucket:
                raise ValueError(f"checkpoint_storage={checkpoint_storage!r}: no bucket after s3://")
            return {"type": "s3", "bucket": bucket, "prefix": prefix.strip("/")}
        if checkpoint_storage.startswith("gs://"):
            raise ValueError(
                f"checkpoint_storage={checkpoint_storage!r}: gcs is not supported by this harness; "
                "pass a directory path or an s3:// URL"
            )
        return {"type": "directory", "container_path": os.path.abspath(checkpoint_storage)}
    if isinstance(checkpoint_storage, dict):
        if checkpoint_storage.get("type") == "shared_fs":
            raise ValueError(
                "Cannot configure a shared_fs checkpoint storage with a dictionary. Use a string "
                "or a configuration file."
            )
        return checkpoint_storage
    raise TypeError("checkpoint_storage must be a string, dictionary, or None")


def _tensorboard_sync(info: "det.ClusterInfo", tensorboard_path: pathlib.Path) -> Any:
    """
    The native uploader of a trial's TensorBoard files into its experiment's checkpoint storage
    (always the experiment's, even when ``init(checkpoint_storage=...)`` overrides where
    checkpoints go: the TensorBoard task reads the experiment's), or None with a warning when that
    storage cannot be used.
    """
    import json

    trial = info.trial
    storage = trial._config.get("checkpoint_storage")
    lib = native()
    try:
        if not isinstance(storage, dict):
            raise ValueError("the experiment config has no checkpoint_storage section")
        return lib.TensorboardSync(
            json.dumps(storage),
            str(tensorboard_path),
            lib.tensorboard_key_prefix(trial.experiment_id, trial.trial_id),
        )
    except Exception as e:
        logger.warning(f"TensorBoard files will not be uploaded: {e}")
        return None


def _dummy_init(
    *,
    distributed: Optional[DistributedContext] = None,
    checkpoint_storage: Optional[Union[str, Dict[str, Any]]] = None,
    tensorboard_path: Optional[pathlib.Path] = None,
    preempt_mode: PreemptMode = PreemptMode.WorkersAskChief,
) -> Context:
    """
    A Context for running off-cluster: metrics are logged, checkpoints go to a local directory
    (``checkpoint_storage``, or ~/.local/share/determined), and preemption never comes.
    """
    import json

    distributed = distributed or DummyDistributedContext()
    preempt = DummyPreemptContext(distributed, preempt_mode)
    storage = _storage_config(checkpoint_storage, None)
    checkpoint = DummyCheckpointContext(
        distributed, native().CheckpointContext(json.dumps(storage))
    )
    train = DummyTrainContext(tensorboard_path)
    searcher = DummySearcherContext(distributed)
    _install_stacktrace_on_sigusr1()
    return Context(
        checkpoint=checkpoint,
        distributed=distributed,
        preempt=preempt,
        train=train,
        searcher=searcher,
    )


def init(
    *,
    distributed: Optional[DistributedContext] = None,
    checkpoint_storage: Optional[Union[str, Dict[str, Any]]] = None,
    preempt_mode: PreemptMode = PreemptMode.WorkersAskChief,
    tensorboard_mode: TensorboardMode = TensorboardMode.AUTO,
    async_checkpointing: bool = False,
) -> Context:
    """
    Builds the Core API :class:`Context`. Use it as ``with det.core.init() as core_context:``.

    On a cluster it talks to the master with the task's allocation token; off-cluster (no cluster
    environment) it returns a local "dummy" context (see ``_dummy_init``).

    Arguments:
        distributed: a :class:`DistributedContext` when the task runs several workers (for example
            ``DistributedContext.from_torch_distributed()`` under
            ``determined.launch.torch_distributed``); one worker if None.
        checkpoint_storage: a directory path, an ``s3://bucket/prefix`` URL, or a checkpoint_storage
            config dict (not ``shared_fs``), overriding the experiment's checkpoint storage.
        preempt_mode: see :class:`PreemptMode`.
        tensorboard_mode: see :class:`TensorboardMode`: whether the chief uploads the files under
            ``core_context.train.get_tensorboard_path()`` by itself (AUTO) or only when
            ``upload_tensorboard_files()`` is called (MANUAL).
        async_checkpointing: accepted for compatibility; checkpoints on local or shared file systems
            are written in place, so there is nothing to upload asynchronously.
    """
    import json

    tensorboard_mode = TensorboardMode(tensorboard_mode)
    info = det.get_cluster_info()
    if info is None:
        return _dummy_init(
            distributed=distributed,
            checkpoint_storage=checkpoint_storage,
            preempt_mode=preempt_mode,
        )

    if distributed is None and len(info.slot_ids) > 1:
        logger.info(
            f"this task has {len(info.slot_ids)} slots and one worker; launch it with "
            "determined.launch.torch_distributed and pass a DistributedContext to train on all of them"
        )
    distributed = distributed or DummyDistributedContext()
    lib = native()

    if info.task_type != "TRIAL":
        # Non-trial tasks (commands, notebooks, generic tasks) cannot report metrics or checkpoints, but
        # they are told to stop as trials are: a generic task's pause is its preemption signal.
        storage = _storage_config(checkpoint_storage, None)
        checkpoint = DummyCheckpointContext(distributed, lib.CheckpointContext(json.dumps(storage)))
        _install_stacktrace_on_sigusr1()
        return Context(
            checkpoint=checkpoint,
            distributed=distributed,
            preempt=PreemptContext(
                lib.PreemptContext(info.master_url, info.session_token, info.allocation_id),
                distributed,
                preempt_mode,
            ),
            train=DummyTrainContext(),
            searcher=None,
            info=info,
            profiler=DummyProfilerContext(f"a {info.task_type.lower()} task has no trial to report to"),
        )

    trial = info.trial
    tensorboard_path = pathlib.Path(tempfile.gettempdir()).joinpath(
        f"tensorboard-{info.allocation_id}-{distributed.rank}"
    )
    train = TrainContext(
        lib.TrainContext(
            info.master_url,
            info.session_token,
            trial.trial_id,
            trial._trial_run_id,
            trial.experiment_id,
        ),
        trial.trial_id,
        tensorboard_path,
        _tensorboard_sync(info, tensorboard_path),
        rank=distributed.rank,
        # As upstream: in AUTO mode the chief uploads its files; MANUAL leaves it to the user.
        auto_upload=tensorboard_mode is TensorboardMode.AUTO and distributed.rank == 0,
    )
    storage = _storage_config(checkpoint_storage, info)
    checkpoint = CheckpointContext(
        distributed,
        lib.CheckpointContext(
            json.dumps(storage),
            info.master_url,
            info.session_token,
            info.task_id,
            info.allocation_id,
        ),
    )
    preempt = PreemptContext(
        lib.PreemptContext(info.master_url, info.session_token, info.allocation_id),
        distributed,
        preempt_mode,
    )
    profiler = _trial_profiler(info, train, distributed, storage)
    searcher = None
    max_length = _parse_searcher_max_length(trial._config)
    if max_length is not None:
        searcher = SearcherContext(
            train, distributed, max_length, _parse_searcher_units(trial._config)
        )
    _install_stacktrace_on_sigusr1()
    return Context(
        checkpoint=checkpoint,
        distributed=distributed,
        preempt=preempt,
        train=train,
        searcher=searcher,
        info=info,
        experimental=ExperimentalCoreContext(lambda: _master_session(info), trial.trial_id),
        profiler=profiler,
    )


def _storage_directory(storage: Dict[str, Any]) -> Optional[str]:
    """The local directory checkpoints are written to, for a file system storage."""
    if storage.get("type") == "shared_fs":
        host = storage.get("host_path")
        return os.path.join(host, storage.get("storage_path") or "") if host else None
    if storage.get("type") == "directory":
        return storage.get("container_path")
    return None


def _trial_profiler(
    info: "det.ClusterInfo",
    train: TrainContext,
    distributed: DistributedContext,
    storage: Dict[str, Any],
) -> ProfilerContext:
    """
    The trial's profiler; on at once when the experiment config says ``profiling: {enabled:
    true}`` (upstream leaves that to the Trainer: docs/decisions.md, "The profiler").
    """
    disk_paths = ["/", os.getcwd(), _storage_directory(storage) or ""]
    profiler = ProfilerContext(
        train._report_profiling,
        info.agent_id,
        lambda: _system_metrics.machine_collectors(disk_paths, info.gpu_uuids),
        local_chief=distributed.local_rank == 0,
    )
    profiling = info.trial._config.get("profiling")
    if isinstance(profiling, dict) and profiling.get("enabled"):
        profiler.on()
    return profiler


def _master_session(info: "det.ClusterInfo") -> "Session":
    """A REST session with the master as the task's user (``DET_USER_TOKEN``), as the SDK's in a task."""
    from determined.common import api
    from determined.common.api import authentication

    cert = info.master_cert_file
    return authentication.login_with_cache(
        api.canonicalize_master_url(info.master_url),
        cert=False if cert == "noverify" else cert or None,
    )
