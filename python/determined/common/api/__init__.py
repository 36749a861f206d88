"""The REST session to a master, as upstream's ``determined.common.api`` names it."""

from typing import Any, Callable, Dict, Iterator

from determined.common.api import errors
from determined.common.api._session import Session
from determined.common.api.authentication import (
    canonicalize_master_url,
    get_default_master_url,
    salt_and_hash,
)


def read_paginated(get_with_offset: Callable[[int], Dict[str, Any]], offset: int = 0,
                   pages: str = "all") -> Iterator[Dict[str, Any]]:
    """
    Yields the pages of a list call: ``get_with_offset(offset)`` returns one response with
    ``pagination`` {``startIndex``, ``endIndex``, ``total``}; the next page starts at the previous
    page's ``endIndex``. ``pages="single"`` stops after the first.
    """
    while True:
        resp = get_with_offset(offset)
        yield resp
        pag = resp.get("pagination") or {}
        end, total = int(pag.get("endIndex") or 0), int(pag.get("total") or 0)
        if pages == "single" or end >= total or end <= offset:
            return
        offset = end


__all__ = [
    "Session",
    "canonicalize_master_url",
    "errors",
    "get_default_master_url",
    "read_paginated",
    "salt_and_hash",
]
