"""A PyTorchTrial checkpoint written by upstream Determined 0.38's harness loads here.

``write_upstream_checkpoint`` writes, with plain torch/pickle/json (not through determined), the
files upstream's ``_PyTorchTrialController._save`` (harness/determined/pytorch/_pytorch_trial.py)
and ``CheckpointContext.store_path`` write for a small trial trained N batches with plain torch:

* ``state_dict.pth``: ``models_state_dict``, ``optimizers_state_dict``,
  ``lr_schedulers_state_dict`` (lists in wrapping order, the torch objects' own ``state_dict()``s),
  ``callbacks`` (name -> ``state_dict()``), ``rng_state`` (``cpu_rng_state``, ``np_rng_state``,
  ``random_rng_state``; ``gpu_rng_state`` only on a GPU machine);
* ``trial_state.pkl``: ``vars()`` of upstream's ``_TrialState`` (``trial_id``, ``last_ckpt``,
  ``step_id``, ``last_val``, ``batches_trained``, ``epochs_trained``);
* ``load_data.json``: ``trial_type``, ``experiment_config``, ``hparams``, ``trial_cls_spec``
  (``f"{cls.__module__}:{cls.__qualname__}"``), ``is_trainer``;
* ``code/``: a copy of the experiment's directory;
* ``metadata.json``: what ``store_path`` was given (``determined_version``, ``steps_completed``,
  ``framework``, ``format``).
"""

import importlib.util
import json
import pathlib
import pickle
import random
import sys
import uuid
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
import torch
from torch import nn

from determined import pytorch

N = 5  # batches trained by the upstream run
BATCH = 2
RECORDS = 16  # 8 batches per epoch
LR, MOMENTUM, STEP_SIZE, GAMMA = 0.1, 0.9, 2, 0.5
HPARAMS = {"global_batch_size": BATCH, "lr": LR, "momentum": MOMENTUM}
EXP_CONF = {
    "name": "upstream-onevar",
    "entrypoint": "python3 train.py",
    "hyperparameters": {
        "global_batch_size": {"type": "const", "val": BATCH},
        "lr": {"type": "const", "val": LR},
        "momentum": {"type": "const", "val": MOMENTUM},
    },
    "searcher": {"name": "single", "metric": "validation_loss", "smaller_is_better": True},
    "records_per_epoch": RECORDS,
    "checkpoint_storage": {"type": "shared_fs", "host_path": "/tmp", "save_experiment_best": 0,
                           "save_trial_best": 1, "save_trial_latest": 1},
}
RNG_SEED = 4321

MODULE = "upstream_ckpt_model_def"
TRIAL_SOURCE = '''
import json
from typing import Any, Dict

import torch
from torch import nn

from determined import pytorch

# Read by a relative path when the module is imported: upstream imports the trial's module with the
# checkpoint's code directory as the working directory.
with open("model_config.json") as f:
    MODEL_CONFIG = json.load(f)


def dataset():
    x = torch.arange(RECORDS * 3, dtype=torch.float32).reshape(RECORDS, 3) / 10 - 2
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    return torch.utils.data.TensorDataset(x, y)


class Counter(pytorch.PyTorchCallback):
    def __init__(self):
        self.calls = 0

    def on_training_workload_end(self, avg_metrics, batch_metrics):
        self.calls += 1

    def state_dict(self):
        return {"calls": self.calls}

    def load_state_dict(self, state_dict):
        self.calls = state_dict["calls"]


class UpstreamTrial(pytorch.PyTorchTrial):
    def __init__(self, context):
        self.context = context
        self.model = context.wrap_model(nn.Linear(MODEL_CONFIG["inputs"], 1))
        self.opt = context.wrap_optimizer(torch.optim.SGD(
            self.model.parameters(), lr=context.get_hparam("lr"),
            momentum=context.get_hparam("momentum")))
        self.sched = context.wrap_lr_scheduler(
            torch.optim.lr_scheduler.StepLR(self.opt, step_size=STEP_SIZE, gamma=GAMMA),
            step_mode=pytorch.LRScheduler.StepMode.STEP_EVERY_BATCH)
        self.counter = Counter()
        self.seen = []

    def build_callbacks(self):
        return {"counter": self.counter}

    def build_training_data_loader(self):
        return pytorch.DataLoader(dataset(), batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self):
        return pytorch.DataLoader(dataset(), batch_size=4)

    def train_batch(self, batch, epoch_idx, batch_idx):
        x, y = batch
        state = self.opt.state.get(self.model.weight, {})
        buf = state.get("momentum_buffer")
        rng = None
        if not self.seen:
            import random
            import numpy as np
            rng = (torch.rand(1).item(), float(np.random.rand()), random.random())
        self.seen.append({
            "batch_idx": batch_idx, "epoch_idx": epoch_idx, "x0": x[0].tolist(),
            "lr": self.opt.param_groups[0]["lr"],
            "weight": self.model.weight.detach().clone(),
            "momentum_buffer": None if buf is None else buf.clone(),
            "rng": rng,
        })
        loss = nn.functional.mse_loss(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch):
        x, y = batch
        return {"validation_loss": nn.functional.mse_loss(self.model(x), y)}
'''.replace("RECORDS", str(RECORDS)).replace("STEP_SIZE", str(STEP_SIZE)).replace(
    "GAMMA", str(GAMMA))


# --- the upstream run, in plain torch ------------------------------------------------------------


def dataset() -> Tuple[torch.Tensor, torch.Tensor]:
    x = torch.arange(RECORDS * 3, dtype=torch.float32).reshape(RECORDS, 3) / 10 - 2
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    return x, y


def reference_run(batches: int) -> Tuple[nn.Module, torch.optim.Optimizer, Any, List[float]]:
    """Trains the trial's model as upstream's Trainer would for ``batches`` batches: sequential
    batches, repeating every epoch; the StepLR stepped after every batch. Returns the lr of each."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=STEP_SIZE, gamma=GAMMA)
    x, y = dataset()
    per_epoch = RECORDS // BATCH
    lrs = []
    for b in range(batches):
        i = (b % per_epoch) * BATCH
        lrs.append(opt.param_groups[0]["lr"])
        opt.zero_grad()
        nn.functional.mse_loss(model(x[i:i + BATCH]), y[i:i + BATCH]).backward()
        opt.step()
        sched.step()
    return model, opt, sched, lrs


def seeded_rng_state() -> Dict[str, Any]:
    torch.manual_seed(RNG_SEED)
    np.random.seed(RNG_SEED)
    random.seed(RNG_SEED)
    return {
        "cpu_rng_state": torch.random.get_rng_state(),
        "np_rng_state": np.random.get_state(),
        "random_rng_state": random.getstate(),
    }


def expected_draws() -> Tuple[float, float, float]:
    """What the first training batch draws right after that random state is restored."""
    torch.manual_seed(RNG_SEED)
    np.random.seed(RNG_SEED)
    random.seed(RNG_SEED)
    return torch.rand(1).item(), float(np.random.rand()), random.random()


def write_upstream_checkpoint(ckpt: pathlib.Path, *, ddp: bool = False, trial_id: int = 0,
                              trial_cls_spec: str = f"{MODULE}:UpstreamTrial",
                              module_file: str = f"{MODULE}.py") -> Dict[str, Any]:
    """Writes the checkpoint directory upstream's harness writes after N batches of the trial
    (``ddp``: the model was wrapped in DistributedDataParallel, its keys start with ``module.``)."""
    model, opt, sched, _ = reference_run(N)
    model_state = model.state_dict()
    if ddp:
        model_state = {f"module.{k}": v for k, v in model_state.items()}
    ckpt.mkdir(parents=True)
    torch.save({
        "models_state_dict": [model_state],
        "optimizers_state_dict": [opt.state_dict()],
        "lr_schedulers_state_dict": [sched.state_dict()],
        "callbacks": {"counter": {"calls": N}},
        "rng_state": seeded_rng_state(),
    }, str(ckpt / "state_dict.pth"))
    with (ckpt / "trial_state.pkl").open("wb") as f:
        pickle.dump({"trial_id": trial_id, "last_ckpt": N, "step_id": 1, "last_val": 0,
                     "batches_trained": N, "epochs_trained": 0}, f)
    (ckpt / "load_data.json").write_text(json.dumps({
        "trial_type": "PyTorchTrial", "experiment_config": EXP_CONF, "hparams": HPARAMS,
        "trial_cls_spec": trial_cls_spec, "is_trainer": True}))
    (ckpt / "metadata.json").write_text(json.dumps({
        "determined_version": "0.38.0", "steps_completed": N,
        "framework": f"torch-{torch.__version__}", "format": "pickle"}, indent=2))
    code = ckpt / "code"
    code.mkdir()
    (code / module_file).write_text(TRIAL_SOURCE)
    (code / "model_config.json").write_text(json.dumps({"inputs": 3}))
    (code / "startup-hook.sh").write_text("")
    return {"model": model, "optimizer": opt, "scheduler": sched}


@pytest.fixture
def upstream_checkpoint(tmp_path):
    """(the checkpoint storage directory, the checkpoint's storage id, what was written)."""
    storage = tmp_path / "checkpoints"
    storage_id = str(uuid.uuid4())
    written = write_upstream_checkpoint(storage / storage_id)
    return storage, storage_id, written


def import_trial_module(code: pathlib.Path, monkeypatch) -> Any:
    """The trial's module, imported from the checkpoint's code as the experiment would."""
    monkeypatch.chdir(code)
    spec = importlib.util.spec_from_file_location(f"{MODULE}_resume", code / f"{MODULE}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


# --- loading for inference -----------------------------------------------------------------------


@pytest.mark.parametrize("ddp", [False, True], ids=["plain", "ddp-keys"])
def test_load_trial_from_upstream_checkpoint_path(tmp_path, ddp):
    ckpt = tmp_path / "ckpt"
    written = write_upstream_checkpoint(ckpt, ddp=ddp)

    trial = pytorch.load_trial_from_checkpoint_path(str(ckpt))

    assert type(trial).__name__ == "UpstreamTrial" and type(trial).__module__ == MODULE
    assert MODULE not in sys.modules  # forgotten: another checkpoint's module may load next
    assert trial.context.get_hparams() == HPARAMS
    assert trial.context.get_experiment_config() == EXP_CONF
    expected = written["model"].state_dict()
    loaded = trial.model.state_dict()
    assert set(loaded) == set(expected)
    for k in expected:
        assert torch.equal(loaded[k], expected[k]), k
    x = torch.tensor([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]])
    with torch.no_grad():
        assert torch.equal(trial.model(x), written["model"](x))


def test_load_data_of_an_entrypoint_script_trial(tmp_path):
    """Upstream names a class defined in the entrypoint script ``__main__:Class``."""
    ckpt = tmp_path / "ckpt"
    written = write_upstream_checkpoint(ckpt, trial_cls_spec="__main__:UpstreamTrial",
                                        module_file="train.py")
    trial = pytorch.load_trial_from_checkpoint_path(str(ckpt))
    assert type(trial).__name__ == "UpstreamTrial"
    for a, b in zip(trial.model.parameters(), written["model"].parameters()):
        assert torch.equal(a, b)


def test_optimizer_scheduler_and_callback_state_of_an_upstream_checkpoint(
        upstream_checkpoint, monkeypatch):
    """The loader the Trainer uses restores everything upstream saved, momentum buffers included."""
    from determined.pytorch import _checkpoint

    storage, storage_id, written = upstream_checkpoint
    module = import_trial_module(storage / storage_id / "code", monkeypatch)
    context = pytorch.CheckpointLoadContext(hparams=dict(HPARAMS))
    trial = module.UpstreamTrial(context)
    callbacks = trial.build_callbacks()
    assert trial.opt.state_dict()["state"] == {}

    trial_state, seed = _checkpoint.load(storage / storage_id, context, callbacks)

    assert trial_state == {"trial_id": 0, "last_ckpt": N, "step_id": 1, "last_val": 0,
                           "batches_trained": N, "epochs_trained": 0}
    assert seed is None  # upstream saves no data seed
    saved = written["optimizer"].state_dict()
    restored = trial.opt.state_dict()
    assert restored["param_groups"] == saved["param_groups"]
    assert set(restored["state"]) == set(saved["state"]) == {0, 1}
    for i in saved["state"]:
        assert torch.equal(restored["state"][i]["momentum_buffer"],
                           saved["state"][i]["momentum_buffer"])
        assert saved["state"][i]["momentum_buffer"].abs().sum() > 0
    assert trial.sched.state_dict() == written["scheduler"].state_dict()
    assert trial.sched.last_epoch == N
    assert trial.counter.calls == N
    assert (torch.rand(1).item(), float(np.random.rand()), random.random()) == expected_draws()


# --- resuming training ---------------------------------------------------------------------------


def test_trainer_resumes_an_upstream_checkpoint(upstream_checkpoint, monkeypatch):
    storage, storage_id, written = upstream_checkpoint
    module = import_trial_module(storage / storage_id / "code", monkeypatch)
    total = 11  # on past the end of the first epoch (8 batches)
    reference, _, reference_sched, reference_lrs = reference_run(total)

    with pytorch.init(hparams=dict(HPARAMS), exp_conf=dict(EXP_CONF),
                      checkpoint_storage=str(storage), enable_tensorboard_logging=False) as context:
        torch.manual_seed(99)  # weights unlike the checkpoint's, until it is restored
        trial = module.UpstreamTrial(context)
        assert not torch.equal(trial.model.weight, written["model"].weight)
        pytorch.Trainer(trial, context).fit(max_length=pytorch.Batch(total),
                                            latest_checkpoint=storage_id, checkpoint_policy="none")

    seen = trial.seen
    # Batch N+1 (index N) first, then on to the end: none repeated or skipped.
    assert [s["batch_idx"] for s in seen] == list(range(N, total))
    assert [s["epoch_idx"] for s in seen] == [b // 8 for b in range(N, total)]
    x, _ = dataset()
    assert [s["x0"] for s in seen] == [x[(b % 8) * BATCH].tolist() for b in range(N, total)]
    # The restored state, as the first resumed batch sees it.
    first = seen[0]
    assert torch.equal(first["weight"], written["model"].weight.detach())
    saved_buf = written["optimizer"].state_dict()["state"][0]["momentum_buffer"]
    assert first["momentum_buffer"] is not None and torch.equal(first["momentum_buffer"], saved_buf)
    assert first["rng"] == expected_draws()
    # The scheduler goes on from its saved step: the learning rates upstream would have used.
    assert [s["lr"] for s in seen] == pytest.approx(reference_lrs[N:total], rel=1e-12)
    assert trial.sched.last_epoch == reference_sched.last_epoch == total
    assert trial.counter.calls > N
    # And the weights end where an uninterrupted upstream run ends.
    for a, b in zip(trial.model.parameters(), reference.parameters()):
        assert torch.allclose(a, b, rtol=1e-6, atol=1e-7)


def test_another_trials_upstream_checkpoint_starts_training_over(tmp_path, monkeypatch):
    """As upstream: a checkpoint of another trial (trial_id 7 off-cluster's 0) gives the weights,
    but training starts at batch 0."""
    storage = tmp_path / "checkpoints"
    storage_id = "other-trial"
    written = write_upstream_checkpoint(storage / storage_id, trial_id=7)
    module = import_trial_module(storage / storage_id / "code", monkeypatch)
    with pytorch.init(hparams=dict(HPARAMS), checkpoint_storage=str(storage),
                      enable_tensorboard_logging=False) as context:
        trial = module.UpstreamTrial(context)
        pytorch.Trainer(trial, context).fit(max_length=pytorch.Batch(2),
                                            latest_checkpoint=storage_id, checkpoint_policy="none")
    assert [s["batch_idx"] for s in trial.seen] == [0, 1]
    assert torch.equal(trial.seen[0]["weight"], written["model"].weight.detach())


# --- details of the layout -----------------------------------------------------------------------


def test_unknown_trial_state_fields_are_ignored(tmp_path, monkeypatch):
    """trial_state.pkl is vars() of upstream's _TrialState: a field a later version adds must not
    stop the resume (TrialState(**fields) would raise)."""
    from determined.pytorch import _checkpoint

    ckpt = tmp_path / "ckpt"
    write_upstream_checkpoint(ckpt)
    with (ckpt / "trial_state.pkl").open("wb") as f:
        pickle.dump({"trial_id": 0, "last_ckpt": N, "step_id": 1, "last_val": 0,
                     "batches_trained": N, "epochs_trained": 0, "new_in_a_later_version": 1}, f)
    module = import_trial_module(ckpt / "code", monkeypatch)
    context = pytorch.CheckpointLoadContext(hparams=dict(HPARAMS))
    trial = module.UpstreamTrial(context)
    state, _ = _checkpoint.load(ckpt, context, trial.build_callbacks())
    assert state == {"trial_id": 0, "last_ckpt": N, "step_id": 1, "last_val": 0,
                     "batches_trained": N, "epochs_trained": 0}
    assert _checkpoint.TrialState(**state).batches_trained == N


class VersionSpy(nn.BatchNorm1d):
    """Records the module version load_state_dict hands it (from the state dict's _metadata)."""

    versions: List[Any] = []

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args: Any) -> None:
        VersionSpy.versions.append(local_metadata.get("version"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)


def test_ddp_prefixed_weights_keep_their_module_versions():
    """Removing (or adding) DDP's ``module.`` prefix renames the _metadata entries too."""
    from determined.pytorch import _checkpoint

    class Wrapped(nn.Module):  # the key layout of DistributedDataParallel(model)
        def __init__(self) -> None:
            super().__init__()
            self.module = nn.BatchNorm1d(3)

    saved = Wrapped()
    saved.module.running_mean.fill_(0.25)
    state = saved.state_dict()
    assert state._metadata["module"]["version"] == nn.BatchNorm1d._version
    state._metadata["module"]["version"] = 1  # an old BatchNorm: no num_batches_tracked
    del state["module.num_batches_tracked"]
    VersionSpy.versions = []
    model = VersionSpy(3)
    _checkpoint.load_model_state(model, state)
    assert VersionSpy.versions[-1] == 1
    assert torch.equal(model.running_mean, torch.full((3,), 0.25))
    assert "_metadata" not in state and "module.weight" in state  # the saved dict is not changed
