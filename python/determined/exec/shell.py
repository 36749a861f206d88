"""
``python3 -m determined.exec.shell``: the program a shell task runs (docs/interactive.md).

It runs an sshd of its own on a free port, letting in the key DET_SHELL_AUTHORIZED_KEY for the user
this program runs as (only that user), forwards sshd's output to the task log, reports
``POST /api/v1/allocations/{DET_ALLOCATION_ID}/ready {"port": P}`` once sshd listens, and ends sshd
and its sessions on SIGTERM. The exit status is sshd's (0 after SIGTERM).

Everything lives in a private directory (mode 700), ``.det-sshd`` in the task directory (DET_WORKDIR,
else the working directory): the host key (``ssh-keygen -t ed25519``), ``authorized_keys``,
``sshd_config`` and the pid file. Works as root (``/run/sshd`` is created, mode 755) and as any
other user.

SSH sessions get the task's environment: every variable of this process's environment goes into
``environment="K=V"`` options of the authorized key (``PermitUserEnvironment yes``) except
``SESSION_ENV_EXCLUDED``, which sshd sets for the session itself or which describe this process
rather than the session (see ``session_env``). Sessions start in the user's home directory, as sshd
always does (only ``ChrootDirectory`` or a forced command could change that, and both break things:
scp/sftp, login shells); ``cd $DET_WORKDIR`` goes to the task directory. A login shell reads
/etc/profile, which on Debian resets PATH; commands (``ssh host CMD``) keep the task's PATH.
"""
import os
import pwd
import re
import shutil
import subprocess
import sys
from typing import Dict, List, Mapping, Optional, Tuple

from determined.exec import _runner

SSHD = "/usr/sbin/sshd"

# Set by sshd for each session from the user's passwd entry and the client (TERM, DISPLAY), stale in
# a session (the runner's PWD, OLDPWD, SHLVL, _ of the shell that started it, SSH_* of a session that
# started it), or of no use there (the key itself).
SESSION_ENV_EXCLUDED = frozenset({
    "HOME", "USER", "LOGNAME", "SHELL", "MAIL", "TERM", "DISPLAY", "PWD", "OLDPWD", "SHLVL", "_",
    "DET_SHELL_AUTHORIZED_KEY",
})
SESSION_ENV_EXCLUDED_PREFIXES = ("SSH_",)

_NAME = re.compile(r"[A-Za-z0-9_]+\Z")  # what sshd accepts as a name in environment="..."


def quote_option_value(value: str) -> Optional[str]:
    """``value`` as the inside of a double-quoted authorized_keys option, or None where sshd
    cannot read it back: sshd's only escape is ``\\"`` for ``"`` (a backslash before anything
    else is kept as is), so a value ending in a backslash, or holding a newline or NUL, cannot be
    written."""
    if "\n" in value or "\r" in value or "\0" in value or value.endswith("\\"):
        return None
    return value.replace('"', '\\"')


def session_env(environ: Mapping[str, str]) -> Tuple[Dict[str, str], List[str]]:
    """The variables SSH sessions get, and the names of those left out because sshd cannot carry
    them (a name other than letters, digits and ``_``; a value ``quote_option_value`` refuses)."""
    env: Dict[str, str] = {}
    skipped: List[str] = []
    for name in sorted(environ):
        if name in SESSION_ENV_EXCLUDED or name.startswith(SESSION_ENV_EXCLUDED_PREFIXES):
            continue
        if _NAME.match(name) and quote_option_value(environ[name]) is not None:
            env[name] = environ[name]
        else:
            skipped.append(name)
    return env, skipped


def authorized_keys_line(public_key: str, env: Mapping[str, str]) -> str:
    """One authorized_keys line: ``environment="K=V",... KEYTYPE BASE64 [COMMENT]``. ``env`` must
    hold only what ``session_env`` lets through (a bad entry would void the whole line)."""
    options = []
    for name, value in env.items():
        quoted = quote_option_value(value)
        if not _NAME.match(name) or quoted is None:
            raise ValueError(f"environment variable {name!r} cannot be written into authorized_keys")
        options.append(f'environment="{name}={quoted}"')
    key = public_key.strip()
    return f"{','.join(options)} {key}\n" if options else f"{key}\n"


def _config_path(path: str) -> str:
    return f'"{path}"' if " " in path else path


def sshd_config(port: int, state_dir: str, user: str) -> str:
    """sshd_config text: key authentication only, for ``user`` only, files in ``state_dir``."""
    d = state_dir
    lines = [
        f"Port {port}",
        "ListenAddress 0.0.0.0",
        f"HostKey {_config_path(os.path.join(d, 'ssh_host_ed25519_key'))}",
        # AuthorizedKeysFile expands %-tokens, so a literal % is written %%.
        f"AuthorizedKeysFile {_config_path(os.path.join(d, 'authorized_keys').replace('%', '%%'))}",
        f"PidFile {_config_path(os.path.join(d, 'sshd.pid'))}",
        # As root the one AuthorizedKeysFile would let the key in as every user: only ours.
        f"AllowUsers {user}",
        "PermitRootLogin prohibit-password",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PermitUserEnvironment yes",
        "UsePAM no",
        "StrictModes no",
        "PrintMotd no",
        "PrintLastLog no",
        "X11Forwarding no",
        "Subsystem sftp internal-sftp",
    ]
    return "\n".join(lines) + "\n"


def prepare(state_dir: str, port: int, public_key: str,
            environ: Mapping[str, str]) -> Tuple[str, List[str]]:
    """Writes the host key, authorized_keys and sshd_config into ``state_dir`` (created, mode 700);
    returns the config's path and the variables left out of sessions."""
    os.makedirs(state_dir, mode=0o700, exist_ok=True)
    os.chmod(state_dir, 0o700)
    host_key = os.path.join(state_dir, "ssh_host_ed25519_key")
    for path in (host_key, host_key + ".pub"):
        if os.path.exists(path):
            os.remove(path)  # ssh-keygen would ask whether to overwrite
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "determined-shell",
                    "-f", host_key], check=True, stdin=subprocess.DEVNULL)
    env, skipped = session_env(environ)
    user = pwd.getpwuid(os.geteuid()).pw_name
    files = {"authorized_keys": authorized_keys_line(public_key, env),
             "sshd_config": sshd_config(port, state_dir, user)}
    for name, text in files.items():
        fd = os.open(os.path.join(state_dir, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
    if os.geteuid() == 0:
        # sshd as root wants its privilege separation directory, owned by root, not writable by others.
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        os.chmod("/run/sshd", 0o755)
    return os.path.join(state_dir, "sshd_config"), skipped


def main() -> int:
    """Runs the shell task; returns sshd's exit status (1 when the master refused ready)."""
    env = _runner.require_env(["DET_MASTER", "DET_ALLOCATION_ID", "DET_SESSION_TOKEN",
                               "DET_SHELL_AUTHORIZED_KEY"])
    master = _runner.MasterClient.from_env()
    if not os.access(SSHD, os.X_OK) or shutil.which("ssh-keygen") is None:
        sys.exit(f"[runner] {SSHD} or ssh-keygen is missing (install Debian's openssh-server)")
    port = _runner.free_port()
    state_dir = os.path.join(os.environ.get("DET_WORKDIR") or os.getcwd(), ".det-sshd")
    config, skipped = prepare(state_dir, port, env["DET_SHELL_AUTHORIZED_KEY"], os.environ)
    if skipped:
        _runner.log(f"not set in SSH sessions (sshd cannot carry these values): {', '.join(skipped)}")
    cmd = [SSHD, "-D", "-e", "-f", config]
    return _runner.run_server("sshd", cmd, port, "Server listening on", master, env["DET_ALLOCATION_ID"],
                              grace=5.0, whole_tree_at_once=True)


if __name__ == "__main__":
    sys.exit(main())
