"""Checkpoints: their facts, downloading their files, and their user metadata."""

import dataclasses
import datetime
import enum
import json
import os
import pathlib
import shutil
from typing import Any, Dict, Iterator, List, Optional

from determined.common import api
from determined.common.experimental import _util
from determined.common.experimental import metrics
from determined.common.experimental.metrics import TrialMetrics


class CheckpointState(enum.Enum):
    UNSPECIFIED = "STATE_UNSPECIFIED"
    ACTIVE = "STATE_ACTIVE"
    COMPLETED = "STATE_COMPLETED"
    ERROR = "STATE_ERROR"
    DELETED = "STATE_DELETED"
    PARTIALLY_DELETED = "STATE_PARTIALLY_DELETED"


class CheckpointSortBy(enum.Enum):
    """A checkpoint attribute to sort a list of checkpoints by."""

    UUID = "SORT_BY_UUID"
    TRIAL_ID = "SORT_BY_TRIAL_ID"
    BATCH_NUMBER = "SORT_BY_BATCH_NUMBER"
    END_TIME = "SORT_BY_END_TIME"
    STATE = "SORT_BY_STATE"
    SEARCHER_METRIC = "SORT_BY_SEARCHER_METRIC"


class DownloadMode(enum.Enum):
    """How ``Checkpoint.download`` reaches the files: ``DIRECT`` reads the checkpoint storage
    from this machine, ``MASTER`` has the master send them, ``AUTO`` tries direct access."""

    DIRECT = "direct"
    MASTER = "master"
    AUTO = "auto"


@dataclasses.dataclass
class CheckpointTrainingMetadata:
    """What the trial that saved a checkpoint knew: the experiment's config, the trial's
    hyperparameters, and the validation at the checkpoint's step (``{"avgMetrics": {...}}``)."""

    experiment_config: Dict[str, Any]
    experiment_id: int
    trial_id: int
    hparams: Dict[str, Any]
    validation_metrics: Dict[str, Any]
    training_metrics: Dict[str, Any] = dataclasses.field(default_factory=dict)
    searcher_metric: Optional[float] = None

    @classmethod
    def _from_json(cls, t: Optional[Dict[str, Any]]) -> "Optional[CheckpointTrainingMetadata]":
        if not t or not t.get("trialId"):
            return None
        return cls(
            experiment_config=t.get("experimentConfig") or {},
            experiment_id=int(t.get("experimentId") or 0),
            trial_id=int(t["trialId"]),
            hparams=t.get("hparams") or {},
            validation_metrics=t.get("validationMetrics") or {},
            training_metrics=t.get("trainingMetrics") or {},
            searcher_metric=t.get("searcherMetric"),
        )


def _shared_fs_base(storage: Dict[str, Any]) -> pathlib.Path:
    """host_path, or storage_path under it (relative to host_path, or absolute inside it)."""
    host = storage.get("host_path")
    if not host or not os.path.isabs(host):
        raise ValueError(f"checkpoint_storage.host_path: must be an absolute path, got {host!r}")
    base = pathlib.Path(os.path.normpath(host))
    sp = storage.get("storage_path")
    if sp:
        base = pathlib.Path(os.path.normpath(sp if os.path.isabs(sp) else os.path.join(base, sp)))
    return base


def checkpoint_location(storage: Dict[str, Any], uuid: str) -> str:
    """Where a checkpoint's files live, as ``det checkpoint describe`` shows it ("" if unknown)."""
    kind = storage.get("type")
    if kind == "shared_fs":
        return str(_shared_fs_base(storage) / uuid)
    if kind == "directory" and storage.get("container_path"):
        return os.path.normpath(os.path.join(storage["container_path"], uuid))
    scheme = {"s3": "s3://", "gcs": "gs://", "azure": "azure://"}.get(str(kind))
    if scheme:
        bucket = storage.get("container" if kind == "azure" else "bucket") or ""
        prefix = str(storage.get("prefix") or "").strip("/")
        return f"{scheme}{bucket}/{prefix + '/' if prefix else ''}{uuid}"
    return ""


class Checkpoint:
    """
    A checkpoint a trial reported, usually from ``client.get_checkpoint(uuid)``,
    ``Experiment.list_checkpoints()`` or ``Trial.list_checkpoints()``.

    Attributes:
        uuid: the checkpoint's UUID (its storage id).
        task_id, allocation_id: the task and allocation that saved it.
        report_time: when it was reported (a datetime).
        resources: ``{path: size in bytes}`` of its files.
        metadata: its metadata (``steps_completed`` and any user metadata).
        state: a ``CheckpointState``.
        training: a ``CheckpointTrainingMetadata``, or None for checkpoints not saved by trials.
    """

    def __init__(self, session: api.Session, task_id: Optional[str], allocation_id: Optional[str],
                 uuid: str, report_time: Optional[datetime.datetime], resources: Dict[str, int],
                 metadata: Dict[str, Any], state: CheckpointState,
                 training: Optional[CheckpointTrainingMetadata] = None,
                 storage_id: Optional[int] = None) -> None:
        self._session = session
        self.task_id = task_id
        self.allocation_id = allocation_id
        self.uuid = uuid
        self.report_time = report_time
        self.resources = resources
        self.metadata = metadata
        self.state = state
        self.training = training
        self.storage_id = storage_id

    def __repr__(self) -> str:
        return f"Checkpoint(uuid={self.uuid})"

    def _hydrate(self, c: Dict[str, Any]) -> None:
        self.task_id = c.get("taskId")
        self.allocation_id = c.get("allocationId")
        self.report_time = _util.parse_timestamp(c.get("reportTime"))
        self.resources = _util.int_map(c.get("resources"))
        self.metadata = dict(c.get("metadata") or {})
        self.state = CheckpointState(c.get("state") or "STATE_UNSPECIFIED")
        self.training = CheckpointTrainingMetadata._from_json(c.get("training"))
        self.storage_id = c.get("storageId")

    @classmethod
    def _from_json(cls, c: Dict[str, Any], session: api.Session) -> "Checkpoint":
        ckpt = cls(session, None, None, str(c.get("uuid") or ""), None, {}, {},
                   CheckpointState.UNSPECIFIED)
        ckpt._hydrate(c)
        return ckpt

    def reload(self) -> None:
        """Refreshes the cached attributes from the master."""
        self._hydrate(self._session.get(f"/api/v1/checkpoints/{self.uuid}")["checkpoint"])

    # --- files ---

    def _storage(self) -> Dict[str, Any]:
        config = self.training.experiment_config if self.training else None
        if not config and self.training:
            exp = self._session.get(f"/api/v1/experiments/{self.training.experiment_id}")
            config = exp.get("config") or (exp.get("experiment") or {}).get("config") or {}
        storage = (config or {}).get("checkpoint_storage")
        if not storage:
            raise NotImplementedError(
                f"checkpoint {self.uuid} has no experiment config with a checkpoint_storage; "
                "non-training checkpoints cannot be downloaded")
        return dict(storage)

    def download(self, path: Optional[str] = None,
                 mode: DownloadMode = DownloadMode.AUTO) -> str:
        """
        Downloads the checkpoint's files into ``path`` (default ``checkpoints/<uuid>`` under the
        current directory) and returns that path. A directory that already holds the
        checkpoint (a ``metadata.json``) is left as it is. ``shared_fs`` and ``directory``
        storage are copied from this machine's paths; other storage (s3) is read with the
        harness's compiled storage client when it is available. ``metadata.json`` is written
        with the checkpoint's current metadata when the files lack it.
        """
        if mode == DownloadMode.MASTER:
            raise NotImplementedError(
                "DownloadMode.MASTER: this master does not serve checkpoint files "
                "(GET /checkpoints/{uuid}); use DownloadMode.DIRECT")
        local = pathlib.Path(path) if path is not None else pathlib.Path("checkpoints", self.uuid)
        if not (local / "metadata.json").exists():
            if self.state == CheckpointState.DELETED:
                raise ValueError(
                    f"checkpoint {self.uuid} was deleted from checkpoint storage (state DELETED)")
            storage = self._storage()
            kind = storage.get("type")
            if kind in ("shared_fs", "directory"):
                src = pathlib.Path(checkpoint_location(storage, self.uuid))
                if not src.is_dir():
                    raise FileNotFoundError(
                        f"checkpoint {self.uuid} not found at {src}: this machine needs the "
                        f"experiment's {kind} checkpoint storage mounted at the same path")
                shutil.copytree(str(src), str(local), dirs_exist_ok=True)
            else:
                self._download_native(storage, local)
            missing = [p for p in self.resources if not p.endswith("/")
                       and not (local / p).exists()]
            if missing:
                raise FileNotFoundError(
                    f"checkpoint {self.uuid}: {', '.join(sorted(missing))} missing from "
                    f"{checkpoint_location(storage, self.uuid)}")
        if not (local / "metadata.json").exists():
            self.write_metadata_file(str(local / "metadata.json"))
        return str(local)

    def _download_native(self, storage: Dict[str, Any], local: pathlib.Path) -> None:
        try:
            from determined._native import native

            manager = native().StorageManager(json.dumps(storage))
        except ImportError as e:
            raise NotImplementedError(
                f"checkpoint {self.uuid} is in {storage.get('type')} storage, which needs the "
                f"harness's compiled module to read ({e})") from e
        local.mkdir(parents=True, exist_ok=True)
        manager.download_prefix(self.uuid, str(local))

    def write_metadata_file(self, path: str) -> None:
        """Writes the checkpoint's metadata, as JSON, to ``path``."""
        with open(path, "w") as f:
            json.dump(self.metadata, f, indent=2)

    # --- metadata ---

    def get_metadata(self) -> Dict[str, Any]:
        """The checkpoint's current metadata, read from the master."""
        self.reload()
        return dict(self.metadata)

    def _push_metadata(self, metadata: Dict[str, Any]) -> None:
        # Upstream's PostCheckpointMetadata: the whole metadata replaces the stored one.
        resp = self._session.post(
            f"/api/v1/checkpoints/{self.uuid}/metadata",
            body={"checkpoint": {"uuid": self.uuid, "metadata": metadata}})
        stored = (resp or {}).get("checkpoint") or {}
        self.metadata = dict(stored.get("metadata") or metadata)

    def add_metadata(self, metadata: Dict[str, Any]) -> None:
        """
        Adds the keys of ``metadata`` (a JSON-serializable dict) to the checkpoint's metadata,
        replacing the values of keys it already has. The files in checkpoint storage are not
        changed.
        """
        merged = dict(self.metadata)
        merged.update(metadata)
        self._push_metadata(merged)

    def remove_metadata(self, keys: List[str]) -> None:
        """Removes the given top-level keys from the checkpoint's metadata."""
        self._push_metadata({k: v for k, v in self.metadata.items() if k not in set(keys)})

    def get_metrics(self, group: Optional[str] = None) -> Iterator[TrialMetrics]:
        """
        The metrics of the inference trials that used this checkpoint (those that called
        ``core_context.experimental.report_task_using_checkpoint``): of ``group`` ("training",
        "validation", "inference", ...), or of every group when None.
        """
        return metrics._source_trial_metrics(self._session, f"/api/v1/checkpoints/{self.uuid}/metrics", group)

    def delete(self) -> None:
        """Deletes the checkpoint's files from storage; its state becomes ``DELETED``."""
        self._session.delete("/api/v1/checkpoints", body={"checkpointUuids": [self.uuid]})

    def remove_files(self, globs: List[str]) -> None:
        """
        Removes the checkpoint's files that ``globs`` name (relative to the checkpoint's directory,
        ``**`` crossing directories; a directory names everything under it). The master removes
        them in the background; the checkpoint becomes ``PARTIALLY_DELETED``, or ``DELETED`` when
        no file is left.
        """
        self._session.post("/api/v1/checkpoints/rm",
                           body={"checkpointUuids": [self.uuid], "checkpointGlobs": list(globs)})
