"""DistributedContext's collectives across real processes (off-cluster, over loopback TCP), and the
launchers' command lines."""
import multiprocessing
import socket
import subprocess
import sys

import pytest

import determined as det
from determined.launch import torch_distributed


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, port, out):
    # 4 workers on 2 "machines" of 2: cross_rank = rank // 2, local_rank = rank % 2.
    ctx = det.core.DistributedContext(rank=rank, size=4, local_rank=rank % 2, local_size=2,
                                      cross_rank=rank // 2, cross_size=2, chief_ip="127.0.0.1", pub_port=port)
    out.put((rank, {
        "gather": ctx.gather({"rank": rank}),
        "allgather": ctx.allgather(rank * 10),
        "broadcast": ctx.broadcast(f"from {rank}"),
        "gather_local": ctx.gather_local(rank),
        "allgather_local": ctx.allgather_local(rank),
        "broadcast_local": ctx.broadcast_local(rank),
    }))
    ctx.close()


def test_collectives_across_four_processes():
    port = free_port()
    out = multiprocessing.get_context("fork").Queue()
    procs = [multiprocessing.get_context("fork").Process(target=worker, args=(r, port, out)) for r in range(4)]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    assert results[0]["gather"] == [{"rank": r} for r in range(4)]
    assert all(results[r]["gather"] is None for r in (1, 2, 3))
    assert all(results[r]["allgather"] == [0, 10, 20, 30] for r in range(4))
    assert all(results[r]["broadcast"] == "from 0" for r in range(4))
    assert results[0]["gather_local"] == [0, 1] and results[2]["gather_local"] == [2, 3]
    assert results[1]["gather_local"] is None and results[3]["gather_local"] is None
    assert results[3]["allgather_local"] == [2, 3]
    assert [results[r]["broadcast_local"] for r in range(4)] == [0, 0, 2, 2]


def test_a_single_worker_needs_no_chief():
    ctx = det.core.DistributedContext(rank=0, size=1, local_rank=0, local_size=1, cross_rank=0, cross_size=1)
    assert ctx.allgather("x") == ["x"] and ctx.gather(1) == [1] and ctx.broadcast(2) == 2


def test_several_workers_need_the_chiefs_address():
    with pytest.raises(ValueError, match="chief_ip"):
        det.core.DistributedContext(rank=0, size=2, local_rank=0, local_size=2, cross_rank=0, cross_size=1)


def test_wrap_rank_prefixes_each_line_and_keeps_the_exit_status():
    proc = subprocess.run(
        [sys.executable, "-m", "determined.launch.wrap_rank", "3", "--", sys.executable, "-c",
         "import sys; print('a'); print('b'); print('c', file=sys.stderr); sys.exit(4)"],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 4
    assert proc.stdout == "[rank=3] a\n[rank=3] b\n"
    assert proc.stderr == "[rank=3] c\n"


def test_torch_distributed_runs_one_worker_per_slot_on_every_container():
    info = det.ClusterInfo(
        master_url="http://m:8080", cluster_id="c", agent_id="a2", slot_ids=[0, 1], task_id="1.1",
        allocation_id="1.1.1", session_token="t", task_type="TRIAL",
        rendezvous_info=det.RendezvousInfo(["10.0.0.1", "10.0.0.2"], 1, [2, 2]))
    cmd, env = torch_distributed.build_command(info, ["--max_restarts", "0", "--", "python3", "train.py"])
    joined = " ".join(cmd)
    assert "--nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr 10.0.0.1" in joined
    assert "--max_restarts 0" in joined
    assert joined.endswith("-m determined.launch.wrap_rank RANK -- python3 train.py")
    assert env["DET_CHIEF_IP"] == "10.0.0.1"
    # Every container derives the same ports from the allocation.
    again, env2 = torch_distributed.build_command(info, ["python3", "train.py"])
    assert env2["DET_CHIEF_PORT"] == env["DET_CHIEF_PORT"]
    assert again[again.index("--master_port") + 1] == cmd[cmd.index("--master_port") + 1]


def test_torch_distributed_ports_stay_below_the_ephemeral_range():
    for n in range(5000):
        torch_port, chief_port = torch_distributed._ports(f"{n}.{n % 7}.1")
        assert 29500 <= torch_port and chief_port == torch_port + 1 and chief_port < 32768


def shard_worker(rank, port, storage, out):
    dist = det.core.DistributedContext(rank=rank, size=2, local_rank=rank, local_size=2, cross_rank=0,
                                       cross_size=1, chief_ip="127.0.0.1", pub_port=port)
    try:
        with det.core._dummy_init(distributed=dist, checkpoint_storage=str(storage)) as ctx:
            with ctx.checkpoint.store_path({"steps_completed": 7, f"rank{rank}": True}, shard=True) as (path, uuid):
                (path / f"part-{rank}.bin").write_bytes(b"x" * (rank + 1))
            out.put((rank, uuid, str(path)))
    except Exception as e:  # reported to the test
        out.put((rank, "error", str(e)))
        dist.close()


def run_shards(tmp_path):
    port = free_port()
    mp = multiprocessing.get_context("fork")
    out = mp.Queue()
    procs = [mp.Process(target=shard_worker, args=(r, port, tmp_path, out)) for r in range(2)]
    for p in procs:
        p.start()
    results = {}
    for _ in procs:
        rank, uuid, detail = out.get(timeout=60)
        results[rank] = (uuid, detail)
        if uuid == "error":
            break
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()
    return results


def test_a_sharded_checkpoint_holds_every_workers_files_and_metadata(tmp_path):
    import json
    results = run_shards(tmp_path)
    assert results[0][0] == results[1][0] and results[0][0] != "error", results
    path = tmp_path / results[0][0]
    assert sorted(p.name for p in path.iterdir()) == ["metadata.json", "part-0.bin", "part-1.bin"]
    assert json.loads((path / "metadata.json").read_text()) == {"steps_completed": 7, "rank0": True, "rank1": True}

