"""determined.pytorch.DataLoader and the samplers: sharding by rank, repeating, skipping to the
resume position, reproducible shuffling; to_device and data_length."""

import itertools
from typing import Any, List

import numpy as np
import pytest
import torch

from determined import pytorch
from determined.pytorch import samplers


def dataset(n: int = 10) -> torch.utils.data.Dataset:
    return torch.utils.data.TensorDataset(torch.arange(n))


def flat(batches: List[Any]) -> List[List[int]]:
    return [b[0].tolist() for b in batches]


def test_same_arguments_and_length_as_torch():
    loader = pytorch.DataLoader(dataset(10), batch_size=3)
    assert len(loader) == 4
    assert flat(list(loader)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert len(pytorch.DataLoader(dataset(10), batch_size=3, drop_last=True)) == 3


def test_training_loader_repeats_shards_and_skips():
    loader = pytorch.DataLoader(dataset(8), batch_size=2)
    rank0 = loader.get_data_loader(repeat=True, num_replicas=2, rank=0)
    rank1 = loader.get_data_loader(repeat=True, num_replicas=2, rank=1)
    assert len(rank0) == 2 and len(rank1) == 2
    assert flat(itertools.islice(iter(rank0), 4)) == [[0, 1], [4, 5], [0, 1], [4, 5]]
    assert flat(itertools.islice(iter(rank1), 4)) == [[2, 3], [6, 7], [2, 3], [6, 7]]
    # Skipping counts this worker's batches (one per global batch trained).
    resumed = loader.get_data_loader(repeat=True, skip=3, num_replicas=2, rank=1)
    assert flat(itertools.islice(iter(resumed), 2)) == [[6, 7], [2, 3]]


def test_shuffle_is_reproducible_and_resumes_in_the_same_order():
    torch.manual_seed(5)
    loader = pytorch.DataLoader(dataset(10), batch_size=2, shuffle=True)
    stream = flat(itertools.islice(iter(loader.get_data_loader(repeat=True)), 12))
    epochs = [sorted(sum(stream[i:i + 5], [])) for i in (0, 5)]
    assert epochs == [list(range(10))] * 2  # every epoch is a permutation...
    assert stream[:5] != stream[5:10]  # ...a different one each epoch
    # Built again from the same seed, or skipped to batch 7: the same batches.
    assert flat(itertools.islice(iter(loader.get_data_loader(repeat=True)), 12)) == stream
    skipped = loader.get_data_loader(repeat=True, skip=7)
    assert flat(itertools.islice(iter(skipped), 5)) == stream[7:12]
    # The same global seed gives the same shuffle; the seed can be replaced (from a checkpoint).
    torch.manual_seed(5)
    again = pytorch.DataLoader(dataset(10), batch_size=2, shuffle=True)
    assert again._shuffle_seed == loader._shuffle_seed
    again._set_shuffle_seed(loader._shuffle_seed + 1)
    assert flat(itertools.islice(iter(again.get_data_loader(repeat=True)), 12)) != stream


def test_building_an_iterator_leaves_the_global_random_state_alone():
    loader = pytorch.DataLoader(dataset(10), batch_size=2, shuffle=True)
    state = torch.random.get_rng_state()
    next(iter(loader.get_data_loader(repeat=True)))
    assert torch.equal(state, torch.random.get_rng_state())


def test_user_samplers_are_used_as_they_are():
    batch_sampler = [[3, 1], [0, 2]]
    loader = pytorch.DataLoader(dataset(4), batch_sampler=batch_sampler)  # type: ignore[arg-type]
    assert flat(list(loader)) == [[3, 1], [0, 2]]
    sampler = torch.utils.data.SequentialSampler(range(4))
    assert len(pytorch.DataLoader(dataset(4), sampler=sampler, batch_size=2)) == 2


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"sampler": [0], "shuffle": True}, "mutually exclusive"),
        ({"batch_sampler": [[0]], "batch_size": 2}, "mutually exclusive"),
        ({"batch_size": None}, "batch_size=None"),
        ({"num_workers": -1}, "num_workers"),
        ({"persistent_workers": True}, "num_workers > 0"),
    ],
)
def test_invalid_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pytorch.DataLoader(dataset(4), **kwargs)


def test_iterable_datasets_are_refused():
    class Stream(torch.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(3))

    with pytest.raises(ValueError, match="IterableDataset"):
        pytorch.DataLoader(Stream())


def test_samplers_compose():
    base = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(5)), 2, False)
    sharded = samplers.DistributedBatchSampler(base, num_workers=2, rank=0)
    assert len(sharded) == 2 and list(sharded) == [[0, 1], [4]]
    assert len(samplers.DistributedBatchSampler(base, 2, 1)) == 1
    assert list(samplers.SkipBatchSampler(base, 2)) == [[4]]
    assert list(itertools.islice(samplers.RepeatBatchSampler(base), 4)) == [[0, 1], [2, 3], [4], [0, 1]]
    assert list(samplers.DistributedSampler(range(5), 2, 1)) == [1, 3]
    assert list(samplers.SkipSampler(range(5), 3)) == [3, 4]
    first = list(samplers.ReproducibleShuffleSampler(range(6), seed=1))
    assert sorted(first) == list(range(6))
    assert first == list(samplers.ReproducibleShuffleSampler(range(6), seed=1))
    with pytest.raises(ValueError, match="rank"):
        samplers.DistributedBatchSampler(base, num_workers=2, rank=2)


def test_to_device_and_data_length():
    batch = {"x": np.ones((3, 2), dtype=np.float32), "y": [torch.zeros(3), (torch.ones(3), "label")]}
    moved = pytorch.to_device(batch, torch.device("cpu"))
    assert isinstance(moved["x"], torch.Tensor) and moved["x"].shape == (3, 2)
    assert isinstance(moved["y"][1], tuple) and moved["y"][1][1] == "label"
    assert pytorch.data_length(batch) == 3
    assert pytorch.data_length((torch.zeros(5, 1), torch.zeros(5))) == 5
    with pytest.raises(TypeError):
        pytorch.data_length("nope")  # type: ignore[arg-type]
