"""
``python3 -m determined.exec.harness [--trial] module:TrialClass`` trains a PyTorchTrial named by a
legacy Trial-class entrypoint (``entrypoint: model_def:MyTrial``), inside a trial task.

It imports the class from the working directory (the experiment's context directory), builds the
trial with :func:`determined.pytorch.init` (the trial's hyperparameters and experiment config), and
runs the :class:`~determined.pytorch.Trainer` with the periods of the experiment config, resuming
from the trial's latest checkpoint:

* ``min_validation_period`` / ``min_checkpoint_period`` -> ``validation_period`` /
  ``checkpoint_period`` (``{batches|records|epochs: N}``; records need ``global_batch_size``);
* ``scheduling_unit`` -> ``reporting_period`` (batches);
* ``searcher.max_length`` -> the training length (in its units), else an ASHA searcher's
  ``max_time`` when its ``time_metric`` is ``batches`` or ``epochs``;
* ``checkpoint_policy``, ``perform_initial_validation``, ``optimizations.aggregation_frequency``
  and ``optimizations.average_aggregated_gradients``.

``--local-test CONFIG.json`` runs the class off-cluster instead, one batch of training and one of
validation (``det experiment create --local --test``, upstream's local test mode), with
hyperparameters drawn from the config.

Several slots: ``python3 -m determined.launch.torch_distributed -- python3 -m
determined.exec.harness model_def:MyTrial`` (one worker per slot). Exits 0 when the trial is done
or was preempted (it checkpoints first), 1 on errors.

Only PyTorchTrial is supported: TensorFlow/Keras (``TFKerasTrial``) and DeepSpeed
(``DeepSpeedTrial``) cannot be installed here.
"""

import argparse
import logging
import os
import sys
from typing import Any, Dict, List, Optional, Tuple, Type

import determined as det

logger = logging.getLogger("determined.exec.harness")

_DEFAULT_SCHEDULING_UNIT = 100


def load_trial_class(spec: str, context_dir: str) -> type:
    """Imports the PyTorchTrial ``module:QualName`` (``package.module:Outer.Inner`` too) from
    ``context_dir``."""
    from determined.pytorch._checkpoint import trial_class_from_spec

    if context_dir not in sys.path:
        sys.path.insert(0, context_dir)
    return trial_class_from_spec(spec)


def _is_default_length(length: Any) -> bool:
    return not isinstance(length, dict) or all(not v or v < 1 for v in length.values())


def deprecation_warnings(config: Dict[str, Any]) -> List[str]:
    """Upstream 0.38's deprecations that apply to this experiment config (as warning texts)."""
    out = [
        "the entrypoint module:TrialClass is deprecated since Determined 0.38: use the Trainer "
        "API in a training script (python3 train.py) instead"
    ]
    if config.get("records_per_epoch"):
        out.append(
            "records_per_epoch is deprecated and ignored by PyTorchTrial: an epoch is the length "
            "of the (chief's) training data loader"
        )
    for key in ("min_validation_period", "min_checkpoint_period"):
        if not _is_default_length(config.get(key)):
            out.append(
                f"{key} is deprecated since 0.38: pass validation_period/checkpoint_period to "
                "Trainer.fit() instead"
            )
    if config.get("scheduling_unit") not in (None, _DEFAULT_SCHEDULING_UNIT):
        out.append("scheduling_unit is deprecated since 0.38: pass reporting_period to Trainer.fit()")
    searcher = config.get("searcher") or {}
    if searcher.get("max_length") is not None:
        out.append("searcher.max_length is deprecated since 0.38: pass max_length to Trainer.fit()")
    optimizations = config.get("optimizations") or {}
    if isinstance(optimizations, dict) and any(
        optimizations.get(k) not in (None, d)
        for k, d in (("aggregation_frequency", 1), ("average_aggregated_gradients", True))
    ):
        out.append(
            "optimizations is deprecated since 0.38: pass aggregation_frequency to "
            "determined.pytorch.init() and average_aggregated_gradients to wrap_optimizer()"
        )
    return out


def fit_arguments(
    config: Dict[str, Any], hparams: Dict[str, Any], latest_checkpoint: Optional[str]
) -> Dict[str, Any]:
    """The ``Trainer.fit()`` arguments an experiment config asks for."""
    from determined import pytorch

    gbs = int(hparams["global_batch_size"]) if hparams.get("global_batch_size") else None
    searcher = config.get("searcher") or {}
    max_length: Optional[pytorch.TrainUnit] = None
    if searcher.get("max_length") is None:
        # No searcher.max_length: the Trainer cannot ask the searcher; ASHA's budget is the length.
        metric, budget = searcher.get("time_metric"), searcher.get("max_time")
        if metric in ("batches", "epochs") and isinstance(budget, int) and budget > 0:
            max_length = pytorch.Batch(budget) if metric == "batches" else pytorch.Epoch(budget)
        else:
            raise ValueError(
                "the experiment config sets no training length: set searcher.max_length (e.g. "
                "{batches: 1000}), or for ASHA searchers time_metric: batches (or epochs) with "
                "max_time"
            )
    args: Dict[str, Any] = {
        "checkpoint_period": pytorch.TrainUnit._from_config(
            config.get("min_checkpoint_period"), gbs, "min_checkpoint_period"
        ),
        "validation_period": pytorch.TrainUnit._from_config(
            config.get("min_validation_period"), gbs, "min_validation_period"
        ),
        "reporting_period": pytorch.Batch(
            int(config.get("scheduling_unit") or _DEFAULT_SCHEDULING_UNIT)
        ),
        "checkpoint_policy": config.get("checkpoint_policy") or "best",
        "latest_checkpoint": latest_checkpoint,
        "step_zero_validation": bool(config.get("perform_initial_validation", False)),
        "profiling_enabled": bool((config.get("profiling") or {}).get("enabled", False)),
    }
    if max_length is not None:
        args["max_length"] = max_length
    return args


def _optimizations(config: Dict[str, Any]) -> Tuple[int, bool]:
    opt = config.get("optimizations") or {}
    if not isinstance(opt, dict):
        opt = {}
    frequency = int(opt.get("aggregation_frequency") or 1)
    return frequency, bool(opt.get("average_aggregated_gradients", True))


def run_pytorch_trial(trial_class: Type[Any], info: "det.ClusterInfo") -> int:
    """Trains ``trial_class`` in the trial task ``info`` describes; returns the exit status."""
    from determined import pytorch

    config = info.trial.config
    hparams = info.trial.hparams
    for text in deprecation_warnings(config):
        logger.warning(text)
    aggregation_frequency, average_gradients = _optimizations(config)
    fit_args = fit_arguments(config, hparams, info.latest_checkpoint)
    with pytorch.init(
        hparams=hparams, exp_conf=config, aggregation_frequency=aggregation_frequency
    ) as context:
        context._set_default_average_aggregated_gradients(average_gradients)
        context._set_is_pre_trainer()
        if context.distributed.size > 1 and context.distributed.rank != 0:
            logging.getLogger().setLevel(logging.DEBUG if config.get("debug") else logging.WARNING)
        trial = trial_class(context)
        logger.info(f"training {trial_class.__name__} with {fit_args}")
        pytorch.Trainer(trial, context).fit(**fit_args)
    return 0


def local_test(entrypoint: str, config_path: str) -> int:
    """Upstream's ``--local --test``: the class from the working directory, one batch, no cluster."""
    import json

    from determined import experimental

    with open(config_path) as f:
        config = json.load(f)
    logging.basicConfig(
        level=logging.DEBUG if config.get("debug") else logging.INFO, format=det.LOG_FORMAT
    )
    try:
        trial_class = load_trial_class(entrypoint, os.getcwd())
    except Exception as e:
        logger.error(f"cannot load the trial class {entrypoint!r}: {e}")
        return 1
    experimental.test_one_batch(trial_class=trial_class, config=config)
    return 0


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m determined.exec.harness",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--trial", action="store_true", help="accepted for compatibility")
    parser.add_argument(
        "--local-test",
        metavar="CONFIG_JSON",
        help="off-cluster: train and validate one batch with this experiment config (a JSON file)",
    )
    parser.add_argument("entrypoint", help="the trial class, module:TrialClass")
    args = parser.parse_args(argv)
    if args.local_test:
        return local_test(args.entrypoint, args.local_test)

    info = det.get_cluster_info()
    debug = bool(info and info.task_type == "TRIAL" and info.trial.config.get("debug"))
    logging.basicConfig(level=logging.DEBUG if debug else logging.INFO, format=det.LOG_FORMAT)
    if info is None or info.task_type != "TRIAL":
        logger.error(
            "determined.exec.harness runs inside a trial task; off-cluster, train the class with "
            "determined.pytorch.init() and pytorch.Trainer(...).fit(max_length=...)"
        )
        return 1
    try:
        trial_class = load_trial_class(args.entrypoint, os.getcwd())
    except Exception as e:
        logger.error(f"cannot load the trial class {args.entrypoint!r}: {e}")
        return 1
    return run_pytorch_trial(trial_class, info)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
