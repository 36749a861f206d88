"""
``python3 -m determined.launch.torch_distributed [TORCHRUN_ARGS...] [--] CMD ARGS...`` starts one worker per
slot of the trial with torch.distributed's launcher (``torch.distributed.run``, alias ``torchrun``): on every
container (one per agent) of the allocation, with the chief container's address as the rendezvous point. Each
worker's output lines are prefixed with ``[rank=N] ``. TORCHRUN_ARGS are passed to torchrun and override this
launcher's (``--nproc_per_node 1``, ``--master_port 29500``, ...). Workers build their Core API context with
``det.core.DistributedContext.from_torch_distributed()``.
"""
import os
import signal
import subprocess
import sys
import zlib
from typing import List, Tuple

import determined as det


def _split(argv: List[str]) -> Tuple[List[str], List[str]]:
    """(torchrun overrides, the worker command): split at "--", else the command starts at the first
    argument that is not an option or an option's value."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    overrides: List[str] = []
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        overrides.append(argv[i])
        if "=" not in argv[i] and i + 1 < len(argv):
            overrides.append(argv[i + 1])
            i += 1
        i += 1
    return overrides, argv[i:]


def _needs_stream_workaround() -> bool:
    """torch 1.13's launcher fails under Python 3.11 unless --redirects/--tee name a rank (Std.NONE is
    skipped by 3.11's IntFlag iteration); a mapping for a rank that does not exist is harmless."""
    if sys.version_info < (3, 11):
        return False
    try:
        import importlib.metadata

        return importlib.metadata.version("torch").startswith("1.")
    except Exception:
        return True


# The derived ports stay below Linux's default ephemeral range (net.ipv4.ip_local_port_range starts at
# 32768): a port in that range can already be some outgoing connection's source port on a busy host, and
# torch's rendezvous then fails with EADDRINUSE. Every container must derive the same ports, so the bound
# is a constant rather than each host's own setting.
_FIRST_PORT = 29500
_EPHEMERAL_FLOOR = 32768


def _ports(allocation_id: str) -> Tuple[int, int]:
    """(torch's rendezvous port, the Core API chief's port), the same on every container of the allocation and
    unlikely to collide with another allocation's on the same host."""
    pairs = (_EPHEMERAL_FLOOR - _FIRST_PORT) // 2
    base = _FIRST_PORT + (zlib.crc32(allocation_id.encode()) % pairs) * 2
    return base, base + 1


def build_command(info: "det.ClusterInfo", argv: List[str]) -> Tuple[List[str], dict]:
    overrides, cmd = _split(argv)
    if not cmd:
        raise SystemExit("torch_distributed: no command given; usage: "
                         "python3 -m determined.launch.torch_distributed [TORCHRUN_ARGS] -- python3 train.py")
    torch_port, chief_port = _ports(info.allocation_id)
    chief = info.container_addrs[0]
    launcher = [
        sys.executable, "-m", "torch.distributed.run",
        "--nnodes", str(len(info.container_addrs)),
        "--nproc_per_node", str(max(len(info.slot_ids), 1)),
        "--node_rank", str(info.container_rank),
        "--master_addr", chief,
        "--master_port", str(torch_port),
    ]
    if _needs_stream_workaround() and not any(a.split("=")[0] in ("--redirects", "--tee", "-r", "-t")
                                              for a in overrides):
        launcher += ["--redirects", "9:1", "--tee", "9:1"]
    launcher += overrides
    launcher += ["--no_python", sys.executable, "-m", "determined.launch.wrap_rank", "RANK", "--", *cmd]
    env = dict(os.environ)
    env.update({"DET_CHIEF_IP": chief, "DET_CHIEF_PORT": str(chief_port), "USE_TORCH_DISTRIBUTED": "True"})
    return launcher, env


def main(argv: List[str]) -> int:
    info = det.get_cluster_info()
    if info is None:
        raise SystemExit("torch_distributed: not running on a Determined cluster (no task environment)")
    launcher, env = build_command(info, argv)
    print("torch_distributed: " + " ".join(launcher), flush=True)
    proc = subprocess.Popen(launcher, env=env)
    signal.signal(signal.SIGTERM, lambda signum, _: proc.send_signal(signum))
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
