"""Reducing metrics over batches and workers: the built-in ``Reducer`` s and custom
``MetricReducer`` s registered with ``context.wrap_reducer()``."""

import abc
import enum
import itertools
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np


class Reducer(enum.Enum):
    """
    How a validation metric returned by ``evaluate_batch()`` is reduced over all batches of all
    workers: ``AVG`` (the mean over batches, the default), ``SUM``, ``MAX`` or ``MIN``.
    """

    AVG = 1
    SUM = 2
    MAX = 3
    MIN = 4


class MetricReducer(metaclass=abc.ABCMeta):
    """
    A custom, distributed-aware metric (see ``context.wrap_reducer()``), computed in three steps:

    1. each worker collects values its own way (for example an ``update()`` method you call from
       ``train_batch`` or ``evaluate_batch``);
    2. :meth:`per_slot_reduce` turns one worker's values into a small picklable summary;
    3. :meth:`cross_slot_reduce` combines every worker's summary into the metric.

    :meth:`reset` is called before every period of training and every validation.
    """

    @abc.abstractmethod
    def reset(self) -> None:
        """Forgets the values collected so far."""

    @abc.abstractmethod
    def per_slot_reduce(self) -> Any:
        """This worker's summary (picklable); called on every worker, even with one worker."""

    @abc.abstractmethod
    def cross_slot_reduce(self, per_slot_metrics: List[Any]) -> Any:
        """
        The metric from the list of every worker's :meth:`per_slot_reduce` value, in rank order:
        a value when the reducer was wrapped with a ``name``, else a dict of name to value.
        """


class _SimpleReducer(MetricReducer):
    """A reducer function as a MetricReducer: ``update(value)`` collects values; the function gets
    every worker's values in one flat list, interleaved by rank to follow the sharded data order."""

    def __init__(self, fn: Callable[[List[Any]], Any]) -> None:
        self.fn = fn
        self.values: List[Any] = []

    def reset(self) -> None:
        self.values = []

    def update(self, value: Any) -> None:
        """Adds one value (typically once per batch)."""
        self.values.append(value)

    def per_slot_reduce(self) -> Any:
        return self.values

    def cross_slot_reduce(self, per_slot_metrics: List[Any]) -> Any:
        missing = object()
        interleaved = itertools.zip_longest(*per_slot_metrics, fillvalue=missing)
        return self.fn([v for row in interleaved for v in row if v is not missing])


class _WrappedReducer:
    """A registered reducer with its name and workloads; errors name the failing reducer."""

    def __init__(
        self, reducer: MetricReducer, name: Optional[str], for_training: bool, for_validation: bool
    ) -> None:
        self.reducer = reducer
        self.name = name
        self.for_training = for_training
        self.for_validation = for_validation

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as e:
            raise ValueError(
                f"reducer {type(self.reducer).__name__} (name={self.name!r}) failed in {what}: {e}"
            ) from e

    def reset(self) -> None:
        self._call("reset()", self.reducer.reset)

    def per_slot_reduce(self) -> Any:
        return self._call("per_slot_reduce()", self.reducer.per_slot_reduce)

    def cross_slot_reduce(self, per_slot: List[Any]) -> Any:
        return self._call("cross_slot_reduce()", lambda: self.reducer.cross_slot_reduce(per_slot))


def _single_worker_allgather(value: Any) -> List[Any]:
    return [value]


class _ReducerRegistry:
    """The custom reducers of a trial context (the ``wrap_reducer`` part of PyTorchTrialContext)."""

    def __init__(self, allgather: Callable[[Any], List[Any]] = _single_worker_allgather) -> None:
        self._wrapped_reducers: List[_WrappedReducer] = []
        self._allgather = allgather

    def wrap_reducer(
        self,
        reducer: Union[Callable[[List[Any]], Any], MetricReducer],
        name: Optional[str] = None,
        for_training: bool = True,
        for_validation: bool = True,
    ) -> MetricReducer:
        """
        Registers a custom metric that is computed correctly across all workers (a ROC AUC, say,
        cannot be averaged from per-worker values).

        ``reducer`` is either a function, which gets a flat list of every value passed to
        ``update()`` on the returned object (on every worker), or a :class:`MetricReducer`, returned
        as it is. The metric is added to the training metrics (``for_training``) and validation
        metrics (``for_validation``) under ``name``; with ``name=None`` the reducer returns a dict of
        name to value, merged into the metrics.

        .. code:: python

           self.auc = context.wrap_reducer(
               lambda pairs: roc_auc_score(*zip(*pairs)), name="roc_auc", for_training=False
           )
           ...
           def evaluate_batch(self, batch):
               self.auc.update((label, score))
        """
        if not for_training and not for_validation:
            raise ValueError("wrap_reducer(): for_training and for_validation cannot both be False")
        if isinstance(reducer, MetricReducer):
            wrapped: MetricReducer = reducer
        elif callable(reducer):
            wrapped = _SimpleReducer(reducer)
        else:
            raise TypeError(
                f"wrap_reducer() takes a function or a MetricReducer, got {type(reducer).__name__}"
            )
        taken = {w.name for w in self._wrapped_reducers}
        if name is not None and name in taken:
            raise ValueError(f"wrap_reducer(): a reducer named {name!r} is already registered")
        self._wrapped_reducers.append(_WrappedReducer(wrapped, name, for_training, for_validation))
        return wrapped

    def reset_reducers(self) -> None:
        for wrapped in self._wrapped_reducers:
            wrapped.reset()

    def reduce_metrics(self, for_training: bool) -> Dict[str, Any]:
        """
        The custom metrics for a training period (``for_training``) or a validation. Collective:
        with several workers, every worker must call it.
        """
        chosen = [
            w
            for w in self._wrapped_reducers
            if (w.for_training if for_training else w.for_validation)
        ]
        if not chosen:
            return {}
        per_slot = [w.per_slot_reduce() for w in chosen]
        everyone = self._allgather(per_slot)
        out: Dict[str, Any] = {}
        for i, wrapped in enumerate(chosen):
            value = wrapped.cross_slot_reduce([worker[i] for worker in everyone])
            if wrapped.name is None:
                if not isinstance(value, dict):
                    raise ValueError(
                        f"reducer {type(wrapped.reducer).__name__} was wrapped without a name, so "
                        f"cross_slot_reduce() must return a dict of metrics, got {type(value).__name__}"
                    )
                out.update(value)
            else:
                if isinstance(value, dict):
                    raise ValueError(
                        f"reducer {wrapped.name!r} returned a dict; wrap it with name=None to report "
                        "several metrics"
                    )
                out[wrapped.name] = value
        return out


def _reduce(reducer: Reducer, values: np.ndarray, weights: Optional[Sequence[float]] = None) -> Any:
    if reducer is Reducer.AVG:
        return np.average(values, axis=0, weights=weights)
    if reducer is Reducer.SUM:
        return np.sum(values, axis=0)
    if reducer is Reducer.MAX:
        return np.max(values, axis=0)
    if reducer is Reducer.MIN:
        return np.min(values, axis=0)
    raise ValueError(f"unknown reducer {reducer!r}")


def _reducer_for(reducers: Union[Reducer, Mapping[str, Reducer]], key: str) -> Reducer:
    if isinstance(reducers, Reducer):
        return reducers
    chosen = reducers.get(key, Reducer.AVG)
    if not isinstance(chosen, Reducer):
        raise TypeError(f"evaluation_reducer() for {key!r} must be a pytorch.Reducer, got {chosen!r}")
    return chosen


def _local_reduce(
    batch_metrics: List[Dict[str, Any]], reducers: Union[Reducer, Mapping[str, Reducer]]
) -> Dict[str, Tuple[Any, int]]:
    """This worker's batches reduced per metric: name -> (value, number of batches)."""
    out: Dict[str, Tuple[Any, int]] = {}
    if not batch_metrics:
        return out
    for key in batch_metrics[0]:
        try:
            values = np.stack([np.asarray(m[key], dtype=np.float64) for m in batch_metrics])
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"metric {key!r} must be a number, an array or a tensor in every batch to be "
                f"reduced ({e})"
            ) from e
        out[key] = (_reduce(_reducer_for(reducers, key), values), len(values))
    return out


def _combine_workers(
    per_worker: List[Dict[str, Tuple[Any, int]]], reducers: Union[Reducer, Mapping[str, Reducer]]
) -> Dict[str, Any]:
    """Combines every worker's local reductions; AVG is weighted by each worker's batch count."""
    keys: List[str] = []
    for worker in per_worker:
        keys += [k for k in worker if k not in keys]
    out: Dict[str, Any] = {}
    for key in keys:
        parts = [worker[key] for worker in per_worker if key in worker and worker[key][1] > 0]
        values = np.stack([np.asarray(v, dtype=np.float64) for v, _ in parts])
        weights = [n for _, n in parts]
        out[key] = _to_python(_reduce(_reducer_for(reducers, key), values, weights))
    return out


def _to_python(value: Any) -> Any:
    """Scalars as Python numbers, arrays left as numpy arrays."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if isinstance(value, np.generic):
        return value.item()
    return value
