"""
Upstream's local test mode (``det experiment create --local --test``): a Trial class trains one
batch and validates one batch in this process, without a cluster, to show that its code runs.
"""

import logging
import math
import random
import tempfile
from typing import Any, Dict, Optional, Type

logger = logging.getLogger("determined.experimental")


def sample_hparams(hparams: Dict[str, Any], rng: random.Random) -> Dict[str, Any]:
    """One random value per hyperparameter of an experiment config's ``hyperparameters`` section,
    drawn as a random searcher would: ``const`` is its value, ``int`` and ``double`` are uniform in
    [minval, maxval], ``log`` is ``base ** uniform(minval, maxval)``, ``categorical`` one of its
    ``vals``; a mapping without ``type`` is a nested section, anything else a constant."""
    out: Dict[str, Any] = {}
    for name in sorted(hparams):
        spec = hparams[name]
        if not isinstance(spec, dict):
            out[name] = spec
            continue
        kind = spec.get("type")
        if kind is None:
            out[name] = sample_hparams(spec, rng)
        elif kind == "const":
            out[name] = spec["val"]
        elif kind == "int":
            out[name] = rng.randint(int(spec["minval"]), int(spec["maxval"]))
        elif kind == "double":
            out[name] = rng.uniform(float(spec["minval"]), float(spec["maxval"]))
        elif kind == "log":
            exponent = rng.uniform(float(spec["minval"]), float(spec["maxval"]))
            out[name] = math.pow(float(spec.get("base", 10)), exponent)
        elif kind == "categorical":
            out[name] = rng.choice(list(spec["vals"]))
        else:
            raise ValueError(
                f"hyperparameters.{name}.type: {kind!r} is not one of const, int, double, log, "
                "categorical"
            )
    return out


def test_one_batch(
    trial_class: Optional[Type[Any]] = None, config: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """
    Builds ``trial_class`` (a :class:`determined.pytorch.PyTorchTrial`) with randomly drawn
    hyperparameters from ``config`` (an experiment config), trains one batch, validates one batch
    and checkpoints, off-cluster; the checkpoint goes to a temporary directory that is removed
    afterwards. Returns the hyperparameters it used. Errors from the trial's code propagate.
    """
    from determined import pytorch

    if trial_class is None:
        raise ValueError("test_one_batch needs the trial class to test")
    config = dict(config or {})
    hparams = sample_hparams(config.get("hyperparameters") or {}, random.Random())
    logger.info(f"testing {trial_class.__name__} on one batch with hyperparameters {hparams}")
    with tempfile.TemporaryDirectory(prefix="det-test-one-batch-") as storage:
        with pytorch.init(hparams=hparams, exp_conf=config, checkpoint_storage=storage) as context:
            trial = trial_class(context)
            pytorch.Trainer(trial, context).fit(
                max_length=pytorch.Batch(1), test_mode=True, checkpoint_policy="all"
            )
    logger.info("the trial trained and validated one batch: its code runs")
    return hparams
