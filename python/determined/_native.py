"""Access to ``_determined``, the pybind11 module of libdetermined (built next to this package)."""

from typing import Any

_module: Any = None


def native() -> Any:
    """Returns the ``_determined`` module, with a clear error when it was not built."""
    global _module
    if _module is None:
        try:
            import _determined  # type: ignore
        except ImportError as e:
            raise ImportError(
                "the determined package needs its compiled module _determined, which is built next "
                "to it (<build>/python/_determined*.so); build the `_determined` target and put "
                f"<build>/python on PYTHONPATH ({e})"
            ) from e
        _module = _determined
    return _module
