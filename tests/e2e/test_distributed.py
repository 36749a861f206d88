"""Distributed training: a 2-slot trial over two agents with one slot each, launched by
determined.launch.torch_distributed (one worker per slot, gloo), DistributedDataParallel on the digits."""
import re

import pytest

from conftest import REPO, local_cluster, wait_for


@pytest.fixture(scope="module")
def two_agents(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("two-agents"), agents=2, slots=1) as c:
        yield c


def test_ddp_over_two_agents(two_agents):
    cluster = two_agents
    exp_id = cluster.create_experiment(REPO / "examples" / "digits" / "distributed.yaml", REPO / "examples" / "digits")
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(cluster.trials(exp_id)[0]["id"])
    trial = cluster.trials(exp_id)[0]
    logs = cluster.trial_logs(trial["id"])

    # One worker per agent, each knowing its rank, both in the same gloo group.
    assert "[rank=0]" in logs and "[rank=1]" in logs, logs
    assert "--nnodes 2" in logs, logs
    # The agent turns the launcher's "[rank=N] " prefix into the log's rank id, so --rank-id filters.
    rank1 = cluster.det("trial", "logs", str(trial["id"]), "--rank-id", "1").stdout
    assert "[rank=1]" in rank1 and "[rank=0]" not in rank1, rank1

    # Only the chief reports: one validation and one checkpoint per period, never twice for a step.
    validations = cluster.metrics(trial["id"], "validation")
    steps = [m["totalBatches"] for m in validations]
    assert steps == sorted(set(steps)) and steps, steps
    checkpoints = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    assert sorted(c["metadata"]["steps_completed"] for c in checkpoints) == steps
    saved = re.findall(r"\[rank=(\d+)\] saved checkpoint", logs)
    assert saved and set(saved) == {"0"}, saved
    assert validations[-1]["metrics"]["accuracy"] > 0.8, validations[-1]


def test_every_worker_stops_at_the_same_batch_when_paused_and_resumes_from_the_chiefs_checkpoint(two_agents, tmp_path):
    cluster = two_agents
    model_dir = tmp_path / "digits"
    model_dir.mkdir()
    (model_dir / "train.py").write_text((REPO / "examples" / "digits" / "train.py").read_text())
    config = (REPO / "examples" / "digits" / "distributed.yaml").read_text()
    # Long enough to pause in the middle; validates and checkpoints every 5 batches.
    config = config.replace("epochs: 3", "epochs: 100").replace("max_restarts: 0", "max_restarts: 0\ndata:\n  validation_period_batches: 5")
    (model_dir / "distributed.yaml").write_text(config)
    exp_id = cluster.create_experiment(model_dir / "distributed.yaml", model_dir)
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    wait_for(lambda: len(cluster.metrics(trial_id, "validation")) >= 2, "two validations", timeout=120)
    cluster.det("experiment", "pause", str(exp_id))
    logs = wait_for(lambda: (lambda l: l if len(re.findall(r"preemption requested; stopping at batch", l)) >= 2 else None)(
        cluster.trial_logs(trial_id)), "both workers to stop", timeout=120)
    stops = dict(re.findall(r"\[rank=(\d+)\] preemption requested; stopping at batch (\d+)", logs))
    assert set(stops) == {"0", "1"} and len(set(stops.values())) == 1, stops
    wait_for(lambda: cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_PAUSED", "paused")

    cluster.det("experiment", "activate", str(exp_id))
    wait_for(lambda: len(re.findall(r"resumed from checkpoint", cluster.trial_logs(trial_id))) >= 2,
             "both workers to resume", timeout=120)
    resumed = dict(re.findall(r"\[rank=(\d+)\] resumed from checkpoint \S+ at step (\d+)", cluster.trial_logs(trial_id)))
    assert resumed == {"0": stops["0"], "1": stops["0"]}, (resumed, stops)
    cluster.det("experiment", "kill", str(exp_id))
    assert cluster.wait_for_experiment(exp_id) == "STATE_CANCELED"


SHARDED = """
import determined as det

dist = det.core.DistributedContext.from_torch_distributed()
with det.core.init(distributed=dist) as ctx:
    with ctx.checkpoint.store_path({"steps_completed": 1}, shard=True) as (path, uuid):
        (path / f"rank-{dist.rank}.txt").write_text(f"written by rank {dist.rank}")
    print("stored shard of", uuid, flush=True)
"""


def test_a_sharded_checkpoint_holds_both_workers_files(two_agents, tmp_path):
    cluster = two_agents
    (tmp_path / "sharded.py").write_text(SHARDED)
    (tmp_path / "sharded.yaml").write_text(
        "name: sharded\nentrypoint: python3 -m determined.launch.torch_distributed -- python3 sharded.py\n"
        "searcher: {name: single, metric: loss}\nresources: {slots_per_trial: 2}\nmax_restarts: 0\n")
    exp_id = cluster.create_experiment(tmp_path / "sharded.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    logs = cluster.trial_logs(cluster.trials(exp_id)[0]["id"])
    uuids = set(re.findall(r"stored shard of (\S+)", logs))
    assert len(uuids) == 1, logs
    (checkpoint,) = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    assert checkpoint["uuid"] in uuids
    assert set(checkpoint["resources"]) == {"rank-0.txt", "rank-1.txt"}, checkpoint
    stored = cluster.data_dir / "checkpoints" / checkpoint["uuid"]
    assert (stored / "rank-1.txt").read_text() == "written by rank 1"


def test_ddp_on_one_agent_with_two_slots(tmp_path):
    with local_cluster(tmp_path, agents=1, slots=2) as cluster:
        exp_id = cluster.create_experiment(REPO / "examples" / "digits" / "distributed.yaml",
                                           REPO / "examples" / "digits")
        assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
        logs = cluster.trial_logs(cluster.trials(exp_id)[0]["id"])
        # One process on the agent, which starts a worker per slot.
        assert "--nnodes 1 --nproc_per_node 2" in logs, logs
        assert "[rank=0]" in logs and "[rank=1]" in logs, logs


def test_core_api_stage_4_runs_two_workers_and_resumes_their_shards(two_agents, tmp_path):
    cluster = two_agents
    # Slower steps (20 s in all), so that the pause lands mid-training.
    (tmp_path / "4_distributed.py").write_text((REPO / "examples/core_api/4_distributed.py").read_text())
    config = (REPO / "examples/core_api/4_distributed.yaml").read_text()
    (tmp_path / "4_distributed.yaml").write_text(config.replace("increment_by: 1", "increment_by: 1\n  seconds_per_step: 0.2"))
    exp_id = cluster.create_experiment(tmp_path / "4_distributed.yaml", tmp_path)
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    wait_for(lambda: cluster.metrics(trial_id, "validation"), "a validation", timeout=120)
    cluster.det("experiment", "pause", str(exp_id))
    wait_for(lambda: cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]["state"] == "STATE_PAUSED",
             "paused", timeout=120)
    cluster.det("experiment", "activate", str(exp_id))
    state = cluster.wait_for_experiment(exp_id)
    logs = cluster.trial_logs(trial_id)
    assert state == "STATE_COMPLETED", logs[-6000:]
    resumed = re.findall(r"rank (\d) resuming at step (\d+) with its x=(\d+)", logs)
    assert sorted(r for r, _, _ in resumed) == ["0", "1"], logs[-3000:]
    assert all(step == x for _, step, x in resumed), resumed  # increment_by 1: x counts the steps
    # Both workers' shares add up: 2 workers x 100 steps.
    validations = cluster.metrics(trial_id, "validation")
    assert validations[-1]["totalBatches"] == 100 and validations[-1]["metrics"]["x"] == 200, validations[-1]
