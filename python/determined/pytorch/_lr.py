"""``LRScheduler``: a torch learning-rate scheduler with the step policy the Trainer applies."""

import enum
from typing import Any, Dict, List


class LRScheduler:
    """
    Wraps a torch LR scheduler (returned by ``context.wrap_lr_scheduler()``): its state is saved in
    checkpoints and restored on resume, and the Trainer steps it according to ``step_mode``.
    """

    class StepMode(enum.Enum):
        """
        When the Trainer calls ``scheduler.step()`` (with no arguments):

        * ``STEP_EVERY_EPOCH``: after every ``frequency`` epochs (at the end of the epoch's last
          batch);
        * ``STEP_EVERY_BATCH``: after every ``frequency`` batches;
        * ``MANUAL_STEP``: never; call ``step()`` yourself, with whatever arguments it takes;
        * ``STEP_EVERY_OPTIMIZER_STEP``: after every ``frequency`` optimizer steps (batches where
          gradients are applied, which differs from batches with an ``aggregation_frequency`` > 1).
        """

        STEP_EVERY_EPOCH = 1
        STEP_EVERY_BATCH = 2
        MANUAL_STEP = 3
        STEP_EVERY_OPTIMIZER_STEP = 4

    def __init__(self, scheduler: Any, step_mode: "LRScheduler.StepMode", frequency: int = 1) -> None:
        """
        Arguments:
            scheduler: a ``torch.optim.lr_scheduler`` scheduler (anything with ``step()``,
                ``state_dict()`` and ``load_state_dict()``).
            step_mode: an :class:`LRScheduler.StepMode`.
            frequency: step every ``frequency`` epochs, batches or optimizer steps (>= 1).
        """
        if scheduler is None:
            raise ValueError("LRScheduler needs a scheduler, got None")
        if not isinstance(step_mode, LRScheduler.StepMode):
            raise TypeError(
                f"step_mode must be an LRScheduler.StepMode, got {type(step_mode).__name__}"
            )
        if not isinstance(frequency, int) or frequency < 1:
            raise ValueError(f"frequency must be an int >= 1, got {frequency!r}")
        self._scheduler = scheduler
        self._step_mode = step_mode
        self._frequency = frequency

    @property
    def scheduler(self) -> Any:
        """The wrapped torch scheduler."""
        return self._scheduler

    @property
    def step_mode(self) -> "LRScheduler.StepMode":
        return self._step_mode

    @property
    def frequency(self) -> int:
        return self._frequency

    def step(self, *args: Any, **kwargs: Any) -> None:
        """Steps the wrapped scheduler (for ``MANUAL_STEP``, or to step it yourself)."""
        self._scheduler.step(*args, **kwargs)

    def get_last_lr(self) -> List[float]:
        return list(self._scheduler.get_last_lr())

    def state_dict(self) -> Dict[str, Any]:
        return dict(self._scheduler.state_dict())

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self._scheduler.load_state_dict(state_dict)
