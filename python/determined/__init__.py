"""The Determined harness: the Core API used inside training code.

This package has upstream Determined's Python shape (``det.core.init()``,
``det.get_cluster_info()``, ``det.InvalidHP``, ``det.LOG_FORMAT``) over ``_determined``, the
pybind11 module of libdetermined.
"""

__version__ = "0.38.1"

# Upstream's log format; training scripts pass it to logging.basicConfig(format=det.LOG_FORMAT).
LOG_FORMAT = "%(levelname)s: [%(process)s] %(name)s: %(message)s"

from determined._errors import InvalidHP
from determined._info import ClusterInfo, RendezvousInfo, TrialInfo, get_cluster_info
from determined import util
from determined import core

__all__ = [
    "ClusterInfo",
    "InvalidHP",
    "LOG_FORMAT",
    "RendezvousInfo",
    "TrialInfo",
    "core",
    "get_cluster_info",
    "util",
]
