"""``determined.pytorch.DataLoader``: a torch DataLoader recipe that the Trainer turns into a loader
sharded by rank, repeated for training, and skipped to where training resumes."""

import logging
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Type, Union

import numpy as np
import torch
import torch.utils.data
from torch.utils.data._utils import collate

from determined.pytorch import samplers

logger = logging.getLogger("determined.pytorch")

_Array = Union[np.ndarray, torch.Tensor]
_Data = Union[Dict[str, _Array], Sequence[_Array], _Array]
#: What ``train_batch`` and ``evaluate_batch`` receive: a tensor, or a (nested) dict, list or tuple
#: of tensors.
TorchData = Union[Dict[str, torch.Tensor], Sequence[torch.Tensor], torch.Tensor]

_TORCH_MAJOR = int(torch.__version__.split(".")[0])


def _draw_seed() -> int:
    """A shuffle seed from torch's global generator: the same wherever the global seed is the same
    (the harness seeds every worker with the trial seed before the trial builds its loaders)."""
    return int(torch.randint(0, 2**31 - 1, (), dtype=torch.int64).item())


class DataLoader:
    """
    A drop-in replacement for ``torch.utils.data.DataLoader`` (same arguments, same defaults) that
    Determined can make reproducible.

    The torch ``DataLoader`` is built by :meth:`get_data_loader` when training starts, so that:

    * in distributed training every worker reads its own shard of each global batch (batch ``i`` of
      the underlying sampler goes to rank ``i % size``; use ``context.get_per_slot_batch_size()`` as
      the ``batch_size``);
    * the training data repeats forever (one pass is one epoch);
    * training resumed from a checkpoint continues at the batch where it stopped.

    ``shuffle=True`` without a ``generator`` shuffles with a generator of its own, seeded from
    torch's global generator when the loader is built (and saved with checkpoints): every epoch is a
    new permutation, and a resumed trial sees exactly the batches it would have seen. With a
    ``generator``, or a ``sampler``/``batch_sampler`` of your own, the order is that object's.

    ``IterableDataset`` is not supported: use a ``torch.utils.data.DataLoader`` and make it
    reproducible yourself.
    """

    def __init__(
        self,
        dataset: torch.utils.data.Dataset,
        batch_size: Optional[int] = 1,
        shuffle: bool = False,
        sampler: Optional[torch.utils.data.Sampler] = None,
        batch_sampler: Optional[torch.utils.data.Sampler] = None,
        num_workers: int = 0,
        collate_fn: Optional[Callable[[List[Any]], Any]] = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Optional[Callable[[int], None]] = None,
        multiprocessing_context: Any = None,
        generator: Optional[torch.Generator] = None,
        *,
        prefetch_factor: Optional[int] = None,
        persistent_workers: bool = False,
    ) -> None:
        if isinstance(dataset, torch.utils.data.IterableDataset):
            raise ValueError(
                "determined.pytorch.DataLoader does not support IterableDataset: it cannot shard, "
                "repeat or skip one. Return a torch.utils.data.DataLoader instead and shard, shuffle, "
                "repeat and skip the data yourself"
            )
        if batch_sampler is None and batch_size is None:
            raise ValueError(
                "batch_size=None without a batch_sampler (no automatic batching) is not supported by "
                "determined.pytorch.DataLoader; set batch_size or pass a batch_sampler"
            )
        if num_workers < 0:
            raise ValueError(
                f"num_workers must be >= 0 (0 loads in the main process), got {num_workers}"
            )
        if timeout < 0:
            raise ValueError(f"timeout must be >= 0, got {timeout}")
        if prefetch_factor is not None and num_workers == 0:
            raise ValueError("prefetch_factor needs num_workers > 0")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError(f"prefetch_factor must be >= 0, got {prefetch_factor}")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers needs num_workers > 0")
        if sampler is not None and shuffle:
            raise ValueError("sampler and shuffle=True are mutually exclusive")
        if batch_sampler is not None and (
            batch_size != 1 or shuffle or sampler is not None or drop_last
        ):
            raise ValueError(
                "batch_sampler is mutually exclusive with batch_size, shuffle, sampler and drop_last"
            )

        self.dataset = dataset
        self.num_workers = num_workers
        self.collate_fn = collate_fn or collate.default_collate
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.shuffle = shuffle
        self.drop_last = False if batch_sampler is not None else drop_last
        self.batch_size = None if batch_sampler is not None else batch_size

        self._user_sampler = sampler
        self._user_batch_sampler = batch_sampler
        # Only our own shuffle is rebuilt from a seed; user samplers are used as they are.
        self._shuffle_seed: Optional[int] = (
            _draw_seed() if shuffle and generator is None and batch_sampler is None else None
        )
        self.sampler = self._build_sampler()
        self.batch_sampler = self._build_batch_sampler(self.sampler)

    def _build_sampler(self) -> Optional[torch.utils.data.Sampler]:
        if self._user_batch_sampler is not None:
            return None
        if self._user_sampler is not None:
            return self._user_sampler
        if not self.shuffle:
            return torch.utils.data.SequentialSampler(self.dataset)
        if self._shuffle_seed is not None:
            return samplers.ReproducibleShuffleSampler(
                torch.utils.data.SequentialSampler(self.dataset), self._shuffle_seed
            )
        return torch.utils.data.RandomSampler(self.dataset, generator=self.generator)

    def _build_batch_sampler(
        self, sampler: Optional[torch.utils.data.Sampler]
    ) -> torch.utils.data.Sampler:
        if self._user_batch_sampler is not None:
            return self._user_batch_sampler
        assert sampler is not None and self.batch_size is not None
        return torch.utils.data.BatchSampler(sampler, self.batch_size, self.drop_last)

    def _set_shuffle_seed(self, seed: Optional[int]) -> None:
        """Replaces the seed of our own shuffle (a checkpoint's, or the chief's); no-op without one."""
        if self._shuffle_seed is None or seed is None:
            return
        self._shuffle_seed = int(seed)
        self.sampler = self._build_sampler()
        self.batch_sampler = self._build_batch_sampler(self.sampler)

    def get_data_loader(
        self, repeat: bool = False, skip: int = 0, num_replicas: int = 1, rank: int = 0
    ) -> torch.utils.data.DataLoader:
        """
        Builds the ``torch.utils.data.DataLoader``: this worker's shard (``rank`` of
        ``num_replicas``) of the batches, repeated forever if ``repeat``, without its first ``skip``
        batches. Each call starts from the first epoch's order again.
        """
        # A fresh chain, so that our shuffle starts again from its first permutation.
        batch_sampler = self._build_batch_sampler(self._build_sampler())
        batch_sampler = adapt_batch_sampler(
            batch_sampler, repeat=repeat, skip=skip, num_replicas=num_replicas, rank=rank
        )
        # A private generator for the workers' base seed, so that building an iterator does not
        # draw from torch's global generator (which would change the training after a resume).
        generator = self.generator
        if generator is None:
            generator = torch.Generator()
            generator.manual_seed(self._shuffle_seed or 0)
        kwargs: Dict[str, Any] = {}
        if self.num_workers > 0:
            kwargs["prefetch_factor"] = self.prefetch_factor or 2
            kwargs["persistent_workers"] = self.persistent_workers
            kwargs["multiprocessing_context"] = self.multiprocessing_context
        return torch.utils.data.DataLoader(
            self.dataset,
            batch_sampler=batch_sampler,
            num_workers=self.num_workers,
            collate_fn=self.collate_fn,
            pin_memory=self.pin_memory,
            timeout=self.timeout,
            worker_init_fn=self.worker_init_fn,
            generator=generator,
            **kwargs,
        )

    def __iter__(self) -> Iterator:
        """Iterates one pass, as a torch DataLoader would (for using a trial outside Determined)."""
        return iter(self.get_data_loader())

    def __len__(self) -> int:
        """The number of batches in one pass (one epoch, before sharding)."""
        return len(self.batch_sampler)  # type: ignore[arg-type]


def adapt_batch_sampler(
    batch_sampler: torch.utils.data.Sampler,
    repeat: bool = False,
    skip: int = 0,
    num_replicas: int = 1,
    rank: int = 0,
) -> torch.utils.data.Sampler:
    """
    Wraps ``batch_sampler`` for training: repeated forever (``repeat``), sharded by rank
    (``num_replicas`` > 1), and without its first ``skip`` batches. The skip comes after the
    sharding because it counts this worker's batches, one per global batch trained.
    """
    if repeat:
        batch_sampler = samplers.RepeatBatchSampler(batch_sampler)  # type: ignore[arg-type]
    if num_replicas > 1:
        batch_sampler = samplers.DistributedBatchSampler(
            batch_sampler, num_replicas, rank  # type: ignore[arg-type]
        )
    if skip > 0:
        batch_sampler = samplers.SkipBatchSampler(batch_sampler, skip)  # type: ignore[arg-type]
    return batch_sampler


def data_length(data: _Data) -> int:
    """The number of records in a batch: the length of its first array or tensor."""
    if isinstance(data, (np.ndarray, torch.Tensor)):
        return len(data)
    if isinstance(data, dict):
        if not data:
            raise ValueError("cannot tell the length of an empty dict batch")
        return data_length(next(iter(data.values())))
    if isinstance(data, (list, tuple)):
        if not data:
            raise ValueError("cannot tell the length of an empty list or tuple batch")
        return data_length(data[0])
    raise TypeError(f"cannot tell the length of a batch of type {type(data).__name__}")


_PLAIN = (str, bytes, int, float, bool, type(None))


def to_device(
    data: _Data, device: torch.device, warned_types: Optional[Set[Type]] = None
) -> TorchData:
    """
    Moves ``data`` to ``device``: tensors (and anything else with a ``.to()``) are moved, numpy arrays
    become tensors, and dicts, lists and tuples are walked. Other values are returned as they are,
    with one warning per type (plain Python scalars and strings are left alone silently).
    """
    kind = type(data)
    if kind is torch.Tensor:  # the common leaf first
        return data.to(device)
    if warned_types is None:
        warned_types = set()
    if kind is tuple or kind is list:  # plain ones: no namedtuple to rebuild
        moved = [
            v.to(device) if type(v) is torch.Tensor else to_device(v, device, warned_types)
            for v in data
        ]
        return moved if kind is list else tuple(moved)  # type: ignore
    if isinstance(data, dict):
        return {
            k: v.to(device) if type(v) is torch.Tensor else to_device(v, device, warned_types)
            for k, v in data.items()
        }  # type: ignore
    if isinstance(data, list):
        return [to_device(v, device, warned_types) for v in data]  # type: ignore
    if isinstance(data, tuple):
        moved = [to_device(v, device, warned_types) for v in data]
        if hasattr(data, "_fields"):  # a namedtuple
            return type(data)(*moved)  # type: ignore
        return tuple(moved)  # type: ignore
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "biufc":
            return torch.as_tensor(data).to(device)
        return data  # type: ignore
    to = getattr(data, "to", None)
    if callable(to):
        return to(device)  # type: ignore
    if not isinstance(data, _PLAIN) and type(data) not in warned_types:
        warned_types.add(type(data))
        logger.warning(f"to_device(): cannot move a {type(data).__name__} to {device}; left as is")
    return data  # type: ignore
