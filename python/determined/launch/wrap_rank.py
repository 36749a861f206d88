"""
``python3 -m determined.launch.wrap_rank RANK -- CMD ARGS...`` runs CMD and prefixes every line it prints
(stdout and stderr, each to its own stream) with ``[rank=RANK] ``. RANK is a number, or the name of an
environment variable holding one (``RANK``, ``LOCAL_RANK``). The exit status is CMD's.
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
from typing import IO, List


def _rank(value: str) -> int:
    if value.isdigit():
        return int(value)
    env = os.environ.get(value)
    if env is None or not env.isdigit():
        raise SystemExit(f"wrap_rank: {value} is neither a rank nor an environment variable holding one")
    return int(env)


def _copy(src: IO[bytes], dst: IO[bytes], prefix: bytes) -> None:
    for line in iter(src.readline, b""):
        dst.write(prefix + line)
        dst.flush()


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m determined.launch.wrap_rank",
                                     description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rank", help="the rank, or an environment variable holding it")
    parser.add_argument("cmd", nargs=argparse.REMAINDER, help="the command to run (after --)")
    args = parser.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("no command given")
    prefix = f"[rank={_rank(args.rank)}] ".encode()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    signal.signal(signal.SIGTERM, lambda signum, _: proc.send_signal(signum))
    copiers = [threading.Thread(target=_copy, args=(proc.stdout, sys.stdout.buffer, prefix)),
               threading.Thread(target=_copy, args=(proc.stderr, sys.stderr.buffer, prefix))]
    for t in copiers:
        t.start()
    code = proc.wait()
    for t in copiers:
        t.join()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
