"""Trials: their facts, checkpoints, logs and metrics."""

import enum
import warnings
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from determined.common import api
from determined.common.experimental import _util, checkpoint, metrics
from determined.common.experimental._util import OrderBy


class LogLevel(enum.Enum):
    TRACE = "LOG_LEVEL_TRACE"
    DEBUG = "LOG_LEVEL_DEBUG"
    INFO = "LOG_LEVEL_INFO"
    WARNING = "LOG_LEVEL_WARNING"
    ERROR = "LOG_LEVEL_ERROR"
    CRITICAL = "LOG_LEVEL_CRITICAL"


_LEVEL_ORDER = list(LogLevel)


class TrialState(enum.Enum):
    UNSPECIFIED = "STATE_UNSPECIFIED"
    ACTIVE = "STATE_ACTIVE"
    PAUSED = "STATE_PAUSED"
    STOPPING_CANCELED = "STATE_STOPPING_CANCELED"
    STOPPING_KILLED = "STATE_STOPPING_KILLED"
    STOPPING_COMPLETED = "STATE_STOPPING_COMPLETED"
    STOPPING_ERROR = "STATE_STOPPING_ERROR"
    CANCELED = "STATE_CANCELED"
    COMPLETED = "STATE_COMPLETED"
    ERROR = "STATE_ERROR"
    QUEUED = "STATE_QUEUED"
    PULLING = "STATE_PULLING"
    STARTING = "STATE_STARTING"
    RUNNING = "STATE_RUNNING"


class TrialSortBy(enum.Enum):
    """A trial attribute to sort an experiment's trials by."""

    ID = "SORT_BY_ID"
    START_TIME = "SORT_BY_START_TIME"
    END_TIME = "SORT_BY_END_TIME"
    STATE = "SORT_BY_STATE"
    BEST_VALIDATION_METRIC = "SORT_BY_BEST_VALIDATION_METRIC"
    LATEST_VALIDATION_METRIC = "SORT_BY_LATEST_VALIDATION_METRIC"
    BATCHES_PROCESSED = "SORT_BY_BATCHES_PROCESSED"
    DURATION = "SORT_BY_DURATION"
    RESTARTS = "SORT_BY_RESTARTS"
    CHECKPOINT_SIZE = "SORT_BY_CHECKPOINT_SIZE"


# Upstream kept a separate order enum for trials; it is the same as OrderBy.
TrialOrderBy = OrderBy


def _checkpoint_query(sort_by: Optional[Union[str, checkpoint.CheckpointSortBy]],
                      order_by: Optional[OrderBy]) -> Dict[str, Any]:
    """Query parameters for a checkpoint list; neither given: best searcher metric first."""
    if (sort_by is None) != (order_by is None):
        raise AssertionError("sort_by and order_by must be either both set, or neither")
    if sort_by is None:
        return {"sortByAttr": checkpoint.CheckpointSortBy.SEARCHER_METRIC}
    if isinstance(sort_by, checkpoint.CheckpointSortBy):
        return {"sortByAttr": sort_by, "orderBy": order_by}
    if isinstance(sort_by, str):
        return {"sortByMetric": sort_by, "orderBy": order_by}
    raise ValueError("sort_by must be a CheckpointSortBy or a validation metric's name (str)")


def _list_checkpoints(session: api.Session, path: str, query: Dict[str, Any],
                      max_results: Optional[int]) -> List[checkpoint.Checkpoint]:
    def page(offset: int) -> Dict[str, Any]:
        return session.get(path, params={**query, "offset": offset, "limit": max_results})

    out = [checkpoint.Checkpoint._from_json(c, session)
           for r in api.read_paginated(page, pages="single" if max_results else "all")
           for c in r.get("checkpoints") or []]
    return out[:max_results] if max_results else out


def _stream_trials_metrics(session: api.Session, trial_ids: List[int],
                           group: str) -> Iterator[metrics.TrialMetrics]:
    params = {"trialIds": list(trial_ids), "group": group}
    for result in session.stream("/api/v1/trials/metrics/trial_metrics", params=params):
        for m in (result or {}).get("metrics") or []:
            yield metrics.TrialMetrics._from_json(m, group)


def _stream_training_metrics(session: api.Session,
                             trial_ids: List[int]) -> Iterator[metrics.TrainingMetrics]:
    for result in session.stream("/api/v1/trials/metrics/training_metrics",
                                 params={"trialIds": list(trial_ids)}):
        for m in (result or {}).get("metrics") or []:
            yield metrics.TrainingMetrics._from_json(m, "training")  # type: ignore


def _stream_validation_metrics(session: api.Session,
                               trial_ids: List[int]) -> Iterator[metrics.ValidationMetrics]:
    for result in session.stream("/api/v1/trials/metrics/validation_metrics",
                                 params={"trialIds": list(trial_ids)}):
        for m in (result or {}).get("metrics") or []:
            yield metrics.ValidationMetrics._from_json(m, "validation")  # type: ignore


class Trial:
    """
    A trial of an experiment, usually from ``client.get_trial(id)`` or
    ``Experiment.list_trials()``.

    Attributes:
        id: the trial's ID.
        experiment_id: its experiment's ID.
        hparams: (Mutable) its hyperparameter values.
        state: (Mutable) a ``TrialState``.
        summary_metrics: (Mutable) aggregates of each reported metric, by group
            (``{"avg_metrics": {"loss": {"count", "last", "max", "min", "sum", "type"}}, ...}``).
        restarts, total_batches_processed, start_time, end_time, task_id, best_validation,
        latest_validation, searcher_metric_value: (Mutable) as the master reports them.

    Attributes are cached; ``reload()`` refreshes them.
    """

    def __init__(self, trial_id: int, session: api.Session) -> None:
        self.id = trial_id
        self._session = session
        self.experiment_id: Optional[int] = None
        self.hparams: Optional[Dict[str, Any]] = None
        self.summary_metrics: Optional[Dict[str, Any]] = None
        self.state: Optional[TrialState] = None
        self.restarts: Optional[int] = None
        self.total_batches_processed: Optional[int] = None
        self.start_time: Any = None
        self.end_time: Any = None
        self.task_id: Optional[str] = None
        self.best_validation: Optional[Dict[str, Any]] = None
        self.latest_validation: Optional[Dict[str, Any]] = None
        self.searcher_metric_value: Optional[float] = None

    def __repr__(self) -> str:
        return f"Trial(id={self.id})"

    def _hydrate(self, t: Dict[str, Any]) -> None:
        self.experiment_id = _util.to_int(t.get("experimentId"))
        self.hparams = t.get("hparams")
        self.summary_metrics = t.get("summaryMetrics")
        self.state = TrialState(t.get("state") or "STATE_UNSPECIFIED")
        self.restarts = _util.to_int(t.get("restarts"))
        self.total_batches_processed = _util.to_int(t.get("totalBatchesProcessed"))
        self.start_time = _util.parse_timestamp(t.get("startTime"))
        self.end_time = _util.parse_timestamp(t.get("endTime"))
        self.task_id = t.get("taskId")
        self.best_validation = t.get("bestValidation")
        self.latest_validation = t.get("latestValidation")
        self.searcher_metric_value = t.get("searcherMetricValue")

    @classmethod
    def _from_json(cls, t: Dict[str, Any], session: api.Session) -> "Trial":
        trial = cls(int(t["id"]), session)
        trial._hydrate(t)
        return trial

    def reload(self) -> None:
        """Refreshes the cached attributes from the master."""
        self._hydrate(self._session.get(f"/api/v1/trials/{self.id}")["trial"])

    def kill(self) -> None:
        self._session.post(f"/api/v1/trials/{self.id}/kill")

    # --- logs ---

    def logs(
        self,
        follow: bool = False,
        *,
        head: Optional[int] = None,
        tail: Optional[int] = None,
        container_ids: Optional[List[str]] = None,
        rank_ids: Optional[List[int]] = None,
        stdtypes: Optional[List[str]] = None,
        min_level: Optional[LogLevel] = None,
    ) -> Iterable[str]:
        """
        Yields the trial's log lines (each as the master stored it, newline included).

        Arguments:
            follow: keep yielding new lines until the trial ends. Not with ``head``.
            head: only the first ``head`` lines.
            tail: only the last ``tail`` lines (then the new ones, with ``follow``).
            container_ids, rank_ids, stdtypes: only lines from these containers, ranks or
                streams (``"stdout"``, ``"stderr"``).
            min_level: only lines of this ``LogLevel`` or a more severe one.
        """
        if head is not None and head < 0:
            raise ValueError(f"head must be non-negative, got {head}")
        if tail is not None and tail < 0:
            raise ValueError(f"tail must be non-negative, got {tail}")
        if head is not None and (tail is not None or follow):
            raise ValueError("head is mutually exclusive with tail and follow")
        params: Dict[str, Any] = {
            "containerIds": container_ids,
            "rankIds": rank_ids,
            "stdtypes": stdtypes,
            "levels": _LEVEL_ORDER[_LEVEL_ORDER.index(min_level):] if min_level else None,
        }
        path = f"/api/v1/trials/{self.id}/logs"
        return self._logs(path, params, follow, head, tail)

    def _logs(self, path: str, params: Dict[str, Any], follow: bool, head: Optional[int],
              tail: Optional[int]) -> Iterator[str]:
        if head is not None:
            if head == 0:
                return
            for entry in self._session.stream(path, {**params, "limit": head,
                                                     "orderBy": OrderBy.ASC}):
                yield entry.get("message", "")
            return
        last_id = None
        if tail is not None:
            entries = list(self._session.stream(path, {**params, "limit": tail,
                                                       "orderBy": OrderBy.DESC})) if tail else []
            entries.reverse()
            for entry in entries:
                yield entry.get("message", "")
            if not follow:
                return
            last_id = int(entries[-1]["id"]) if entries else None
        for entry in self._session.stream(path, {**params, "follow": follow}):
            if last_id is not None and int(entry.get("id") or 0) <= last_id:
                continue  # already yielded from the tail
            yield entry.get("message", "")

    # --- checkpoints ---

    def list_checkpoints(
        self,
        sort_by: Optional[Union[str, checkpoint.CheckpointSortBy]] = None,
        order_by: Optional[OrderBy] = None,
        max_results: Optional[int] = None,
    ) -> List[checkpoint.Checkpoint]:
        """
        The trial's checkpoints. ``sort_by`` is a ``CheckpointSortBy`` or a validation metric's
        name, given together with ``order_by``; with neither, the best searcher metric comes
        first. ``max_results`` caps how many are returned.
        """
        return _list_checkpoints(self._session, f"/api/v1/trials/{self.id}/checkpoints",
                                 _checkpoint_query(sort_by, order_by), max_results)

    def top_checkpoint(self, sort_by: Optional[str] = None,
                       smaller_is_better: Optional[bool] = None) -> checkpoint.Checkpoint:
        """
        Deprecated (use ``list_checkpoints``): the completed checkpoint with the best validation
        of ``sort_by`` (default: the searcher metric and its ``smaller_is_better``).
        """
        warnings.warn("Trial.top_checkpoint() is deprecated; use Trial.list_checkpoints()",
                      FutureWarning, stacklevel=2)
        return self._select(True, False, None, sort_by, smaller_is_better)

    def select_checkpoint(self, latest: bool = False, best: bool = False,
                          uuid: Optional[str] = None, sort_by: Optional[str] = None,
                          smaller_is_better: Optional[bool] = None) -> checkpoint.Checkpoint:
        """
        Deprecated (use ``list_checkpoints``): the latest, the best, or the named checkpoint
        (exactly one of ``latest``, ``best``, ``uuid``).
        """
        warnings.warn("Trial.select_checkpoint() is deprecated; use Trial.list_checkpoints()",
                      FutureWarning, stacklevel=2)
        return self._select(best, latest, uuid, sort_by, smaller_is_better)

    def _select(self, best: bool, latest: bool, uuid: Optional[str], sort_by: Optional[str],
                smaller_is_better: Optional[bool]) -> checkpoint.Checkpoint:
        if sum([int(latest), int(best), int(uuid is not None)]) != 1:
            raise AssertionError("Exactly one of latest, best, or uuid must be set")
        if sort_by is not None and not best:
            raise AssertionError("sort_by and smaller_is_better can only be used with best")
        if uuid is not None:
            resp = self._session.get(f"/api/v1/checkpoints/{uuid}")
            return checkpoint.Checkpoint._from_json(resp["checkpoint"], self._session)
        query: Dict[str, Any] = {"states": [checkpoint.CheckpointState.COMPLETED]}
        if latest:
            query.update(_checkpoint_query(checkpoint.CheckpointSortBy.BATCH_NUMBER, OrderBy.DESC))
        elif sort_by is not None:
            order = OrderBy.ASC if (smaller_is_better is None or smaller_is_better) else OrderBy.DESC
            query.update(_checkpoint_query(sort_by, order))
        else:
            query.update(_checkpoint_query(None, None))
        found = _list_checkpoints(self._session, f"/api/v1/trials/{self.id}/checkpoints", query,
                                  None)
        if best:
            metric = sort_by
            found = [c for c in found if metric is None or metric in
                     ((c.training.validation_metrics if c.training else {}).get("avgMetrics")
                      or {})]
        if not found:
            raise ValueError(f"No checkpoints found for criteria in trial {self.id}")
        return found[0]

    # --- metrics ---

    def iter_metrics(self, group: str) -> Iterator[metrics.TrialMetrics]:
        """
        Yields the trial's metric reports of ``group`` (``"training"``, ``"validation"``, or
        any group it reported), oldest first.
        """
        return _stream_trials_metrics(self._session, [self.id], group)

    def stream_metrics(self, group: str) -> Iterator[metrics.TrialMetrics]:
        """Deprecated name of ``iter_metrics``."""
        warnings.warn("Trial.stream_metrics() is deprecated; use Trial.iter_metrics()",
                      FutureWarning, stacklevel=2)
        return self.iter_metrics(group)

    def stream_training_metrics(self) -> Iterator[metrics.TrainingMetrics]:
        """Deprecated: ``iter_metrics("training")``."""
        warnings.warn("Trial.stream_training_metrics() is deprecated; use "
                      "Trial.iter_metrics('training')", FutureWarning, stacklevel=2)
        return _stream_training_metrics(self._session, [self.id])

    def stream_validation_metrics(self) -> Iterator[metrics.ValidationMetrics]:
        """Deprecated: ``iter_metrics("validation")``."""
        warnings.warn("Trial.stream_validation_metrics() is deprecated; use "
                      "Trial.iter_metrics('validation')", FutureWarning, stacklevel=2)
        return _stream_validation_metrics(self._session, [self.id])


# Upstream's old name.
TrialReference = Trial
