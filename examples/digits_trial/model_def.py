"""
The digits MLP (64 -> hidden -> 10 on scikit-learn's bundled 8x8 digits, the same data and split as
examples/digits/train.py) written as a PyTorchTrial.

On a cluster the experiment configs name the class (``entrypoint: model_def:DigitsTrial``) and the
harness trains it; off-cluster, ``python3 model_def.py`` trains it with the Trainer API and the
hyperparameters below, checkpointing into ~/.local/share/determined.
"""

import logging
from typing import Any, Dict, Tuple

import torch
from sklearn.datasets import load_digits
from torch import nn

import determined as det
from determined import pytorch

# The same values as const.yaml, for running off-cluster.
DEFAULT_HPARAMS = {"learning_rate": 0.1, "hidden_size": 128, "global_batch_size": 32}


def load_data() -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """80/20 train/validation split of the 1797 digits, the same split for every trial."""
    x, y = load_digits(return_X_y=True)
    x = torch.tensor(x / 16.0, dtype=torch.float32)
    y = torch.tensor(y, dtype=torch.long)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    n_val = len(x) // 5
    val, train = perm[:n_val], perm[n_val:]
    return x[train], y[train], x[val], y[val]


class DigitsTrial(pytorch.PyTorchTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        hidden = int(context.get_hparam("hidden_size"))
        self.model = context.wrap_model(
            nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))
        )
        self.optimizer = context.wrap_optimizer(
            torch.optim.SGD(
                self.model.parameters(), lr=float(context.get_hparam("learning_rate")), momentum=0.9
            )
        )
        # Decay the learning rate by 10% after every epoch (45 batches of 32).
        self.scheduler = context.wrap_lr_scheduler(
            torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.9),
            step_mode=pytorch.LRScheduler.StepMode.STEP_EVERY_EPOCH,
        )
        self.x_train, self.y_train, self.x_val, self.y_val = load_data()

    def build_training_data_loader(self) -> pytorch.DataLoader:
        dataset = torch.utils.data.TensorDataset(self.x_train, self.y_train)
        return pytorch.DataLoader(
            dataset, batch_size=self.context.get_per_slot_batch_size(), shuffle=True
        )

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        dataset = torch.utils.data.TensorDataset(self.x_val, self.y_val)
        return pytorch.DataLoader(dataset, batch_size=self.context.get_per_slot_batch_size())

    def train_batch(self, batch: pytorch.TorchData, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.optimizer)
        return {"loss": loss, "lr": self.scheduler.get_last_lr()[0]}

    def evaluate_batch(self, batch: pytorch.TorchData) -> Dict[str, Any]:
        x, y = batch
        logits = self.model(x)
        return {
            "validation_loss": nn.functional.cross_entropy(logits, y),
            "accuracy": (logits.argmax(dim=1) == y).float().mean(),
        }


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    torch.manual_seed(0)
    with pytorch.init(hparams=DEFAULT_HPARAMS) as train_context:
        trial = DigitsTrial(train_context)
        trainer = pytorch.Trainer(trial, train_context)
        trainer.fit(
            max_length=pytorch.Epoch(5),
            validation_period=pytorch.Epoch(1),
            checkpoint_period=pytorch.Epoch(1),
        )
