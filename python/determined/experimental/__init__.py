"""Upstream's ``determined.experimental``: the Python SDK (``client``) and its objects."""

from determined.common import experimental as _objects
from determined.common.experimental import *  # noqa: F401,F403
from determined.experimental import client

__all__ = [*_objects.__all__, "client"]
