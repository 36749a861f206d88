"""Experiments: their facts, lifecycle, trials and checkpoints."""

import enum
import sys
import time
import warnings
from typing import Any, Dict, Iterator, List, Optional, Set, Union
from urllib import parse

from determined.common import api
from determined.common.experimental import _util, checkpoint, trial
from determined.common.experimental._util import OrderBy


class ExperimentState(enum.Enum):
    UNSPECIFIED = "STATE_UNSPECIFIED"
    ACTIVE = "STATE_ACTIVE"
    PAUSED = "STATE_PAUSED"
    STOPPING_COMPLETED = "STATE_STOPPING_COMPLETED"
    STOPPING_CANCELED = "STATE_STOPPING_CANCELED"
    STOPPING_ERROR = "STATE_STOPPING_ERROR"
    COMPLETED = "STATE_COMPLETED"
    CANCELED = "STATE_CANCELED"
    ERROR = "STATE_ERROR"
    DELETED = "STATE_DELETED"
    DELETING = "STATE_DELETING"
    DELETE_FAILED = "STATE_DELETE_FAILED"
    STOPPING_KILLED = "STATE_STOPPING_KILLED"
    QUEUED = "STATE_QUEUED"
    PULLING = "STATE_PULLING"
    STARTING = "STATE_STARTING"
    RUNNING = "STATE_RUNNING"


# The states wait() ends on.
_TERMINAL = {ExperimentState.COMPLETED, ExperimentState.CANCELED, ExperimentState.DELETED,
             ExperimentState.ERROR}


class ExperimentSortBy(enum.Enum):
    ID = "SORT_BY_ID"
    DESCRIPTION = "SORT_BY_DESCRIPTION"
    START_TIME = "SORT_BY_START_TIME"
    END_TIME = "SORT_BY_END_TIME"
    STATE = "SORT_BY_STATE"
    NUM_TRIALS = "SORT_BY_NUM_TRIALS"
    PROGRESS = "SORT_BY_PROGRESS"
    USER = "SORT_BY_USER"
    NAME = "SORT_BY_NAME"
    FORKED_FROM = "SORT_BY_FORKED_FROM"
    RESOURCE_POOL = "SORT_BY_RESOURCE_POOL"
    PROJECT_ID = "SORT_BY_PROJECT_ID"
    CHECKPOINT_SIZE = "SORT_BY_CHECKPOINT_SIZE"
    CHECKPOINT_COUNT = "SORT_BY_CHECKPOINT_COUNT"
    SEARCHER_METRIC_VAL = "SORT_BY_SEARCHER_METRIC_VAL"


# Upstream kept a separate order enum for experiments; it is the same as OrderBy.
ExperimentOrderBy = OrderBy


class Experiment:
    """
    An experiment, usually from ``client.create_experiment()`` or ``client.get_experiment()``.

    Attributes:
        id: the experiment's ID.
        config: (Mutable) the experiment's config, defaults filled in.
        state: (Mutable) an ``ExperimentState``.
        archived, name, description, notes, labels (a set), progress (0 to 1): (Mutable).
        project_id, workspace_id, user_id, username, start_time, end_time, num_trials,
        searcher_type, searcher_metric, resource_pool, forked_from, job_id: (Mutable) as the
        master reports them.

    Attributes are cached; ``reload()`` refreshes them (``wait()`` does too).
    """

    def __init__(self, experiment_id: int, session: api.Session) -> None:
        self._id = experiment_id
        self._session = session
        self.config: Optional[Dict[str, Any]] = None
        self.state: Optional[ExperimentState] = None
        self.labels: Optional[Set[str]] = None
        self.archived: Optional[bool] = None
        self.name: Optional[str] = None
        self.progress: Optional[float] = None
        self.description: Optional[str] = None
        self.notes: Optional[str] = None
        self.project_id: Optional[int] = None
        self.workspace_id: Optional[int] = None
        self.user_id: Optional[int] = None
        self.username: Optional[str] = None
        self.start_time: Any = None
        self.end_time: Any = None
        self.num_trials: Optional[int] = None
        self.searcher_type: Optional[str] = None
        self.searcher_metric: Optional[str] = None
        self.resource_pool: Optional[str] = None
        self.forked_from: Optional[int] = None
        self.job_id: Optional[str] = None

    @property
    def id(self) -> int:
        return self._id

    def __repr__(self) -> str:
        return f"Experiment(id={self.id})"

    def _hydrate(self, e: Dict[str, Any], config: Optional[Dict[str, Any]] = None) -> None:
        self.config = config or e.get("config") or self.config
        self.state = ExperimentState(e.get("state") or "STATE_UNSPECIFIED")
        self.archived = e.get("archived")
        self.name = e.get("name")
        self.progress = e.get("progress")
        self.description = e.get("description")
        self.notes = e.get("notes")
        self.labels = set(e.get("labels") or []) or None
        self.project_id = _util.to_int(e.get("projectId"))
        self.workspace_id = _util.to_int(e.get("workspaceId"))
        self.user_id = _util.to_int(e.get("userId"))
        self.username = e.get("username")
        self.start_time = _util.parse_timestamp(e.get("startTime"))
        self.end_time = _util.parse_timestamp(e.get("endTime"))
        self.num_trials = _util.to_int(e.get("numTrials"))
        self.searcher_type = e.get("searcherType")
        self.searcher_metric = e.get("searcherMetric")
        self.resource_pool = e.get("resourcePool")
        self.forked_from = _util.to_int(e.get("forkedFrom"))
        self.job_id = e.get("jobId")

    @classmethod
    def _from_json(cls, e: Dict[str, Any], session: api.Session,
                   config: Optional[Dict[str, Any]] = None) -> "Experiment":
        exp = cls(int(e["id"]), session)
        exp._hydrate(e, config)
        return exp

    def reload(self) -> None:
        """Refreshes the cached attributes from the master."""
        resp = self._session.get(f"/api/v1/experiments/{self._id}")
        self._hydrate(resp["experiment"], resp.get("config"))

    def get_config(self) -> Dict[str, Any]:
        """The experiment's config (defaults filled in), read from the master."""
        self.reload()
        return dict(self.config or {})

    # --- fields ---

    def _patch(self, **fields: Any) -> Dict[str, Any]:
        resp = self._session.patch(f"/api/v1/experiments/{self._id}",
                                   body={"id": self._id, **fields})
        return (resp or {}).get("experiment") or {}

    def set_name(self, name: str) -> None:
        """Renames the experiment."""
        self.name = self._patch(name=name).get("name", name)

    def set_description(self, description: str) -> None:
        """Sets (replaces) the experiment's description."""
        self.description = self._patch(description=description).get("description", description)

    def set_notes(self, notes: str) -> None:
        """Sets (replaces) the experiment's notes."""
        self.notes = self._patch(notes=notes).get("notes", notes)

    def set_labels(self, labels: Union[Set[str], List[str]]) -> None:
        """Replaces the experiment's labels with ``labels``."""
        got = self._patch(labels=sorted(labels))
        self.labels = set(got.get("labels", labels) or []) or None

    def add_label(self, label: str) -> None:
        """Adds a label (a no-op if the experiment has it)."""
        resp = self._session.put(f"/api/v1/experiments/{self._id}/labels/{parse.quote(label, safe='')}")
        self.labels = set((resp or {}).get("labels") or []) or None

    def remove_label(self, label: str) -> None:
        """Removes a label (a no-op if the experiment lacks it)."""
        resp = self._session.delete(
            f"/api/v1/experiments/{self._id}/labels/{parse.quote(label, safe='')}")
        self.labels = set((resp or {}).get("labels") or []) or None

    # --- lifecycle ---

    def activate(self) -> None:
        self._session.post(f"/api/v1/experiments/{self._id}/activate")

    def pause(self) -> None:
        self._session.post(f"/api/v1/experiments/{self._id}/pause")

    def cancel(self) -> None:
        self._session.post(f"/api/v1/experiments/{self._id}/cancel")

    def kill(self) -> None:
        self._session.post(f"/api/v1/experiments/{self._id}/kill")

    def archive(self) -> None:
        self._session.post(f"/api/v1/experiments/{self._id}/archive")
        self.archived = True

    def unarchive(self) -> None:
        self._session.post(f"/api/v1/experiments/{self._id}/unarchive")
        self.archived = False

    def delete(self) -> None:
        """Deletes the experiment, its trials and its checkpoints (asynchronously: the state
        goes through DELETING; a terminal experiment only)."""
        self._session.delete(f"/api/v1/experiments/{self._id}")

    def delete_tensorboard_files(self) -> None:
        """Deletes the experiment's TensorBoard files from its checkpoint storage (asynchronously)."""
        self._session.delete(f"/api/v1/experiments/{self._id}/tensorboard-files")

    def wait(self, interval: float = 5.0) -> ExperimentState:
        """
        Waits until the experiment is COMPLETED, CANCELED, ERROR or DELETED, checking every
        ``interval`` seconds, and returns that state. Raises ``ValueError`` if it is paused.
        """
        elapsed = 0.0
        next_note = 60.0
        while True:
            self.reload()
            if self.state in _TERMINAL:
                assert self.state is not None
                return self.state
            if self.state == ExperimentState.PAUSED:
                raise ValueError(
                    f"Experiment {self.id} is in paused state. Make sure the experiment is active.")
            time.sleep(interval)
            elapsed += interval
            if elapsed >= next_note:
                next_note += 60.0
                print(f"Waiting for Experiment {self.id} to complete. "
                      f"Elapsed {elapsed / 60:.1f} minutes", file=sys.stderr)

    # --- trials ---

    def list_trials(self, sort_by: trial.TrialSortBy = trial.TrialSortBy.ID,
                    order_by: OrderBy = OrderBy.ASCENDING,
                    limit: Optional[int] = None) -> Iterator[trial.Trial]:
        """
        Yields the experiment's trials, sorted by ``sort_by`` in ``order_by`` order; ``limit``
        is the page size asked of the master (default: everything at once).
        """
        def page(offset: int) -> Dict[str, Any]:
            return self._session.get(
                f"/api/v1/experiments/{self._id}/trials",
                params={"sortBy": sort_by, "orderBy": order_by, "offset": offset, "limit": limit})

        for r in api.read_paginated(page):
            for t in r.get("trials") or []:
                yield trial.Trial._from_json(t, self._session)

    def get_trials(self, sort_by: trial.TrialSortBy = trial.TrialSortBy.ID,
                   order_by: OrderBy = OrderBy.ASCENDING) -> List[trial.Trial]:
        """Deprecated: ``list(list_trials())``."""
        warnings.warn("Experiment.get_trials() is deprecated; use Experiment.list_trials()",
                      FutureWarning, stacklevel=2)
        return list(self.list_trials(sort_by, order_by))

    def await_first_trial(self, interval: float = 0.1) -> trial.Trial:
        """Waits until the experiment has a trial and returns the first one."""
        while True:
            got = self._session.get(f"/api/v1/experiments/{self._id}/trials",
                                    params={"sortBy": trial.TrialSortBy.START_TIME,
                                            "orderBy": OrderBy.ASC})
            if got.get("trials"):
                return trial.Trial._from_json(got["trials"][0], self._session)
            time.sleep(interval)

    # --- checkpoints ---

    def list_checkpoints(
        self,
        sort_by: Optional[Union[str, checkpoint.CheckpointSortBy]] = None,
        order_by: Optional[OrderBy] = None,
        max_results: Optional[int] = None,
    ) -> List[checkpoint.Checkpoint]:
        """
        The experiment's checkpoints. ``sort_by`` is a ``CheckpointSortBy`` or a validation
        metric's name, given together with ``order_by``; with neither, the best searcher metric
        comes first. ``max_results`` caps how many are returned.
        """
        return trial._list_checkpoints(self._session, f"/api/v1/experiments/{self._id}/checkpoints",
                                       trial._checkpoint_query(sort_by, order_by), max_results)

    def top_checkpoint(self, sort_by: Optional[str] = None,
                       smaller_is_better: Optional[bool] = None) -> checkpoint.Checkpoint:
        """
        Deprecated (use ``list_checkpoints``): the completed checkpoint with the best validation
        of ``sort_by`` (default: the searcher metric, ordered by the searcher's
        ``smaller_is_better``).
        """
        warnings.warn("Experiment.top_checkpoint() is deprecated; use "
                      "Experiment.list_checkpoints()", FutureWarning, stacklevel=2)
        found = self._top_n(1, sort_by, smaller_is_better)
        if not found:
            raise ValueError(f"No checkpoints found for experiment {self.id}")
        return found[0]

    def top_n_checkpoints(self, limit: int, sort_by: Optional[str] = None,
                          smaller_is_better: Optional[bool] = None) -> List[checkpoint.Checkpoint]:
        """
        Deprecated (use ``list_checkpoints``): the best completed checkpoint of each of the
        ``limit`` best trials, best first, by the validation of ``sort_by`` at the checkpoint's
        step (default: the searcher metric and its ``smaller_is_better``).
        """
        warnings.warn("Experiment.top_n_checkpoints() is deprecated; use "
                      "Experiment.list_checkpoints()", FutureWarning, stacklevel=2)
        return self._top_n(limit, sort_by, smaller_is_better)

    def _top_n(self, limit: int, sort_by: Optional[str],
               smaller_is_better: Optional[bool]) -> List[checkpoint.Checkpoint]:
        if sort_by is None:
            if self.config is None:
                self.reload()
            searcher = (self.config or {}).get("searcher") or {}
            sort_by = searcher.get("metric")
            if not isinstance(sort_by, str):
                raise ValueError("no searcher.metric in the experiment config; pass sort_by")
            if smaller_is_better is None:
                smaller_is_better = searcher.get("smaller_is_better", True)
        if smaller_is_better is None:
            smaller_is_better = True
        order = OrderBy.ASC if smaller_is_better else OrderBy.DESC
        query = trial._checkpoint_query(sort_by, order)
        query["states"] = [checkpoint.CheckpointState.COMPLETED]
        found = trial._list_checkpoints(
            self._session, f"/api/v1/experiments/{self._id}/checkpoints", query, None)

        def value(c: checkpoint.Checkpoint) -> Optional[float]:
            avg = (c.training.validation_metrics if c.training else {}).get("avgMetrics") or {}
            v = avg.get(sort_by)
            return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None

        # Best first whatever order the master used; checkpoints without the metric are left out.
        ranked = sorted((c for c in found if value(c) is not None),
                        key=lambda c: value(c), reverse=not smaller_is_better)  # type: ignore
        seen: Set[int] = set()
        out = []
        for c in ranked:
            tid = c.training.trial_id if c.training else -1
            if tid in seen:
                continue
            seen.add(tid)
            out.append(c)
        return out[:limit]


# Upstream's old name.
ExperimentReference = Experiment
