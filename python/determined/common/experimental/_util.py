"""Helpers shared by the SDK's objects."""

import datetime
import enum
from typing import Any, Dict, Optional


class OrderBy(enum.Enum):
    """Ascending or descending order of a sorted list (``ASC``/``DESC`` are aliases)."""

    ASCENDING = "ORDER_BY_ASC"
    ASC = "ORDER_BY_ASC"
    DESCENDING = "ORDER_BY_DESC"
    DESC = "ORDER_BY_DESC"


def parse_timestamp(value: Optional[str]) -> Optional[datetime.datetime]:
    """An RFC 3339 timestamp of the API ("2024-01-02T03:04:05.123456Z") as an aware datetime."""
    if not value:
        return None
    text = value.replace("Z", "+00:00")
    # fromisoformat (3.11) takes up to 6 fractional digits; protobuf may send 9.
    if "." in text:
        head, _, rest = text.partition(".")
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        text = f"{head}.{digits[:6].ljust(6, '0')}{rest}"
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        return None


def to_int(value: Any) -> Optional[int]:
    """An int64 of the API (a JSON string or number) as an int; None stays None."""
    if value is None or value == "":
        return None
    return int(value)


def int_map(values: Optional[Dict[str, Any]]) -> Dict[str, int]:
    """A map of int64 values (strings on the wire) as ints."""
    return {k: int(v) for k, v in (values or {}).items()}
