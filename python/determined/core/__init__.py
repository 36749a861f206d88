"""The Core API: ``with det.core.init() as core_context: ...``."""

from determined.core._tensorboard_mode import TensorboardMode
from determined.core._distributed import DistributedContext, DummyDistributedContext
from determined.core._checkpoint import CheckpointContext, DownloadMode, DummyCheckpointContext
from determined.core._experimental import DummyExperimentalCoreContext, ExperimentalCoreContext
from determined.core._train import DummyTrainContext, EarlyExitReason, TrainContext
from determined.core._searcher import (
    DummySearcherContext,
    SearcherContext,
    SearcherMode,
    SearcherOperation,
    Unit,
)
from determined.core._preempt import DummyPreemptContext, PreemptContext, PreemptMode
from determined.core._profiler import DummyProfilerContext, ProfilerContext
from determined.core._context import Context, _dummy_init, init

__all__ = [
    "CheckpointContext",
    "Context",
    "DistributedContext",
    "DownloadMode",
    "DummyCheckpointContext",
    "DummyDistributedContext",
    "DummyExperimentalCoreContext",
    "DummyPreemptContext",
    "DummyProfilerContext",
    "DummySearcherContext",
    "DummyTrainContext",
    "EarlyExitReason",
    "ExperimentalCoreContext",
    "PreemptContext",
    "PreemptMode",
    "ProfilerContext",
    "SearcherContext",
    "SearcherMode",
    "SearcherOperation",
    "TensorboardMode",
    "TrainContext",
    "Unit",
    "_dummy_init",
    "init",
]
