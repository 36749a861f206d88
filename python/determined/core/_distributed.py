import logging
import os
from typing import Any, List, Optional

logger = logging.getLogger("determined.core")


class DistributedContext:
    """
    Rank information and simple collectives (gather, allgather, broadcast of picklable objects)
    across the workers of a task.

    This harness supports one worker per task for now: ``size`` must be 1, and the collectives
    return the caller's own values.
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
        if self.size != 1:
            raise NotImplementedError(
                f"DistributedContext with size={self.size}: this harness supports only one worker "
                "per task for now (size=1)"
            )
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
            chief_ip=chief_ip or os.environ.get("DET_CHIEF_IP"),
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

    def gather(self, stuff: Any) -> Optional[List]:
        """The chief gets everyone's ``stuff`` in rank order; other workers get None."""
        return [stuff]

    def gather_local(self, stuff: Any) -> Optional[List]:
        return [stuff]

    def allgather(self, stuff: Any) -> List:
        """Everyone gets everyone's ``stuff`` in rank order."""
        return [stuff]

    def allgather_local(self, stuff: Any) -> List:
        return [stuff]

    def broadcast(self, stuff: Any) -> Any:
        """Everyone gets the chief's ``stuff``."""
        return stuff

    def broadcast_local(self, stuff: Any = None) -> Any:
        return stuff


class DummyDistributedContext(DistributedContext):
    """A DistributedContext for a single worker (rank 0 of 1)."""

    def __init__(self) -> None:
        super().__init__(rank=0, size=1, local_rank=0, local_size=1, cross_rank=0, cross_size=1)
