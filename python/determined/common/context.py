"""Packs a model definition for ``POST /api/v1/experiments`` as ``det experiment create`` does
(upstream's ``determined.common.context.read_v1_context``):

- context files get paths relative to the context root; a directory is its own entry (tar type
  53, files type 48), content base64, ``mtime`` seconds as a string, ``mode`` the st_mode;
- an included directory appears under its basename (with an entry for itself), an included file
  under its name;
- each walked root honors its own ``.detignore`` (git wildmatch) plus upstream's default
  ignores; ``.detignore`` files themselves are left out; symlinked directories are listed but
  not followed;
- the decoded total must stay within 95 MiB (upstream's 96 MiB - 1 MiB).
"""

import base64
import os
import pathlib
import re
import stat
from typing import Any, Dict, Iterable, List, Optional, Pattern, Tuple, Union

MAX_CONTEXT_SIZE = 95 * 1024 * 1024

FILE_TYPE_REGULAR = 48  # tar '0'
FILE_TYPE_DIRECTORY = 53  # tar '5'

DEFAULT_DETIGNORE = [
    "__pycache__/", "*.py[co]", "*$py.class", "terraform", "terraform_data", "terraform.tfstate*",
    "terraform.tfvars*", ".terraform*", ".git/", ".vscode/", ".idea/", ".mypy_cache/",
    "/shared_fs",
]

_REGEX_SPECIAL = set(".^$|()[]{}*+?\\/")


def _literal(c: str) -> str:
    return "\\" + c if c in _REGEX_SPECIAL else c


def _translate_segment_glob(pattern: str) -> str:
    out, escape, i, end = "", False, 0, len(pattern)
    while i < end:
        c = pattern[i]
        i += 1
        if escape:
            escape = False
            out += _literal(c)
        elif c == "\\":
            escape = True
        elif c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            j = i
            if j < end and pattern[j] in "!^":
                j += 1
            if j < end and pattern[j] == "]":
                j += 1  # a leading ']' is literal
            while j < end and pattern[j] != "]":
                j += 1
            if j < end:
                j += 1
                expr, k = "[", i
                if pattern[k] in "!^":
                    expr += "^"
                    k += 1
                for ch in pattern[k: j - 1]:
                    expr += ("\\" + ch) if ch in "\\[]" else ch
                out += expr + "]"
                i = j
            else:
                out += "\\["  # unterminated: a literal '['
        else:
            out += _literal(c)
    return out


def _pattern_to_regex(pattern: str) -> Tuple[str, bool]:
    """(regex, ignores) for one .detignore line; regex "" for lines that match nothing."""
    pattern = pattern.rstrip("\r\n")
    while pattern.endswith(" ") and not pattern.endswith("\\ "):
        pattern = pattern[:-1]
    if not pattern or pattern.startswith("#") or pattern == "/":
        return "", True
    ignores = True
    if pattern.startswith("!"):
        ignores = False
        pattern = pattern[1:]
    if pattern.startswith("\\"):
        pattern = pattern[1:]
    if not pattern:
        return "", ignores
    segs = pattern.split("/")
    if segs[0] == "":
        segs = segs[1:]  # a leading '/' anchors the pattern to the root
    elif len(segs) == 1 or (len(segs) == 2 and segs[1] == ""):
        if segs[0] != "**":
            segs.insert(0, "**")  # a bare name matches at any depth
    if not segs:
        return "", ignores
    if len(segs) > 1 and segs[-1] == "":
        segs[-1] = "**"  # a trailing '/': the directory's contents
    out, need_slash, last = "^", False, len(segs) - 1
    for i, seg in enumerate(segs):
        if seg == "**":
            if i == 0 and i == last:
                out += ".+"
            elif i == 0:
                out += "(?:.+/)?"
                need_slash = False
            elif i == last:
                out += "/.*"
            else:
                out += "(?:/.+)?"
                need_slash = True
        else:
            if need_slash:
                out += "/"
            out += "[^/]+" if seg == "*" else _translate_segment_glob(seg)
            if i == last:
                out += "(?:/.*)?"
            need_slash = True
    return out + "$", ignores


class DetIgnore:
    """Git-wildmatch ignore rules; the last matching pattern decides."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._rules: List[Tuple[Pattern[str], bool]] = []
        for line in lines:
            regex, ignores = _pattern_to_regex(line)
            if not regex:
                continue
            try:
                self._rules.append((re.compile(regex), ignores))
            except re.error:
                pass  # a pattern we cannot compile matches nothing

    @classmethod
    def for_root(cls, root: pathlib.Path) -> "DetIgnore":
        lines = list(DEFAULT_DETIGNORE)
        f = root / ".detignore"
        if f.is_file():
            lines.extend(f.read_text().split("\n"))
        return cls(lines)

    def matches(self, rel: str) -> bool:
        matched = False
        for regex, ignores in self._rules:
            if regex.match(rel):
                matched = ignores
        return matched

    def ignores(self, rel: str, is_dir: bool) -> bool:
        return self.matches(rel) or (is_dir and self.matches(rel + "/"))


def _entry(path: str, st: os.stat_result, content: Optional[bytes]) -> Dict[str, Any]:
    return {
        "path": path,
        "type": FILE_TYPE_DIRECTORY if content is None else FILE_TYPE_REGULAR,
        "content": "" if content is None else base64.b64encode(content).decode("ascii"),
        "mtime": str(int(st.st_mtime)),
        "mode": st.st_mode,
        "uid": 0,
        "gid": 0,
    }


class _Planner:
    def __init__(self) -> None:
        self.planned: List[Tuple[str, os.stat_result, Optional[pathlib.Path]]] = []
        self.total = 0

    def add_dir(self, path: str, st: os.stat_result) -> None:
        self.planned.append((path, st, None))

    def add_file(self, path: str, source: pathlib.Path, st: os.stat_result) -> None:
        self.planned.append((path, st, source))
        self.total += st.st_size

    def walk(self, root: pathlib.Path, prefix: str) -> None:
        self._walk_dir(root, "", prefix, DetIgnore.for_root(root))

    def _walk_dir(self, d: pathlib.Path, rel_dir: str, prefix: str, ignore: DetIgnore) -> None:
        subdirs = []
        for e in sorted(os.scandir(d), key=lambda e: e.name):
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            full = f"{prefix}/{rel}" if prefix else rel
            if e.is_dir():  # follows links, as os.walk's listing does
                if ignore.ignores(rel, True):
                    continue
                self.add_dir(full, os.stat(e.path))
                if not e.is_symlink():
                    subdirs.append((pathlib.Path(e.path), rel))
                continue
            if e.name == ".detignore" or ignore.ignores(rel, False):
                continue
            try:
                st = os.stat(e.path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                self.add_file(full, pathlib.Path(e.path), st)
        for path, rel in subdirs:
            self._walk_dir(path, rel, prefix, ignore)


def read_v1_context(
    context_root: Optional[Union[str, pathlib.Path]],
    includes: Iterable[Union[str, pathlib.Path]] = (),
    limit: int = MAX_CONTEXT_SIZE,
) -> List[Dict[str, Any]]:
    """The model definition (upstream's ``[]File`` JSON) of ``context_root`` plus ``includes``."""
    planner = _Planner()
    if context_root is not None:
        root = pathlib.Path(context_root)
        if not root.exists():
            raise ValueError(f"context directory '{root}' doesn't exist")
        if not root.is_dir():
            raise ValueError(f"context path '{root}' must be a directory, maybe use includes instead?")
        planner.walk(root.resolve(), "")
    for inc in includes:
        resolved = pathlib.Path(inc).resolve()
        if not resolved.exists():
            raise ValueError(f"include path '{inc}' doesn't exist")
        st = os.stat(resolved)
        if stat.S_ISDIR(st.st_mode):
            planner.add_dir(resolved.name, st)
            planner.walk(resolved, resolved.name)
        else:
            planner.add_file(resolved.name, resolved, st)
    tops: Dict[str, int] = {}
    for path, _, _ in planner.planned:
        if "/" not in path:
            tops[path] = tops.get(path, 0) + 1
    for name, n in tops.items():
        if n > 1:
            raise ValueError(f"duplicate path detected: '{name}'")
    if planner.total > limit:
        raise ValueError(
            f"the context directory and included files total {planner.total} bytes, more than the "
            f"maximum allowed size of {limit} bytes; list files or subdirectories to leave out in "
            "a .detignore file")
    out = []
    for path, st, source in planner.planned:
        if source is None:
            out.append(_entry(path, st, None))
            continue
        try:
            content = source.read_bytes()
        except OSError:
            continue  # unreadable: skipped, as the CLI does
        out.append(_entry(path, st, content))
    return out
