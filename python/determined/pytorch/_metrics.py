"""Training metrics: from tensors to host values, averaged over batches and workers."""

import numbers
from typing import Any, Dict, List, Tuple

import numpy as np
import torch

from determined.pytorch._reducer import _to_python


def to_host(metrics: Dict[str, Any]) -> Dict[str, Any]:
    """Tensors become Python numbers (one element) or numpy arrays; other values are kept."""
    out = {}
    for name, value in metrics.items():
        if isinstance(value, torch.Tensor):
            # item() reads one element from any device, grad or not: no detach()/cpu() copies.
            value = value.item() if value.numel() == 1 else value.detach().cpu().numpy()
        elif isinstance(value, np.generic):
            value = value.item()
        out[name] = value
    return out


_PLAIN_NUMBERS = frozenset((int, float))  # exact types: bool is not among them


def _numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Number):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _mean(values: List[Any]) -> Any:
    """The mean of numbers or same-shaped arrays; otherwise the last value."""
    numeric = [v for v in values if v is not None]
    if numeric and set(map(type, numeric)) <= _PLAIN_NUMBERS:
        # Python floats and ints (the usual .item() values): one array built at once, the same
        # float64 values, so the same mean as stacking them one by one below.
        return _to_python(np.mean(np.array(numeric, dtype=np.float64), axis=0))
    if numeric and all(_numeric(v) for v in numeric):
        try:
            stacked = np.stack([np.asarray(v, dtype=np.float64) for v in numeric])
            return _to_python(np.mean(stacked, axis=0))
        except ValueError:
            pass  # arrays of different shapes
    return values[-1] if values else None


def _across_workers(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """One batch's metrics averaged over the workers' ``rows`` (index 0 is the chief's)."""
    keys: List[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    # Keep the chief's value last, so that non-numeric values are the chief's.
    ordered = rows[1:] + rows[:1]
    return {k: _mean([r[k] for r in ordered if k in r]) for k in keys}


def average_training_metrics(
    per_worker: List[List[Dict[str, Any]]]
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """
    ``per_worker[rank][i]`` is worker ``rank``'s metrics of batch ``i`` of a period. Returns (the
    average over batches, the per-batch metrics averaged over workers). Non-numeric values are
    not averaged: the chief's (last) value is kept.
    """
    if len(per_worker) == 1:
        batch_metrics = list(per_worker[0])  # one worker: each batch's metrics are its own
    else:
        num_batches = max((len(w) for w in per_worker), default=0)
        batch_metrics = [
            _across_workers([w[i] for w in per_worker if i < len(w)]) for i in range(num_batches)
        ]
    # The keys in the order they first appear.
    keys = dict.fromkeys(k for row in batch_metrics for k in row)
    avg = {k: _mean([row[k] for row in batch_metrics if k in row]) for k in keys}
    return avg, batch_metrics
