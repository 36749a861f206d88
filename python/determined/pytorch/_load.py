"""Rebuilding a trained PyTorchTrial from its checkpoint files, for inference or export."""

import contextlib
import json
import logging
import os
import pathlib
import re
import sys
import warnings
from typing import Any, Dict, Iterator, Optional, Type

from determined import core
from determined.pytorch import _checkpoint
from determined.pytorch._trial import PyTorchTrial
from determined.pytorch._trial_context import PyTorchTrialContext

logger = logging.getLogger("determined.pytorch")


class CheckpointLoadContext(PyTorchTrialContext):
    """
    A :class:`PyTorchTrialContext` for building a trial outside training, to load a checkpoint
    into it: one worker on the CPU, nothing reported, no checkpoints written. Useful to build a
    trial class that takes extra constructor arguments:

    .. code:: python

       context = pytorch.CheckpointLoadContext(hparams=hparams)
       trial = MyTrial(context, my_extra_arg)
    """

    def __init__(
        self,
        hparams: Optional[Dict[str, Any]] = None,
        exp_conf: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(
            core_context=core.Context(
                checkpoint=_NoCheckpoints(),  # type: ignore[arg-type]
                distributed=core.DummyDistributedContext(),
            ),
            trial_seed=0,
            hparams=hparams,
            slots_per_trial=1,
            num_gpus=0,
            exp_conf=exp_conf,
            aggregation_frequency=1,
            steps_completed=0,
            managed_training=False,
            debug_enabled=False,
        )


class _NoCheckpoints:
    """The checkpoint storage of a CheckpointLoadContext: there is none."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("a CheckpointLoadContext cannot store or restore checkpoints")


@contextlib.contextmanager
def _importable_from(path: pathlib.Path) -> Iterator[None]:
    """Puts ``path`` first on sys.path; modules first imported from it are forgotten afterwards, so
    that another checkpoint's ``model_def`` can be loaded next."""
    before = set(sys.modules)
    sys.path.insert(0, str(path))
    try:
        yield
    finally:
        try:
            sys.path.remove(str(path))
        except ValueError:
            pass
        roots = tuple({os.path.join(str(path), ""), os.path.join(str(path.resolve()), "")})
        for name in set(sys.modules) - before:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if file.startswith(roots):
                del sys.modules[name]


@contextlib.contextmanager
def _working_directory(path: pathlib.Path) -> Iterator[None]:
    """Upstream imports the trial's module with the checkpoint's code directory as the working
    directory, so that module-level code may open files of the code by relative paths."""
    if not path.is_dir():
        yield
        return
    before = os.getcwd()
    os.chdir(str(path))
    try:
        yield
    finally:
        os.chdir(before)


def _import_trial_class(spec: str, code_dir: pathlib.Path) -> Type[PyTorchTrial]:
    """
    Imports the trial class named ``module:QualName`` (with ``code_dir`` importable). Upstream
    names a class defined in the entrypoint script ``__main__:QualName``: that is the running
    ``__main__`` when it has the class, or else the top-level script of ``code_dir`` that defines
    it, imported by its file name.
    """
    with _working_directory(code_dir):
        try:
            return _checkpoint.trial_class_from_spec(spec)
        except (ImportError, TypeError):
            module_name, _, qualname = spec.partition(":")
            if module_name != "__main__" or not qualname:
                raise
            script = _script_defining(code_dir, qualname.split(".")[0])
            if script is None:
                raise
            logger.info(f"importing {qualname} of the entrypoint script from {script.name}")
            return _checkpoint.trial_class_from_spec(f"{script.stem}:{qualname}")


def _script_defining(code_dir: pathlib.Path, class_name: str) -> Optional[pathlib.Path]:
    """The first top-level ``*.py`` file of ``code_dir`` with a top-level ``class class_name``."""
    pattern = re.compile(rf"^class\s+{re.escape(class_name)}\b", re.MULTILINE)
    if not code_dir.is_dir():
        return None
    for script in sorted(code_dir.glob("*.py")):
        if not script.stem.isidentifier():
            continue
        try:
            if pattern.search(script.read_text(errors="replace")):
                return script
        except OSError:
            continue
    return None


def load_trial_from_checkpoint_path(
    path: str,
    trial_class: Optional[Type[PyTorchTrial]] = None,
    trial_kwargs: Optional[Dict[str, Any]] = None,
    torch_load_kwargs: Optional[Dict[str, Any]] = None,
    **kwargs: Any,
) -> PyTorchTrial:
    """
    Rebuilds the PyTorchTrial saved in a checkpoint directory (downloaded, for example, with
    ``Checkpoint.download()``) with its trained weights, ready for inference.

    The trial class is imported from the checkpoint's ``code/`` directory by the name recorded in
    ``load_data.json``, and built with a :class:`CheckpointLoadContext` holding the trial's
    hyperparameters and experiment config. Its wrapped models then get the saved weights.

    Arguments:
        path: the checkpoint directory.
        trial_class: the PyTorchTrial subclass to build, when importing it from ``code/`` does not
            work (for a class defined in a notebook, say).
        trial_kwargs: extra keyword arguments for the trial's constructor, after the context.
        torch_load_kwargs: keyword arguments for ``torch.load`` (``map_location`` defaults to the
            CPU).
        kwargs: deprecated; the same as ``torch_load_kwargs``.
    """
    trial_kwargs = dict(trial_kwargs or {})
    load_kwargs = dict(torch_load_kwargs or {})
    if kwargs:
        if torch_load_kwargs:
            raise ValueError("pass torch.load arguments as torch_load_kwargs or **kwargs, not both")
        warnings.warn(
            "passing torch.load arguments as **kwargs to load_trial_from_checkpoint_path() is "
            "deprecated; pass torch_load_kwargs={...}",
            FutureWarning,
            stacklevel=2,
        )
        load_kwargs = dict(kwargs)
    load_kwargs.setdefault("map_location", "cpu")

    ckpt_dir = pathlib.Path(path)
    load_data_file = ckpt_dir / _checkpoint.LOAD_DATA_FILE
    metadata_file = ckpt_dir / "metadata.json"
    if load_data_file.is_file():
        load_data = json.loads(load_data_file.read_text())
        if load_data.get("trial_type") != "PyTorchTrial":
            logger.warning(
                f"load_data.json says trial_type={load_data.get('trial_type')!r}, not "
                "PyTorchTrial; loading anyway"
            )
        exp_conf = load_data.get("experiment_config")
        hparams = load_data.get("hparams")
        spec = load_data.get("trial_cls_spec", "")
        if load_data.get("trial_in_main"):
            logger.warning(
                f"the trial class was defined in the entrypoint script; importing it as {spec!r}"
            )
    elif metadata_file.is_file():
        # Checkpoints of Determined <= 0.17.7 carry this in the metadata of Checkpoint.download().
        metadata = json.loads(metadata_file.read_text())
        exp_conf = metadata.get("experiment_config")
        hparams = metadata.get("hparams")
        spec = (exp_conf or {}).get("entrypoint", "")
        if exp_conf is None or not spec:
            raise ValueError(
                f"{path} has no load_data.json, and its metadata.json does not say which trial "
                "class wrote it; pass trial_class=..."
            )
    else:
        raise FileNotFoundError(
            f"{path} has neither load_data.json nor metadata.json: it is not a PyTorchTrial "
            "checkpoint directory"
        )

    # Absolute: the working directory changes while the trial class is imported.
    code_dir = ckpt_dir.absolute() / _checkpoint.CODE_DIR
    # The code stays importable while the trial is built: its __init__ may import more of it.
    with _importable_from(code_dir):
        if trial_class is None:
            try:
                trial_class = _import_trial_class(spec, code_dir)
            except Exception as e:
                raise ImportError(
                    f"could not import the trial class {spec!r} from {code_dir} ({e}); pass "
                    "trial_class=YourTrial to load_trial_from_checkpoint_path()"
                ) from e
        context = CheckpointLoadContext(hparams=hparams, exp_conf=exp_conf)
        trial = trial_class(context, **trial_kwargs)  # type: ignore[call-arg]

    state_file = _checkpoint.find_state_dict(ckpt_dir)
    if state_file is None:
        raise FileNotFoundError(f"{path} has no {_checkpoint.STATE_DICT_FILE}")
    checkpoint = _checkpoint.torch_load(state_file, **load_kwargs)
    if "model_state_dict" in checkpoint:  # written by Determined < 0.12.13
        states = [checkpoint["model_state_dict"]]
    else:
        states = list(checkpoint.get("models_state_dict", []))
    if len(states) != len(context.models):
        raise ValueError(
            f"the checkpoint has {len(states)} models but the trial wraps {len(context.models)}"
        )
    for model, state in zip(context.models, states):
        _checkpoint.load_model_state(model, state)
    return trial

