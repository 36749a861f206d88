"""Launchers that start a trial's workers: ``python3 -m determined.launch.torch_distributed -- python3 train.py``
starts one worker per slot with torch.distributed; ``determined.launch.wrap_rank`` prefixes a worker's output
lines with its rank."""
