"""Metric reports of trials, as the SDK yields them."""

import dataclasses
import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional

from determined.common.experimental import _util

if TYPE_CHECKING:
    from determined.common.api import Session


@dataclasses.dataclass
class TrialMetrics:
    """
    One metric report of a trial.

    Attributes:
        trial_id: the trial that reported it.
        trial_run_id: the trial's run (a restart starts a new run).
        total_batches: the ``steps_completed`` it was reported at.
        end_time: when it was reported.
        metrics: the reported metrics, ``{name: value}``.
        group: the metric group (``"training"``, ``"validation"``, or any other reported group).
        batch_metrics: per-batch metrics, when the report had them.
    """

    trial_id: int
    trial_run_id: int
    total_batches: int
    end_time: Optional[datetime.datetime]
    metrics: Dict[str, Any]
    group: str
    batch_metrics: Optional[List[Dict[str, Any]]] = None

    @property
    def steps_completed(self) -> int:
        """Deprecated name of ``total_batches``."""
        return self.total_batches

    @classmethod
    def _from_json(cls, report: Dict[str, Any], group: str) -> "TrialMetrics":
        # The master nests the values as upstream's does: under "validation_metrics" for the
        # validation group, under "avg_metrics" (beside "batch_metrics") for every other.
        nested = report.get("metrics") or {}
        group = str(report.get("group") or group)
        key = "validation_metrics" if group == "validation" else "avg_metrics"
        metrics = nested.get(key) or {}
        batch_metrics = nested.get("batch_metrics")
        return cls(
            trial_id=int(report.get("trialId") or 0),
            trial_run_id=int(report.get("trialRunId") or 0),
            total_batches=int(report.get("totalBatches") or 0),
            end_time=_util.parse_timestamp(report.get("endTime")),
            metrics=dict(metrics),
            group=group,
            batch_metrics=batch_metrics,
        )


class TrainingMetrics(TrialMetrics):
    """A training metric report (deprecated: ``TrialMetrics`` with group ``"training"``)."""


class ValidationMetrics(TrialMetrics):
    """A validation metric report (deprecated: ``TrialMetrics`` with group ``"validation"``)."""


def _source_trial_metrics(session: "Session", path: str, group: Optional[str]) -> Iterator[TrialMetrics]:
    """The metrics of the inference trials that used a checkpoint or model version (``path``): of
    ``group``, or of every group when None."""
    resp = session.get(
        path, params={"trialSourceInfoType": "TRIAL_SOURCE_INFO_TYPE_INFERENCE", "metricGroup": group}
    )
    for report in resp.get("metrics") or []:
        yield TrialMetrics._from_json(report, group or "")
