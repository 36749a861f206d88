"""Determined 0.38.1's own Python client (../shared/upstream-client, or DET_UPSTREAM_CLIENT), as a test client.

The suites that drive the stock `det`, SDK and bindings import this module. Where no such client is
installed (a user's fresh clone), `require_client()` skips them with a message that says where it looked.

`check_reply(binding, value, where)` checks one reply against the class of upstream's generated
`bindings.py` that upstream's client decodes it with, the way grpc-gateway would have written it:
- every field that class requires is present, with a value of its type (int, str, float, bool, enum
  value of *that* enum, nested messages recursively);
- every repeated and map field is present and not null: proto3 cannot make them optional, so upstream
  always sends them ([] and {} when empty), and the client iterates them without a check;
- a string field named as a time (`startTime`, `modifiedAt`, `timestamp`, ...) holds an RFC 3339 timestamp
  (google.protobuf.Timestamp as jsonpb writes it; bindings.py types it as a plain str);
- the class's own `from_json` decodes it.
Each problem names the place (`where`), the path of the field and the value.
"""
import functools
import re
import importlib
import inspect
import os
import pathlib
import subprocess
import sys
import typing

import pytest

REPO = pathlib.Path(os.environ.get("DET_REPO_ROOT", pathlib.Path(__file__).resolve().parents[2]))


def _client_root():
    return pathlib.Path(os.environ.get("DET_UPSTREAM_CLIENT") or REPO.parent / "shared" / "upstream-client")


def _find_site():
    """The folder holding the client's `determined` package: DET_UPSTREAM_CLIENT when set (a folder with
    site/determined, as ../shared/upstream-client, or a site-packages folder with determined/), else
    ../shared/upstream-client/site beside the repository. None when it holds no client."""
    for site in (_client_root() / "site", _client_root()):
        if (site / "determined" / "common" / "api" / "bindings.py").is_file():
            return site.resolve()
    return None


def installed():
    """Whether the client is there (for suites of our own that also try it where it is)."""
    return _find_site() is not None


def require_client():
    """The client's folder (DET_UPSTREAM_CLIENT or ../shared/upstream-client); skips the calling test (or
    module, at module level) when it holds no client."""
    if _find_site() is None:
        pytest.skip("Determined 0.38.1's client is not installed: set DET_UPSTREAM_CLIENT to its folder "
                    "(with site/determined) or put it at ../shared/upstream-client", allow_module_level=True)
    return _client_root().resolve()


def site_dir():
    """The folder to put on PYTHONPATH so that `import determined` loads the client's package."""
    require_client()
    return _find_site()


@functools.lru_cache(maxsize=None)
def bindings():
    """Upstream's `determined.common.api.bindings`, imported from the client's site/ (not our package)."""
    site = str(site_dir())
    for name in [m for m in sys.modules if m == "determined" or m.startswith("determined.")]:
        del sys.modules[name]  # ours, if a test imported it first
    sys.path.insert(0, site)
    module = importlib.import_module("determined.common.api.bindings")
    assert module.__file__.startswith(site), f"imported {module.__file__}, not the upstream client's"
    return module


def stock_det(master, *args, user="determined", password="", check=True, timeout=300, env=None, input=None):
    """Runs upstream's own `det` CLI (not ours) against `master`; returns the CompletedProcess."""
    full_env = dict(os.environ, DET_MASTER=master, DET_USER=user, DET_PASS=password,
                    PYTHONPATH=str(site_dir()))
    full_env.update(env or {})
    proc = subprocess.run(["/usr/bin/python3", "-m", "determined.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=full_env, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"stock det {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


# ---------------------------------------------------------------------------------------------
# Reply checking against the generated classes.

def _strip_optional(tp):
    """(inner type, whether None is allowed) of `Union[X, None, Unset]`."""
    if typing.get_origin(tp) is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None) and a.__name__ != "Unset"]
        inner = args[0] if len(args) == 1 else typing.Union[tuple(args)]
        return inner, True
    return tp, False


@functools.lru_cache(maxsize=None)
def _fields(cls):
    """{json name: (type, required)} of a generated message class, from its constructor."""
    module = bindings()
    hints = typing.get_type_hints(cls.__init__, globalns=vars(module))
    params = inspect.signature(cls.__init__).parameters
    return {name: (hints[name], params[name].default is inspect.Parameter.empty)
            for name in params if name != "self"}


def _is_collection(tp):
    """A repeated or map field. A google.protobuf.Struct (Dict[str, Any]) is a message: null when unset."""
    origin = typing.get_origin(tp)
    if origin is None or origin.__name__ not in ("Sequence", "list", "dict"):
        return False
    return not (origin.__name__ == "dict" and typing.get_args(tp)[1] is typing.Any)


RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})")
TIME_FIELD = re.compile(r"(Time|At|^timestamp|Timestamp)$")


def _problems(tp, value, path):
    module = bindings()
    tp, nullable = _strip_optional(tp)
    if tp is typing.Any:
        return
    if value is None:
        if not nullable:
            yield f"{path}: null where upstream always sends a {getattr(tp, '__name__', tp)}"
        return
    origin = typing.get_origin(tp)
    if origin is not None and origin.__name__ in ("Sequence", "list"):
        if not isinstance(value, list):
            yield f"{path}: {value!r} is not a JSON array"
            return
        (item,) = typing.get_args(tp)
        for i, v in enumerate(value):
            yield from _problems(item, v, f"{path}[{i}]")
        return
    if origin is not None and origin.__name__ == "dict":
        if not isinstance(value, dict):
            yield f"{path}: {value!r} is not a JSON object"
            return
        _, item = typing.get_args(tp)
        for k, v in value.items():
            yield from _problems(item, v, f"{path}[{k!r}]")
        return
    if origin is typing.Union:  # a oneof of types: any one that fits
        return
    if isinstance(tp, type) and issubclass(tp, module.DetEnum):
        allowed = [e.value for e in tp]
        if value not in allowed:
            yield f"{path}: {value!r} is not a value of {tp.__name__} ({', '.join(allowed)})"
        return
    if isinstance(tp, type) and issubclass(tp, module.Printable):
        if not isinstance(value, dict):
            yield f"{path}: {value!r} is not a {tp.__name__} object"
            return
        for name, (ftype, required) in _fields(tp).items():
            if name not in value:
                if required:
                    yield f"{path}.{name}: missing (required by {tp.__name__})"
                elif _is_collection(_strip_optional(ftype)[0]):
                    yield f"{path}.{name}: missing (a repeated or map field of {tp.__name__}: upstream always sends it)"
                continue
            if value[name] is None and not required and _is_collection(_strip_optional(ftype)[0]):
                yield f"{path}.{name}: null (a repeated or map field of {tp.__name__}: [] or {{}} when empty)"
                continue
            yield from _problems(ftype if required else typing.Optional[ftype], value[name], f"{path}.{name}")
        return
    if tp is bool:
        if not isinstance(value, bool):
            yield f"{path}: {value!r} is not a JSON boolean"
    elif tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            yield f"{path}: {value!r} is not a JSON number (an int32)"
    elif tp is float:
        if isinstance(value, bool) or not (isinstance(value, (int, float)) or value in ("NaN", "Infinity", "-Infinity")):
            yield f"{path}: {value!r} is not a JSON number"
    elif tp is str:
        if not isinstance(value, str):
            yield f"{path}: {value!r} is not a JSON string"
        elif TIME_FIELD.search(path.rsplit(".", 1)[-1]) and not RFC3339.fullmatch(value):
            yield f"{path}: {value!r} is not an RFC 3339 timestamp"


def reply_problems(binding, value, where):
    """Every problem of `value` as a reply of the generated class named `binding` (e.g. "v1GetAgentsResponse")."""
    cls = getattr(bindings(), binding)
    problems = list(_problems(cls, value, where))
    if not problems:
        try:
            cls.from_json(value)
        except Exception as e:  # what the stock client would raise
            problems.append(f"{where}: {binding}.from_json raised {type(e).__name__}: {e}")
    return problems


def check_reply(binding, value, where):
    problems = reply_problems(binding, value, where)
    assert not problems, "\n".join(problems[:30])
