import enum
import logging
import warnings
from typing import Any, Dict, Iterator, Optional

from determined import util
from determined.core._distributed import DistributedContext

logger = logging.getLogger("determined.core")


class Unit(enum.Enum):
    EPOCHS = "EPOCHS"
    RECORDS = "RECORDS"
    BATCHES = "BATCHES"


class SearcherMode(enum.Enum):
    """Deprecated in 0.38.0 (as upstream)."""

    WorkersAskChief = "WORKERS_ASK_CHIEF"
    ChiefOnly = "CHEIF_ONLY"


def _parse_searcher_max_length(experiment_config: Dict[str, Any]) -> Optional[int]:
    searcher = experiment_config.get("searcher") or {}
    max_length = searcher.get("max_length")
    if max_length is None:
        return None
    if isinstance(max_length, int):
        return max_length
    if isinstance(max_length, dict) and max_length:
        value = next(iter(max_length.values()))
        if isinstance(value, int):
            return value
    return None


def _parse_searcher_units(experiment_config: Dict[str, Any]) -> Optional[Unit]:
    searcher = experiment_config.get("searcher") or {}
    names = {"records": Unit.RECORDS, "epochs": Unit.EPOCHS, "batches": Unit.BATCHES}
    if "unit" in searcher:
        return names.get(searcher["unit"])
    length = searcher.get("max_length")
    if isinstance(length, dict) and len(length) == 1:
        return names.get(next(iter(length.keys())))
    return None


_DEPRECATION = (
    "SearcherContext.operations() was deprecated in Determined 0.38.0 and will be removed in a "
    "future version.  Instead, you should set your training length directly in your training code."
)


class SearcherOperation:
    """
    Deprecated in 0.38.0: one train-validate-report cycle of ``length`` units, fabricated from
    ``searcher.max_length`` (the master no longer sends operations).
    """

    def __init__(self, train: Any, length: int, is_chief: bool) -> None:
        self._train = train
        self._length = length
        self._is_chief = is_chief
        self._completed = False

    @property
    def length(self) -> int:
        return self._length

    def report_progress(self, length: float) -> None:
        if not self._is_chief:
            raise RuntimeError("you must only call op.report_progress() from the chief worker")
        if self._completed and length != self._length:
            raise RuntimeError("you must not call op.report_progress() after op.report_completed()")
        progress = min(1.0, max(0.0, length / self._length)) if self._length else 1.0
        self._train.report_progress(progress)

    def report_completed(self, searcher_metric: Any) -> None:
        if not self._is_chief:
            raise RuntimeError("you must only call op.report_completed() from the chief worker")
        if self._completed:
            raise RuntimeError("you may only call op.report_completed() once")
        self._completed = True
        metric = util.json_encode(searcher_metric)
        logger.info(f"SearcherOperation complete: searcher_metric={metric}")


class SearcherContext:
    """Deprecated in 0.38.0: yields one operation whose length is ``searcher.max_length``."""

    def __init__(
        self,
        train: Any,
        dist: DistributedContext,
        max_length: int,
        units: Optional[Unit] = None,
    ) -> None:
        self._train = train
        self._dist = dist
        self._length = max_length
        self._units = units

    def operations(
        self,
        searcher_mode: SearcherMode = SearcherMode.WorkersAskChief,
        auto_ack: bool = True,
    ) -> Iterator[SearcherOperation]:
        warnings.warn(_DEPRECATION, FutureWarning, stacklevel=2)
        yield from self._operations(searcher_mode)

    def _operations(
        self, searcher_mode: SearcherMode = SearcherMode.WorkersAskChief
    ) -> Iterator[SearcherOperation]:
        SearcherMode(searcher_mode)
        op = SearcherOperation(self._train, self._length, self._dist.rank == 0)
        yield op
        if not op._completed:
            raise RuntimeError("you must call op.report_completed() on each operation")

    def acknowledge_out_of_ops(self) -> None:
        pass

    def get_configured_units(self) -> Optional[Unit]:
        return self._units


class DummySearcherContext(SearcherContext):
    """Off-cluster: one operation of length 1 (as upstream)."""

    def __init__(self, dist: DistributedContext, length: int = 1) -> None:
        from determined.core._train import DummyTrainContext

        super().__init__(DummyTrainContext(), dist, length, None)
