"""The Python SDK's objects (upstream's ``determined.common.experimental``); users import them
from ``determined.experimental`` or ``determined.experimental.client``."""

from determined.common.experimental._util import OrderBy
from determined.common.experimental.checkpoint import (
    Checkpoint,
    CheckpointSortBy,
    CheckpointState,
    CheckpointTrainingMetadata,
    DownloadMode,
)
from determined.common.experimental.determined import Determined
from determined.common.experimental.experiment import (
    Experiment,
    ExperimentOrderBy,
    ExperimentReference,
    ExperimentSortBy,
    ExperimentState,
)
from determined.common.experimental.model import Model, ModelOrderBy, ModelSortBy, ModelVersion
from determined.common.experimental.metrics import TrainingMetrics, TrialMetrics, ValidationMetrics
from determined.common.experimental.project import Project
from determined.common.experimental.trial import (
    LogLevel,
    Trial,
    TrialOrderBy,
    TrialReference,
    TrialSortBy,
    TrialState,
)
from determined.common.experimental.user import User
from determined.common.experimental.workspace import Workspace

__all__ = [
    "Checkpoint", "CheckpointSortBy", "CheckpointState", "CheckpointTrainingMetadata",
    "Determined", "DownloadMode", "Experiment", "ExperimentOrderBy", "ExperimentReference",
    "ExperimentSortBy", "ExperimentState", "LogLevel", "Model", "ModelOrderBy", "ModelSortBy",
    "ModelVersion", "OrderBy", "Project", "TrainingMetrics", "Trial",
    "TrialMetrics", "TrialOrderBy", "TrialReference", "TrialSortBy", "TrialState", "User",
    "ValidationMetrics", "Workspace",
]
