"""Helpers shared by the harness: making user values JSON-serializable."""

import json
import logging
import math
import numbers
from typing import Any, Dict

logger = logging.getLogger("determined")


def make_jsonable(value: Any) -> Any:
    """
    Converts ``value`` into plain JSON types: numpy/torch scalars and one-element tensors through
    ``.item()``, arrays through ``.tolist()``, other numbers through ``float()``. Non-finite floats
    become the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"`` (protobuf's JSON
    spelling), since JSON has no literal for them. Anything else becomes ``str(value)``.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        if math.isnan(value):
            return "NaN"
        return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, dict):
        return {str(k): make_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [make_jsonable(v) for v in value]
    item = getattr(value, "item", None)
    if callable(item):
        try:
            return make_jsonable(item())
        except Exception:
            pass
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        try:
            return make_jsonable(tolist())
        except Exception:
            pass
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return make_jsonable(float(value))
    return str(value)


def json_encode(value: Any, indent: Any = None, sort_keys: bool = False) -> str:
    return json.dumps(make_jsonable(value), indent=indent, sort_keys=sort_keys)


def metrics_to_json(metrics: Dict[str, Any], what: str = "metrics") -> Dict[str, Any]:
    """Validates a metrics dict and makes its values JSON-serializable; drops bytes values."""
    if not isinstance(metrics, dict):
        raise TypeError(f"{what} must be a dict of name -> value, got {type(metrics).__name__}")
    out = {}
    dropped = []
    for name, value in metrics.items():
        if isinstance(value, (bytes, bytearray)):
            dropped.append(str(name))
            continue
        out[str(name)] = make_jsonable(value)
    if dropped:
        logger.warning("Removed non serializable metrics: %s", ", ".join(dropped))
    return out
