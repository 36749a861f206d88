"""Upstream's ``determined.experimental``: the Python SDK (``client``) and its objects."""

from determined.common.experimental import (
    Checkpoint,
    CheckpointSortBy,
    CheckpointState,
    Determined,
    DownloadMode,
    Experiment,
    ExperimentOrderBy,
    ExperimentReference,
    ExperimentSortBy,
    ExperimentState,
    OrderBy,
    TrainingMetrics,
    Trial,
    TrialMetrics,
    TrialOrderBy,
    TrialReference,
    TrialSortBy,
    TrialState,
    User,
    ValidationMetrics,
)
from determined.experimental import client

__all__ = [
    "Checkpoint", "CheckpointSortBy", "CheckpointState", "Determined", "DownloadMode",
    "Experiment", "ExperimentOrderBy", "ExperimentReference", "ExperimentSortBy",
    "ExperimentState", "OrderBy", "TrainingMetrics", "Trial", "TrialMetrics", "TrialOrderBy",
    "TrialReference", "TrialSortBy", "TrialState", "User", "ValidationMetrics", "client",
]
