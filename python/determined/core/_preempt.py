import enum
import logging
from typing import Any

from determined.core._distributed import DistributedContext

logger = logging.getLogger("determined.core")


class PreemptMode(enum.Enum):
    """
    Who may call ``should_preempt()``: ``WorkersAskChief`` (default; all workers call it in step and
    the chief's answer is broadcast), ``ChiefOnly``, or ``WorkersAskMaster``.
    """

    WorkersAskChief = "WORKERS_ASK_CHIEF"
    ChiefOnly = "CHIEF_ONLY"
    WorkersAskMaster = "WORKERS_ASK_MASTER"


class PreemptContext:
    """
    Tells the training loop when to checkpoint and exit: the master signals preemption when the
    scheduler needs the slots, the experiment is paused, or the searcher stops the trial. A
    background thread long-polls the master, so ``should_preempt()`` does not wait on the network
    (except for the first answer).
    """

    def __init__(
        self,
        native_ctx: Any,
        dist: DistributedContext,
        preempt_mode: PreemptMode = PreemptMode.WorkersAskChief,
    ) -> None:
        self._native = native_ctx
        self._dist = dist
        self._preempt_mode = PreemptMode(preempt_mode)
        self._started = False

    def start(self) -> "PreemptContext":
        if self._started:
            raise RuntimeError("you cannot call PreemptContext.start() multiple times")
        self._started = True
        if self._asks_master():
            self._native.start()
        return self

    def _asks_master(self) -> bool:
        """The chief always polls the master; the other workers only in WorkersAskMaster mode."""
        return self._dist.rank == 0 or self._preempt_mode == PreemptMode.WorkersAskMaster

    def close(self) -> None:
        self._native.close()

    def __enter__(self) -> "PreemptContext":
        return self.start()

    def __exit__(self, *_: Any) -> None:
        self.close()

    def should_preempt(self, auto_ack: bool = True) -> bool:
        """
        True when the task should checkpoint and exit. With ``auto_ack`` (the default), the first
        True is acknowledged to the master, so that exiting 0 means "preempted, resume later" rather
        than "finished".
        """
        if not self._started:
            raise RuntimeError(
                "you cannot call PreemptContext.should_preempt() before PreemptContext.start()"
            )
        if self._preempt_mode == PreemptMode.ChiefOnly and self._dist.rank != 0:
            raise RuntimeError(
                "should_preempt() cannot be called from a non-chief worker in PreemptMode.ChiefOnly"
            )
        out = bool(self._native.should_preempt(auto_ack)) if self._asks_master() else False
        if self._preempt_mode == PreemptMode.WorkersAskChief:
            # Every worker gets the chief's answer, so they all stop at the same step.
            out = self._dist.broadcast(out)
        logger.debug(f"should_preempt() -> {out}")
        return out

    def acknowledge_preemption_signal(self) -> None:
        """Tells the master this task is shutting down because of the preemption signal."""
        logger.debug("acknowledge_preemption_signal()")
        self._native.acknowledge_preemption_signal()


class DummyPreemptContext(PreemptContext):
    """Off-cluster: ``should_preempt()`` is always False."""

    def __init__(
        self,
        dist: DistributedContext,
        preempt_mode: PreemptMode = PreemptMode.WorkersAskChief,
    ) -> None:
        self._dist = dist
        self._preempt_mode = PreemptMode(preempt_mode)
        self._started = False

    def start(self) -> "PreemptContext":
        if self._started:
            raise RuntimeError("you cannot call PreemptContext.start() multiple times")
        self._started = True
        return self

    def close(self) -> None:
        pass

    def should_preempt(self, auto_ack: bool = True) -> bool:
        if not self._started:
            raise RuntimeError(
                "you cannot call PreemptContext.should_preempt() before PreemptContext.start()"
            )
        return False

    def acknowledge_preemption_signal(self) -> None:
        pass
