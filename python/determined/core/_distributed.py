import logging
import os
import pickle
from typing import Any, List, Optional

from determined._native import native

logger = logging.getLogger("determined.core")


class DistributedContext:
    """
    Rank information and simple collectives (gather, allgather, broadcast of picklable objects)
    across the workers of a task.

    With ``size > 1`` the workers form a group over TCP when the context is built: the chief
    (rank 0) listens on ``chief_ip:pub_port + port_offset`` and every other worker connects to it, so
    every worker must build its context. The collectives are collective: every worker calls them in
    the same order. The ``_local`` variants act among the workers with the same ``cross_rank``.
    """

    def __init__(
        self,
        *,
        rank: int,
        size: int,
        local_rank: int,
        local_size: int,
        cross_rank: int,
        cross_size: int,
        chief_ip: Optional[str] = None,
        pub_port: int = 12360,
        pull_port: int = 12376,
        port_offset: int = 0,
        force_tcp: bool = False,
    ) -> None:
        rank_args = (rank, size, local_rank, local_size, cross_rank, cross_size)
        if sum(x is not None for x in rank_args) not in (0, 6):
            raise ValueError(
                "rank, size, local_rank, local_size, cross_rank, and cross_size must all be "
                "provided if any are provided"
            )
        self.rank = rank if rank is not None else 0
        self.size = size if size is not None else 1
        self.local_rank = local_rank if local_rank is not None else 0
        self.local_size = local_size if local_size is not None else 1
        self.cross_rank = cross_rank if cross_rank is not None else 0
        self.cross_size = cross_size if cross_size is not None else 1
        self._chief_ip = chief_ip or "127.0.0.1"
        self._pub_port = pub_port + port_offset
        self._pull_port = pull_port + port_offset
        self._group: Any = None
        if self.size > 1:
            if chief_ip is None:
                raise ValueError("chief_ip is required when size > 1: the address the chief listens on")
            logger.debug(f"rank {self.rank} of {self.size}: joining the chief at {chief_ip}:{self._pub_port}")
            self._group = native().WorkerGroup(self.rank, self.size, chief_ip, self._pub_port)
        self._closed = False

    @classmethod
    def from_torch_distributed(cls, chief_ip: Optional[str] = None) -> "DistributedContext":
        """From the torch.distributed launcher's variables (RANK, WORLD_SIZE, ...)."""
        return cls(
            rank=int(os.environ["RANK"]),
            size=int(os.environ["WORLD_SIZE"]),
            local_rank=int(os.environ["LOCAL_RANK"]),
            local_size=int(os.environ["LOCAL_WORLD_SIZE"]),
            cross_rank=int(os.environ["GROUP_RANK"]),
            cross_size=int(os.environ["GROUP_WORLD_SIZE"]),
            chief_ip=chief_ip or os.environ.get("DET_CHIEF_IP") or os.environ.get("MASTER_ADDR"),
            pub_port=int(os.environ.get("DET_CHIEF_PORT", "12360")),
        )

    @classmethod
    def from_deepspeed(cls, chief_ip: Optional[str] = None) -> "DistributedContext":
        return cls(
            rank=int(os.environ["RANK"]),
            size=int(os.environ["WORLD_SIZE"]),
            local_rank=int(os.environ["LOCAL_RANK"]),
            local_size=int(os.environ["LOCAL_SIZE"]),
            cross_rank=int(os.environ["CROSS_RANK"]),
            cross_size=int(os.environ["CROSS_SIZE"]),
            chief_ip=chief_ip or os.environ.get("DET_CHIEF_IP"),
        )

    @classmethod
    def from_horovod(cls, hvd: Any, chief_ip: Optional[str] = None) -> "DistributedContext":
        return cls(
            rank=hvd.rank(),
            size=hvd.size(),
            local_rank=hvd.local_rank(),
            local_size=hvd.local_size(),
            cross_rank=hvd.cross_rank(),
            cross_size=hvd.cross_size(),
            chief_ip=chief_ip or os.environ.get("DET_CHIEF_IP"),
        )

    def close(self) -> None:
        self._group = None
        self._closed = True

    def get_rank(self) -> int:
        return self.rank

    def get_local_rank(self) -> int:
        return self.local_rank

    def get_size(self) -> int:
        return self.size

    def get_local_size(self) -> int:
        return self.local_size

    def get_cross_rank(self) -> int:
        return self.cross_rank

    def get_cross_size(self) -> int:
        return self.cross_size

    def get_num_agents(self) -> int:
        return self.cross_size

    def _require_group(self) -> Any:
        if self._closed:
            raise RuntimeError("this DistributedContext is closed")
        return self._group

    def gather(self, stuff: Any) -> Optional[List]:
        """The chief gets everyone's ``stuff`` in rank order; other workers get None."""
        group = self._require_group()
        if group is None:
            return [stuff]
        gathered = group.gather(pickle.dumps(stuff))
        return None if gathered is None else [pickle.loads(b) for b in gathered]

    def allgather(self, stuff: Any) -> List:
        """Everyone gets everyone's ``stuff`` in rank order."""
        group = self._require_group()
        if group is None:
            return [stuff]
        return [pickle.loads(b) for b in group.allgather(pickle.dumps(stuff))]

    def broadcast(self, stuff: Any) -> Any:
        """Everyone gets the chief's ``stuff``."""
        group = self._require_group()
        if group is None:
            return stuff
        return pickle.loads(group.broadcast(pickle.dumps(stuff if self.rank == 0 else None)))

    def _local_peers(self, stuff: Any) -> List:
        """(local_rank, stuff) of every worker with this worker's cross_rank, by local rank."""
        everyone = self.allgather((self.cross_rank, self.local_rank, stuff))
        return sorted(((lr, s) for cr, lr, s in everyone if cr == self.cross_rank), key=lambda p: p[0])

    def gather_local(self, stuff: Any) -> Optional[List]:
        """The local chief (local_rank 0) gets its machine's workers' ``stuff``; others get None."""
        if self._require_group() is None:
            return [stuff]
        peers = [s for _, s in self._local_peers(stuff)]
        return peers if self.local_rank == 0 else None

    def allgather_local(self, stuff: Any) -> List:
        """Every worker gets its machine's workers' ``stuff``, by local rank."""
        if self._require_group() is None:
            return [stuff]
        return [s for _, s in self._local_peers(stuff)]

    def broadcast_local(self, stuff: Any = None) -> Any:
        """Every worker gets its local chief's ``stuff``."""
        if self._require_group() is None:
            return stuff
        return self._local_peers(stuff)[0][1]


class DummyDistributedContext(DistributedContext):
    """A DistributedContext for a single worker (rank 0 of 1)."""

    def __init__(self) -> None:
        super().__init__(rank=0, size=1, local_rank=0, local_size=1, cross_rank=0, cross_size=1)
