"""
Building blocks for reproducible data loading: samplers that repeat, shard, skip and shuffle the
batches of another sampler.

:class:`determined.pytorch.DataLoader` chains them for you (shuffle, then batch, then repeat, then
shard by rank, then skip to where training resumes). They are public so that code building its own
``torch.utils.data.DataLoader`` can do the same. The order matters:

* shuffle before repeating (a shuffle of an infinite sampler never ends) and before skipping (or the
  skipped batches would change the order of the rest);
* shard before skipping: the skip counts the batches *this worker* yields;
* skip after repeating, so that the skip happens once rather than every epoch.
"""

from typing import Iterator, List, Sized

import numpy as np
import torch.utils.data


def _checked_length(sampler: object) -> int:
    if not isinstance(sampler, Sized):
        raise TypeError(f"{type(sampler).__name__} has no length")
    return len(sampler)


class RepeatSampler(torch.utils.data.Sampler):
    """Yields the indices of ``sampler`` over and over, forever. ``len()`` is one pass's length."""

    def __init__(self, sampler: torch.utils.data.Sampler) -> None:
        self._sampler = sampler

    def __len__(self) -> int:
        return _checked_length(self._sampler)

    def __iter__(self) -> Iterator:
        while True:
            yield from self._sampler


class RepeatBatchSampler(torch.utils.data.BatchSampler):
    """
    Yields the batches of ``batch_sampler`` over and over, forever: each pass is one epoch.
    ``len()`` is the number of batches in one epoch.
    """

    def __init__(self, batch_sampler: torch.utils.data.BatchSampler) -> None:
        # BatchSampler.__init__ validates arguments this wrapper does not have; skip it.
        self.batch_sampler = batch_sampler

    def __len__(self) -> int:
        return _checked_length(self.batch_sampler)

    def __iter__(self) -> Iterator[List[int]]:
        while True:
            yield from self.batch_sampler


class DistributedSampler(torch.utils.data.Sampler):
    """
    Yields every ``num_workers``-th index of ``sampler``, starting at ``rank``: this worker's shard.

    Unlike ``torch.utils.data.DistributedSampler``, which shuffles and pads a dataset by itself,
    this is one link in a chain of samplers and accepts any sampler, of any length.
    """

    def __init__(self, sampler: torch.utils.data.Sampler, num_workers: int, rank: int) -> None:
        _check_shard(num_workers, rank)
        self._sampler = sampler
        self._num_workers = num_workers
        self._rank = rank

    def __len__(self) -> int:
        return _shard_length(_checked_length(self._sampler), self._num_workers, self._rank)

    def __iter__(self) -> Iterator:
        for i, index in enumerate(self._sampler):
            if i % self._num_workers == self._rank:
                yield index


class DistributedBatchSampler(torch.utils.data.BatchSampler):
    """
    Yields every ``num_workers``-th batch of ``batch_sampler``, starting at ``rank``: consecutive
    batches go to consecutive ranks, so one step of all workers together covers ``num_workers``
    consecutive batches.

    When ``batch_sampler`` is finite and its length is not a multiple of ``num_workers``, the lower
    ranks get one batch more than the others. Training always repeats its data, so the workers stay
    in step there; validation does not need them to.
    """

    def __init__(
        self, batch_sampler: torch.utils.data.BatchSampler, num_workers: int, rank: int
    ) -> None:
        _check_shard(num_workers, rank)
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.rank = rank

    def __len__(self) -> int:
        return _shard_length(_checked_length(self.batch_sampler), self.num_workers, self.rank)

    def __iter__(self) -> Iterator[List[int]]:
        for i, batch in enumerate(self.batch_sampler):
            if i % self.num_workers == self.rank:
                yield batch


class SkipSampler(torch.utils.data.Sampler):
    """
    Skips the first ``skip`` indices of ``sampler`` and yields the rest. Prefer
    :class:`SkipBatchSampler`: training progress is counted in batches, so a skip in records only
    lands in the right place when every batch has the same size.

    ``len()`` is the underlying sampler's length (the skip is meant to apply once, to a repeating
    training sampler).
    """

    def __init__(self, sampler: torch.utils.data.Sampler, skip: int) -> None:
        self._sampler = sampler
        self._skip = skip

    def __len__(self) -> int:
        return _checked_length(self._sampler)

    def __iter__(self) -> Iterator:
        return _skip_first(iter(self._sampler), self._skip)


class SkipBatchSampler(torch.utils.data.BatchSampler):
    """
    Skips the first ``skip`` batches of ``batch_sampler`` and yields the rest: how training resumes
    at the batch where a checkpoint left off. Only batch indices are skipped; no data is loaded.

    ``len()`` is the underlying sampler's length (the skip is meant to apply once, to a repeating
    training sampler).
    """

    def __init__(self, batch_sampler: torch.utils.data.BatchSampler, skip: int) -> None:
        self.batch_sampler = batch_sampler
        self.skip = skip

    def __len__(self) -> int:
        return _checked_length(self.batch_sampler)

    def __iter__(self) -> Iterator[List[int]]:
        return _skip_first(iter(self.batch_sampler), self.skip)


class ReproducibleShuffleSampler(torch.utils.data.Sampler):
    """
    Shuffles the indices of ``sampler`` with its own random generator seeded by ``seed``: every pass
    is a new permutation, and the sequence of permutations is the same for the same seed. It never
    touches the global random state.
    """

    def __init__(self, sampler: torch.utils.data.Sampler, seed: int) -> None:
        self._sampler = sampler
        self._rng = np.random.RandomState(seed)

    def __len__(self) -> int:
        return _checked_length(self._sampler)

    def __iter__(self) -> Iterator:
        # A list of Python ints: the batch sampler above takes them one by one, once per record.
        if type(self._sampler) is torch.utils.data.SequentialSampler:
            # Indices 0..n-1: the permutation is the shuffled list itself (the same draws).
            return iter(self._rng.permutation(len(self._sampler)).tolist())
        indices = list(self._sampler)
        return iter([indices[i] for i in self._rng.permutation(len(indices)).tolist()])


class ReproducibleShuffleBatchSampler(torch.utils.data.BatchSampler):
    """
    Shuffles the order of the batches of ``batch_sampler`` with its own generator seeded by
    ``seed``. Prefer :class:`ReproducibleShuffleSampler`, which also varies what each batch holds.
    """

    def __init__(self, batch_sampler: torch.utils.data.BatchSampler, seed: int) -> None:
        self._batch_sampler = batch_sampler
        self._rng = np.random.RandomState(seed)

    def __len__(self) -> int:
        return _checked_length(self._batch_sampler)

    def __iter__(self) -> Iterator[List[int]]:
        batches = list(self._batch_sampler)
        order = self._rng.permutation(len(batches))
        return (batches[i] for i in order)


def _check_shard(num_workers: int, rank: int) -> None:
    if num_workers < 1:
        raise ValueError(f"num_workers must be >= 1, got {num_workers}")
    if not 0 <= rank < num_workers:
        raise ValueError(f"rank must be in [0, num_workers={num_workers}), got {rank}")


def _shard_length(total: int, num_workers: int, rank: int) -> int:
    return total // num_workers + int(total % num_workers > rank)


def _skip_first(iterator: Iterator, skip: int) -> Iterator:
    for _ in range(skip):
        try:
            next(iterator)
        except StopIteration:
            return
    yield from iterator
