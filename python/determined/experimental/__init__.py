"""Upstream's ``determined.experimental``: the Python SDK (``client``) and its objects, and
``test_one_batch`` (local test mode)."""

from determined.common import experimental as _objects
from determined.common.experimental import *  # noqa: F401,F403
from determined.experimental import client
from determined.experimental._test_one_batch import test_one_batch

__all__ = [*_objects.__all__, "client", "test_one_batch"]
