"""Training lengths and periods: ``Batch`` and ``Epoch``."""

import collections.abc
import sys
from typing import Any, Container, Mapping, Optional, Union

from determined import core


class TrainUnit:
    """
    A length or a period of training, in :class:`Batch` es or :class:`Epoch` s.

    As a period, an int is "every ``value`` units" (``Batch(100)``: after batches 100, 200, ...; a
    value < 1 means after every unit), and a container is a schedule (``Batch([5, 30, 45])``: after
    batches 5, 30 and 45). As a length (``max_length``), the value must be an int.

    Epoch boundaries are counted in batches: an epoch ends after its last batch, and an epoch is
    ``len()`` of the (chief's) training data loader.
    """

    def __init__(self, value: Union[int, Container[int]]) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, collections.abc.Container)):
            raise TypeError(
                f"{type(self).__name__}() takes an int or a container of ints, got {value!r}"
            )
        self.value = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self.value == other.value

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self.value)))

    def should_stop(self, step_num: int) -> bool:
        """Whether a period ends after unit number ``step_num`` (counting from 1)."""
        if isinstance(self.value, int):
            if self.value < 1:
                return True
            return step_num > 0 and step_num % self.value == 0
        return step_num in self.value

    def _length(self) -> int:
        if not isinstance(self.value, int):
            raise TypeError(f"a training length must be {type(self).__name__}(int), got {self!r}")
        return self.value

    @staticmethod
    def _from_searcher_unit(
        length: int, unit: Optional[core.Unit], global_batch_size: Optional[int] = None
    ) -> "TrainUnit":
        """A searcher length (``searcher.max_length``) in the Trainer's units."""
        if unit == core.Unit.EPOCHS:
            return Epoch(length)
        if unit == core.Unit.BATCHES:
            return Batch(length)
        if unit == core.Unit.RECORDS:
            if not global_batch_size:
                raise ValueError(
                    "searcher.max_length is in records, which needs the global_batch_size "
                    "hyperparameter to be converted into batches"
                )
            return Batch._from_records(length, global_batch_size)
        raise ValueError(
            f"searcher.max_length has no unit ({unit!r}); write it as {{batches: N}}, "
            "{epochs: N} or {records: N}"
        )

    @staticmethod
    def _from_values(
        batches: Optional[int] = None,
        records: Optional[int] = None,
        epochs: Optional[int] = None,
        global_batch_size: Optional[int] = None,
    ) -> "TrainUnit":
        """A period from a config length (``{batches: N}``...); N < 1 means never."""
        given = [v for v in (batches, records, epochs) if v is not None]
        if len(given) != 1:
            raise ValueError(
                f"a length needs exactly one of batches, records or epochs; got batches={batches} "
                f"records={records} epochs={epochs}"
            )
        never = sys.maxsize
        if batches is not None:
            return Batch(batches if batches >= 1 else never)
        if epochs is not None:
            return Epoch(epochs if epochs >= 1 else never)
        assert records is not None
        if records < 1:
            return Batch(never)
        if not global_batch_size:
            raise ValueError(
                "a length in records needs the global_batch_size hyperparameter to be converted "
                "into batches"
            )
        return Batch._from_records(records, global_batch_size)

    @staticmethod
    def _from_config(
        length: Any, global_batch_size: Optional[int], what: str
    ) -> Optional["TrainUnit"]:
        """A config length (a dict with one of batches/records/epochs), or None when unset."""
        if length is None:
            return None
        if not isinstance(length, Mapping) or len(length) != 1:
            raise ValueError(
                f"{what} must be {{batches: N}}, {{records: N}} or {{epochs: N}}, got {length!r}"
            )
        unit, value = next(iter(length.items()))
        if unit not in ("batches", "records", "epochs") or not isinstance(value, int):
            raise ValueError(
                f"{what} must be {{batches: N}}, {{records: N}} or {{epochs: N}}, got {length!r}"
            )
        return TrainUnit._from_values(**{unit: value}, global_batch_size=global_batch_size)


class Batch(TrainUnit):
    """A number of batches (global batches: one step of all workers)."""

    @staticmethod
    def _from_records(records: int, global_batch_size: int) -> "Batch":
        return Batch(max(records // global_batch_size, 1))


class Epoch(TrainUnit):
    """A number of epochs (passes over the training data loader)."""
