"""
The files of a PyTorchTrial checkpoint, in upstream Determined's layout:

* ``state_dict.pth`` (``torch.save``): ``models_state_dict``, ``optimizers_state_dict``,
  ``lr_schedulers_state_dict`` (lists, in wrapping order), ``callbacks`` (name -> state),
  ``rng_state`` (``cpu_rng_state``, ``np_rng_state``, ``random_rng_state``, ``gpu_rng_state``),
  and ``scaler_state_dict`` when a GradScaler is wrapped;
* ``trial_state.pkl``: the training position (``batches_trained``, ``epochs_trained``, ...);
* ``load_data.json``: what :func:`load_trial_from_checkpoint_path` needs to rebuild the trial
  (``trial_type``, ``experiment_config``, ``hparams``, ``trial_cls_spec``, ``is_trainer``);
* ``code/``: a copy of the code that defines the trial class.
"""

import collections
import inspect
import json
import logging
import os
import pathlib
import pickle
import random
import shutil
import site
import sys
import sysconfig
from typing import Any, Callable, Dict, List, Optional, Tuple, Type

import numpy as np
import torch
from torch import nn

from determined import util
from determined.common.context import DetIgnore
from determined.pytorch._callback import PyTorchCallback
from determined.pytorch._trial import PyTorchTrial
from determined.pytorch._trial_context import PyTorchTrialContext

logger = logging.getLogger("determined.pytorch")

STATE_DICT_FILE = "state_dict.pth"
TRIAL_STATE_FILE = "trial_state.pkl"
LOAD_DATA_FILE = "load_data.json"
CODE_DIR = "code"
# Not an upstream key (upstream ignores unknown keys): the seed of DataLoader(shuffle=True)'s own
# shuffle, so that a resumed trial sees the batches it would have seen.
DATA_SEED_KEY = "determined_training_data_seed"

# The code directory is copied only below these limits: off-cluster it is usually the script's
# directory but may be a large project, and on a cluster data may be mounted into it.
_MAX_CODE_BYTES = 100 * 1024 * 1024
_MAX_CODE_FILES = 5000


class TrialState:
    """The training position saved in ``trial_state.pkl`` (upstream's field names)."""

    def __init__(
        self,
        trial_id: int = 0,
        last_ckpt: int = 0,
        step_id: int = 0,
        last_val: int = 0,
        batches_trained: int = 0,
        epochs_trained: int = 0,
    ) -> None:
        self.trial_id = trial_id
        self.last_ckpt = last_ckpt
        self.step_id = step_id
        self.last_val = last_val
        self.batches_trained = batches_trained
        self.epochs_trained = epochs_trained

    def to_dict(self) -> Dict[str, int]:
        return dict(vars(self))


def trial_class_spec(trial_cls: type) -> Tuple[str, bool]:
    """``("module:QualName", defined_in_main)``; a class of the entrypoint script is named by the
    script's file name, as the importable module it probably is."""
    module = trial_cls.__module__
    in_main = module == "__main__"
    if in_main:
        main_file = getattr(sys.modules.get("__main__"), "__file__", None)
        module = pathlib.Path(main_file).stem if main_file else ""
    return f"{module}:{trial_cls.__qualname__}", in_main


def _code_root(trial_cls: type) -> Optional[pathlib.Path]:
    """The directory from which the trial's module is importable (off-cluster)."""
    module_name = trial_cls.__module__
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if not file:
        return None
    root = pathlib.Path(file).resolve().parent
    depth = 0 if module_name == "__main__" else module_name.count(".")
    if pathlib.Path(file).name == "__init__.py":
        depth += 1
    for _ in range(depth):
        root = root.parent
    return root


def _is_installed_location(path: pathlib.Path) -> bool:
    prefixes = {sysconfig.get_paths().get(k) for k in ("purelib", "platlib", "stdlib")}
    prefixes.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    for prefix in filter(None, prefixes):
        try:
            path.relative_to(pathlib.Path(prefix).resolve())
            return True
        except ValueError:
            continue
    return False


def _ignore_function(root: pathlib.Path) -> Callable[[str, List[str]], List[str]]:
    """shutil.copytree's ``ignore``: the root's ``.detignore`` (itself left out) and the default
    ignores, as ``det experiment create`` packs a context directory."""
    detignore = DetIgnore.for_root(root)

    def ignore(directory: str, names: List[str]) -> List[str]:
        rel_dir = os.path.relpath(directory, root)
        return [
            name
            for name in names
            if name == ".detignore"
            or detignore.ignores(
                os.path.normpath(os.path.join(rel_dir, name)), os.path.isdir(os.path.join(directory, name))
            )
        ]

    return ignore


def _small_enough(root: pathlib.Path, ignore: Callable[[str, List[str]], List[str]]) -> bool:
    total, count = 0, 0
    for directory, dirs, files in os.walk(root):
        dropped = set(ignore(directory, dirs + files))
        dirs[:] = [d for d in dirs if d not in dropped]
        for name in files:
            if name in dropped:
                continue
            count += 1
            try:
                total += os.path.getsize(os.path.join(directory, name))
            except OSError:
                pass
            if count > _MAX_CODE_FILES or total > _MAX_CODE_BYTES:
                return False
    return True


def write_user_code(path: pathlib.Path, trial_cls: type, on_cluster: bool) -> None:
    """
    Copies the trial's code into ``path/code``: on a cluster the task's working directory (the
    experiment's context directory); off-cluster the directory the trial's module is imported from,
    unless it is an installed package. A directory that is too large is not copied (a warning, and
    no ``code/``).
    """
    code_path = path / CODE_DIR
    if code_path.exists():
        shutil.rmtree(code_path)
    root = pathlib.Path.cwd() if on_cluster else _code_root(trial_cls)
    if root is None:
        logger.warning("the trial's code has no file to copy; the checkpoint has no code/ directory")
        return
    if not on_cluster and _is_installed_location(root):
        logger.info(f"not copying installed code from {root} into the checkpoint")
        return
    ignore = _ignore_function(root)
    if not _small_enough(root, ignore):
        logger.warning(
            f"{root} holds more than {_MAX_CODE_FILES} files or {_MAX_CODE_BYTES >> 20} MiB; not "
            "copying it into the checkpoint's code/ directory (add a .detignore to trim it)"
        )
        return
    shutil.copytree(root, code_path, ignore=ignore, symlinks=True)
    os.chmod(code_path, 0o755)


def _rng_state(context: PyTorchTrialContext) -> Dict[str, Any]:
    state: Dict[str, Any] = {
        "cpu_rng_state": torch.random.get_rng_state(),
        "np_rng_state": np.random.get_state(),
        "random_rng_state": random.getstate(),
    }
    if torch.cuda.is_available() and torch.cuda.device_count():
        device = context.device if context.device.type == "cuda" else torch.device("cuda", 0)
        state["gpu_rng_state"] = torch.cuda.get_rng_state(device)
    return state


def _restore_rng_state(context: PyTorchTrialContext, state: Dict[str, Any]) -> None:
    if "np_rng_state" in state:
        np.random.set_state(state["np_rng_state"])
    if "random_rng_state" in state:
        random.setstate(state["random_rng_state"])
    if "cpu_rng_state" in state:
        torch.random.set_rng_state(state["cpu_rng_state"])
    has_gpu = torch.cuda.is_available() and torch.cuda.device_count() > 0
    if has_gpu and "gpu_rng_state" in state:
        device = context.device if context.device.type == "cuda" else torch.device("cuda", 0)
        torch.cuda.set_rng_state(state["gpu_rng_state"], device)
    elif has_gpu:
        logger.warning("this machine has a GPU but the checkpoint has no GPU random state")


def save(
    path: pathlib.Path,
    trial: PyTorchTrial,
    context: PyTorchTrialContext,
    callbacks: Dict[str, PyTorchCallback],
    state: TrialState,
    data_seed: Optional[int],
    on_cluster: bool,
) -> None:
    """Writes the checkpoint files into ``path`` (chief only), calling the save callbacks."""
    path.mkdir(parents=True, exist_ok=True)
    write_user_code(path, type(trial), on_cluster)
    checkpoint: Dict[str, Any] = {
        "models_state_dict": [model.state_dict() for model in context.models],
        "optimizers_state_dict": [opt.state_dict() for opt in context.optimizers],
        "lr_schedulers_state_dict": [lrs.state_dict() for lrs in context.lr_schedulers],
        "callbacks": {name: cb.state_dict() for name, cb in callbacks.items()},
        "rng_state": _rng_state(context),
    }
    if context._scaler is not None:
        checkpoint["scaler_state_dict"] = context._scaler.state_dict()
    if data_seed is not None:
        checkpoint[DATA_SEED_KEY] = data_seed
    for cb in callbacks.values():
        cb.on_checkpoint_save_start(checkpoint)
    torch.save(checkpoint, str(path / STATE_DICT_FILE))
    with (path / TRIAL_STATE_FILE).open("wb") as f:
        pickle.dump(state.to_dict(), f)

    spec, in_main = trial_class_spec(type(trial))
    load_data: Dict[str, Any] = {
        "trial_type": "PyTorchTrial",
        "experiment_config": util.make_jsonable(context._exp_conf),
        "hparams": util.make_jsonable(context._hparams),
        "trial_cls_spec": spec,
        "is_trainer": True,
    }
    if in_main:
        load_data["trial_in_main"] = True
    if context._is_pre_trainer:
        # Written by the legacy harness entrypoint, as upstream's harness does.
        del load_data["is_trainer"]
    (path / LOAD_DATA_FILE).write_text(json.dumps(load_data))

    for cb in callbacks.values():
        if _overrides(cb, "on_checkpoint_end"):
            cb.on_checkpoint_end(str(path))
        cb.on_checkpoint_write_end(str(path))


def _overrides(callback: PyTorchCallback, name: str) -> bool:
    return getattr(type(callback), name) is not getattr(PyTorchCallback, name)


def torch_load(path: pathlib.Path, **kwargs: Any) -> Any:
    """``torch.load`` of a checkpoint file that holds more than tensors (RNG states, tuples)."""
    if "weights_only" in inspect.signature(torch.load).parameters:
        kwargs.setdefault("weights_only", False)
    return torch.load(str(path), **kwargs)


def find_state_dict(path: pathlib.Path) -> Optional[pathlib.Path]:
    """The state dict file of a checkpoint, including the locations of older upstream versions."""
    for candidate in (
        path / STATE_DICT_FILE,
        path / "determined" / STATE_DICT_FILE,
        path / "pedl" / STATE_DICT_FILE,
        path / "checkpoint.pt",
    ):
        if candidate.is_file():
            return candidate
    return None


def load_model_state(model: nn.Module, state_dict: Dict[str, Any]) -> None:
    """Loads ``state_dict`` into ``model``, adding or removing DDP's ``module.`` prefix as needed."""
    try:
        model.load_state_dict(state_dict)
        return
    except RuntimeError:
        if not state_dict:
            raise
    is_ddp = isinstance(model, nn.parallel.DistributedDataParallel)
    model.load_state_dict(_with_module_prefix(state_dict, wanted=is_ddp))


def _with_module_prefix(state_dict: Dict[str, Any], wanted: bool) -> Dict[str, Any]:
    """A copy of ``state_dict`` with DDP's ``module.`` prefix added to (``wanted``) or removed from
    its keys, and from its ``_metadata`` too: the module versions that ``load_state_dict`` passes on
    to ``_load_from_state_dict`` (BatchNorm reads them, for example)."""
    prefix = "module."

    def fix(key: str) -> str:
        if wanted:
            return key if key.startswith(prefix) else prefix + key
        return key[len(prefix):] if key.startswith(prefix) else key

    def fix_module_path(path: str) -> str:
        # Metadata keys are module paths without a trailing dot: "" is the root module.
        if wanted:
            return "module" if path == "" else fix(path)
        return "" if path == "module" else fix(path)

    fixed = collections.OrderedDict((fix(k), v) for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        fixed._metadata = collections.OrderedDict(  # type: ignore[attr-defined]
            (fix_module_path(k), v) for k, v in metadata.items()
        )
    return fixed


def load(
    path: pathlib.Path,
    context: PyTorchTrialContext,
    callbacks: Dict[str, PyTorchCallback],
) -> Tuple[Optional[Dict[str, Any]], Optional[int]]:
    """
    Restores models, optimizers, LR schedulers, scaler, random states and callbacks from the
    checkpoint in ``path``; returns (the saved trial state dict or None, the saved data seed or None).
    """
    state_file = find_state_dict(path)
    if state_file is None:
        raise FileNotFoundError(
            f"checkpoint {path} has no {STATE_DICT_FILE}: it was not written by a PyTorchTrial"
        )
    checkpoint = torch_load(state_file, map_location="cpu")
    if not isinstance(checkpoint, dict):
        raise ValueError(f"{state_file} does not hold a dict")
    for cb in callbacks.values():
        cb.on_checkpoint_load_start(checkpoint)

    models = _legacy_single(checkpoint, "model_state_dict", "models_state_dict", len(context.models))
    _check_count("models", models, context.models)
    for model, sd in zip(context.models, models):
        load_model_state(model, sd)
    optimizers = _legacy_single(
        checkpoint, "optimizer_state_dict", "optimizers_state_dict", len(context.optimizers)
    )
    _check_count("optimizers", optimizers, context.optimizers)
    for opt, sd in zip(context.optimizers, optimizers):
        opt.load_state_dict(sd)
    schedulers = _legacy_single(
        checkpoint, "lr_scheduler", "lr_schedulers_state_dict", len(context.lr_schedulers)
    )
    _check_count("LR schedulers", schedulers, context.lr_schedulers)
    for lrs, sd in zip(context.lr_schedulers, schedulers):
        lrs.load_state_dict(sd)

    if "scaler_state_dict" in checkpoint and context._scaler is not None:
        context._scaler.load_state_dict(checkpoint["scaler_state_dict"])
    elif "scaler_state_dict" in checkpoint:
        logger.warning("the checkpoint has a GradScaler state but this trial wraps no scaler")
    elif context._scaler is not None:
        logger.warning("this trial wraps a GradScaler but the checkpoint has no scaler state")

    if "amp_state" in checkpoint:
        logger.warning(
            "the checkpoint has an apex AMP state (amp_state), which is not restored: apex is not "
            "supported here"
        )

    if "rng_state" in checkpoint:
        _restore_rng_state(context, checkpoint["rng_state"])
    else:
        logger.warning("the checkpoint has no random state to restore")

    saved_callbacks = checkpoint.get("callbacks", {})
    for name, cb in callbacks.items():
        if name in saved_callbacks:
            cb.load_state_dict(saved_callbacks[name])
        elif _overrides(cb, "load_state_dict"):
            logger.warning(f"callback {name!r} has no state in the checkpoint; it starts afresh")

    trial_state = None
    trial_state_file = path / TRIAL_STATE_FILE
    if trial_state_file.is_file():
        with trial_state_file.open("rb") as f:
            trial_state = _trial_state_fields(pickle.load(f))
    seed = checkpoint.get(DATA_SEED_KEY)
    return trial_state, (int(seed) if seed is not None else None)


def _trial_state_fields(saved: Any) -> Optional[Dict[str, Any]]:
    """The fields of :class:`TrialState` in a saved trial state (upstream pickles ``vars()`` of its
    ``_TrialState``, a dict of the same fields): others are dropped, missing ones default."""
    if not isinstance(saved, dict):
        saved = getattr(saved, "__dict__", None)
        if not isinstance(saved, dict):
            logger.warning(f"{TRIAL_STATE_FILE} holds no trial state; training starts at batch 0")
            return None
    known = set(TrialState().to_dict())
    unknown = sorted(str(k) for k in saved if k not in known)
    if unknown:
        logger.warning(f"ignoring unknown fields of {TRIAL_STATE_FILE}: {', '.join(unknown)}")
    return {k: v for k, v in saved.items() if k in known and v is not None}


def _legacy_single(checkpoint: Dict[str, Any], old_key: str, new_key: str, count: int) -> List[Any]:
    """The list under ``new_key``, or the one state dict of older checkpoints under ``old_key``."""
    if old_key in checkpoint:
        if new_key in checkpoint:
            raise ValueError(f"the checkpoint has both {old_key} and {new_key}")
        if count > 1:
            raise ValueError(
                f"an old checkpoint with one {old_key} cannot be loaded into a trial with {count}"
            )
        return [checkpoint[old_key]]
    return list(checkpoint.get(new_key, []))


def _check_count(what: str, saved: List[Any], wrapped: List[Any]) -> None:
    if len(saved) != len(wrapped):
        raise ValueError(
            f"the checkpoint has {len(saved)} {what} but the trial wraps {len(wrapped)}; wrap the "
            "same objects, in the same order, as the run that wrote the checkpoint"
        )


def trial_class_from_spec(spec: str) -> Type[PyTorchTrial]:
    """Imports ``module:QualName`` (``package.module:Outer.Inner`` works too)."""
    import importlib

    module_name, sep, qualname = spec.partition(":")
    if not sep or not module_name or not qualname:
        raise ValueError(f"a trial class is named module:ClassName, got {spec!r}")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as e:
            raise ImportError(f"module {module_name!r} has no {qualname!r}") from e
    if not (isinstance(obj, type) and issubclass(obj, PyTorchTrial)):
        raise TypeError(
            f"{spec} is not a determined.pytorch.PyTorchTrial subclass; only PyTorchTrial runs here "
            "(TFKerasTrial and DeepSpeedTrial need TensorFlow and DeepSpeed, which are not available)"
        )
    return obj
