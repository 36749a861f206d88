"""What a task knows about itself: ``det.get_cluster_info()``."""

import json
import os
from typing import Any, Dict, List, Optional, Union

from determined._native import native


class TrialInfo:
    """The trial part of :class:`ClusterInfo` (only for tasks of type ``TRIAL``)."""

    def __init__(
        self,
        trial_id: int,
        experiment_id: int,
        trial_seed: int,
        hparams: Dict[str, Any],
        config: Dict[str, Any],
        steps_completed: int,
        trial_run_id: int,
    ) -> None:
        #: The ID of the current trial.
        self.trial_id = trial_id
        #: The ID of the current trial's experiment.
        self.experiment_id = experiment_id
        #: The random seed for the current trial.
        self.trial_seed = trial_seed
        #: The hyperparameter values of the current trial (nested hyperparameters are dicts).
        self.hparams = hparams
        self._config = config
        self._steps_completed = steps_completed
        self._trial_run_id = trial_run_id

    @property
    def id(self) -> int:
        return self.trial_id

    @property
    def config(self) -> Dict[str, Any]:
        """The full experiment config (its shape is not a stable API; prefer hparams and data)."""
        return self._config

    @property
    def steps_completed(self) -> int:
        return self._steps_completed

    @property
    def trial_run_id(self) -> int:
        return self._trial_run_id


class RendezvousInfo:
    """Where the allocation's containers (one process per agent) are: their addresses and slot counts by
    rank, the chief first, and this container's rank."""

    def __init__(
        self, container_addrs: List[str], container_rank: int, container_slot_counts: List[int]
    ) -> None:
        self.container_addrs = container_addrs
        self.container_rank = container_rank
        self.container_slot_counts = container_slot_counts


class ClusterInfo:
    """
    What a task running on a Determined cluster knows about itself. Use
    ``det.get_cluster_info()``; it returns None when not running on a cluster.
    """

    def __init__(
        self,
        master_url: str,
        cluster_id: str,
        agent_id: str,
        slot_ids: List[int],
        task_id: str,
        allocation_id: str,
        session_token: str,
        task_type: str,
        master_cert_name: Optional[str] = None,
        master_cert_file: Optional[str] = None,
        latest_checkpoint: Optional[str] = None,
        trial_info: Optional[TrialInfo] = None,
        rendezvous_info: Optional[RendezvousInfo] = None,
    ) -> None:
        #: The URL of the master.
        self.master_url = master_url
        #: The unique identifier of this cluster.
        self.cluster_id = cluster_id
        #: The agent this task runs on.
        self.agent_id = agent_id
        #: The slot ids assigned to this task.
        self.slot_ids = slot_ids
        #: The current task.
        self.task_id = task_id
        #: The current allocation.
        self.allocation_id = allocation_id
        #: The allocation token the harness authenticates with.
        self.session_token = session_token
        #: ``"TRIAL"``, ``"COMMAND"``, ``"NOTEBOOK"``, ``"SHELL"``, ``"TENSORBOARD"``, ...
        self.task_type = task_type
        self.master_cert_name = master_cert_name
        self.master_cert_file = master_cert_file
        self._latest_checkpoint = latest_checkpoint
        self._trial_info = trial_info
        self._rendezvous_info = rendezvous_info or RendezvousInfo(["127.0.0.1"], 0, [len(slot_ids)])

    @classmethod
    def _from_native(cls, d: Dict[str, Any]) -> "ClusterInfo":
        trial = None
        t = d.get("trial")
        if t is not None:
            trial = TrialInfo(
                trial_id=int(t["trial_id"]),
                experiment_id=int(t["experiment_id"]),
                trial_seed=int(t["trial_seed"]),
                hparams=json.loads(t["hparams_json"]),
                config=json.loads(t["config_json"]),
                steps_completed=int(t["steps_completed"]),
                trial_run_id=int(t["trial_run_id"]),
            )
        return cls(
            master_url=d["master_url"],
            cluster_id=d["cluster_id"],
            agent_id=d["agent_id"],
            slot_ids=list(d["slot_ids"]),
            task_id=d["task_id"],
            allocation_id=d["allocation_id"],
            session_token=d["session_token"],
            task_type=d["task_type"],
            master_cert_name=os.environ.get("DET_MASTER_CERT_NAME"),
            master_cert_file=os.environ.get("DET_MASTER_CERT_FILE"),
            latest_checkpoint=d.get("latest_checkpoint"),
            trial_info=trial,
            rendezvous_info=RendezvousInfo(
                container_addrs=list(d["container_addrs"]),
                container_rank=int(d["container_rank"]),
                container_slot_counts=list(d["container_slot_counts"]),
            ),
        )

    @property
    def latest_checkpoint(self) -> Optional[str]:
        """The UUID of the checkpoint to resume from, or None (always None for non-trial tasks)."""
        if self.task_type != "TRIAL":
            return None
        return self._latest_checkpoint

    @property
    def trial(self) -> TrialInfo:
        """The :class:`TrialInfo` of a trial task; RuntimeError for other task types."""
        if self.task_type != "TRIAL" or self._trial_info is None:
            raise RuntimeError(
                f'you cannot use the .trial property when .task_type ("{self.task_type}") != '
                '"TRIAL"'
            )
        return self._trial_info

    @property
    def user_data(self) -> Dict[str, Any]:
        """The ``data`` field of the experiment config ({} for non-trial tasks)."""
        if self.task_type != "TRIAL" or self._trial_info is None:
            return {}
        data = self._trial_info._config.get("data")
        return data if isinstance(data, dict) else {}

    @property
    def container_addrs(self) -> List[str]:
        """Addresses of the allocation's containers (one process per agent), by rank: the chief first."""
        return list(self._rendezvous_info.container_addrs)

    @property
    def container_rank(self) -> int:
        """This container's rank among the allocation's containers."""
        return self._rendezvous_info.container_rank

    @property
    def container_slot_counts(self) -> List[int]:
        """How many slots each container has, by rank."""
        return list(self._rendezvous_info.container_slot_counts)

    @property
    def gpu_uuids(self) -> List[str]:
        """The uuids of this task's GPUs: the agent gives each task exactly its own, in
        CUDA_VISIBLE_DEVICES."""
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        return [d for d in visible.split(",") if d.startswith(("GPU-", "MIG-"))]


_info: Union[ClusterInfo, None, str] = "unloaded"


def _looks_on_cluster() -> bool:
    env = os.environ
    return bool(env.get("DET_MASTER")) and bool(
        env.get("DET_ALLOCATION_ID") or env.get("DET_TRIAL_ID")
    )


def get_cluster_info() -> Optional[ClusterInfo]:
    """
    Returns the :class:`ClusterInfo` of the current task, or None when not running on a cluster.
    Read once from the environment the master and agent set up, then cached.
    """
    global _info
    if isinstance(_info, str):
        if not _looks_on_cluster():
            # Off-cluster needs no compiled module.
            _info = None
        else:
            d = native().cluster_info_from_env()
            _info = None if d is None else ClusterInfo._from_native(d)
    return _info


def _reset_cluster_info_for_test() -> None:
    global _info
    _info = "unloaded"
