"""The model registry: models and their versions (registered checkpoints)."""

import datetime
import enum
import urllib.parse
from typing import Any, Dict, Iterable, Iterator, List, Optional

from determined.common import api
from determined.common.experimental._util import OrderBy, parse_timestamp
from determined.common.experimental.checkpoint import Checkpoint
from determined.common.experimental import metrics
from determined.common.experimental.metrics import TrialMetrics


class ModelSortBy(enum.Enum):
    """How ``list_models`` sorts."""

    UNSPECIFIED = "SORT_BY_UNSPECIFIED"
    NAME = "SORT_BY_NAME"
    DESCRIPTION = "SORT_BY_DESCRIPTION"
    CREATION_TIME = "SORT_BY_CREATION_TIME"
    LAST_UPDATED_TIME = "SORT_BY_LAST_UPDATED_TIME"
    NUM_VERSIONS = "SORT_BY_NUM_VERSIONS"
    WORKSPACE = "SORT_BY_WORKSPACE"


ModelOrderBy = OrderBy


class ModelVersion:
    """
    A version of a model: one registered checkpoint, numbered within its model.

    Attributes:
        checkpoint: the registered ``Checkpoint``.
        model_version: its number (1, 2, ...).
        model_name, model_id: its model's.
        name, comment, notes, metadata, labels: as the master reports them.
    """

    def __init__(self, session: api.Session, v: Dict[str, Any]) -> None:
        self._session = session
        model = v.get("model") or {}
        self.model_id: int = int(model.get("id", 0))
        self.model_name: str = model.get("name", "")
        self.model_version: int = int(v["version"])
        self.name: str = v.get("name", "")
        self.comment: str = v.get("comment", "")
        self.notes: str = v.get("notes", "")
        self.metadata: Dict[str, Any] = v.get("metadata") or {}
        self.labels: List[str] = list(v.get("labels") or [])
        self.creation_time: Optional[datetime.datetime] = parse_timestamp(v.get("creationTime"))
        self.checkpoint: Optional[Checkpoint] = (
            Checkpoint._from_json(v["checkpoint"], session) if v.get("checkpoint") else None)

    def __repr__(self) -> str:
        return f"ModelVersion(model_name={self.model_name!r}, model_version={self.model_version})"

    def _path(self) -> str:
        return f"/api/v1/models/{self.model_id}/versions/{self.model_version}"

    def _patch(self, **fields: Any) -> None:
        self._session.patch(self._path(), body=fields)

    def set_name(self, name: str) -> None:
        self._patch(name=name)
        self.name = name

    def set_notes(self, notes: str) -> None:
        self._patch(notes=notes)
        self.notes = notes

    def set_comment(self, comment: str) -> None:
        self._patch(comment=comment)
        self.comment = comment

    def set_labels(self, labels: Iterable[str]) -> None:
        self.labels = list(labels)
        self._patch(labels=self.labels)

    def add_metadata(self, metadata: Dict[str, Any]) -> None:
        """Merges `metadata` into the version's (top-level keys replaced)."""
        self.metadata = {**self.metadata, **metadata}
        self._patch(metadata=self.metadata)

    def remove_metadata(self, keys: Iterable[str]) -> None:
        self.metadata = {k: v for k, v in self.metadata.items() if k not in set(keys)}
        self._patch(metadata=self.metadata)

    def delete(self) -> None:
        self._session.delete(self._path())

    def get_metrics(self, group: Optional[str] = None) -> Iterator[TrialMetrics]:
        """
        The metrics of the inference trials that used this version (those that called
        ``core_context.experimental.report_task_using_model_version``): of ``group`` ("training",
        "validation", "inference", ...), or of every group when None.
        """
        return metrics._source_trial_metrics(self._session, f"{self._path()}/metrics", group)


class Model:
    """
    A model of the registry, usually from ``client.create_model()`` or ``client.get_model()``.

    Attributes:
        model_id, name, description, metadata, labels, notes, workspace_id, archived, username,
        creation_time, last_updated_time: as the master reports them; ``reload()`` refreshes them.
    """

    def __init__(self, session: api.Session, m: Dict[str, Any]) -> None:
        self._session = session
        self._hydrate(m)

    def __repr__(self) -> str:
        return f"Model(model_id={self.model_id}, name={self.name!r})"

    def _hydrate(self, m: Dict[str, Any]) -> None:
        self.model_id: int = int(m["id"])
        self.name: str = m.get("name", "")
        self.description: str = m.get("description", "")
        self.metadata: Dict[str, Any] = m.get("metadata") or {}
        self.labels: List[str] = list(m.get("labels") or [])
        self.notes: str = m.get("notes", "")
        self.workspace_id: int = int(m.get("workspaceId", 1))
        self.archived: bool = bool(m.get("archived"))
        self.username: str = m.get("username", "")
        self.creation_time: Optional[datetime.datetime] = parse_timestamp(m.get("creationTime"))
        self.last_updated_time: Optional[datetime.datetime] = parse_timestamp(m.get("lastUpdatedTime"))

    def _path(self) -> str:
        return f"/api/v1/models/{self.model_id}"

    def reload(self) -> None:
        self._hydrate(self._session.get(self._path())["model"])

    def _patch(self, **fields: Any) -> None:
        self._hydrate(self._session.patch(self._path(), body=fields)["model"])

    def get_version(self, version: int = -1) -> Optional[ModelVersion]:
        """Version `version`, or the latest with -1; None when the model has none."""
        if version == -1:
            resp = self._session.get(f"{self._path()}/versions", params={
                "sortBy": "SORT_BY_VERSION", "orderBy": "ORDER_BY_DESC", "limit": 1})
            found = resp.get("modelVersions") or []
            return ModelVersion(self._session, found[0]) if found else None
        resp = self._session.get(f"{self._path()}/versions/{version}")
        return ModelVersion(self._session, resp["modelVersion"])

    def list_versions(self, order_by: OrderBy = OrderBy.DESCENDING) -> List[ModelVersion]:
        resp = self._session.get(f"{self._path()}/versions", params={"orderBy": order_by.value})
        return [ModelVersion(self._session, v) for v in resp.get("modelVersions") or []]

    get_versions = list_versions

    def register_version(self, checkpoint_uuid: str) -> ModelVersion:
        resp = self._session.post(f"{self._path()}/versions", body={"checkpointUuid": checkpoint_uuid})
        return ModelVersion(self._session, resp["modelVersion"])

    def set_description(self, description: str) -> None:
        self._patch(description=description)

    def set_labels(self, labels: Iterable[str]) -> None:
        self._patch(labels=list(labels))

    def add_metadata(self, metadata: Dict[str, Any]) -> None:
        """Merges `metadata` into the model's (top-level keys replaced)."""
        self._patch(metadata={**self.metadata, **metadata})

    def remove_metadata(self, keys: Iterable[str]) -> None:
        dropped = set(keys)
        self._patch(metadata={k: v for k, v in self.metadata.items() if k not in dropped})

    def move_to_workspace(self, workspace_name: str) -> None:
        found = self._session.get("/api/v1/workspaces", params={"name": workspace_name,
                                                                 "nameCaseSensitive": True})["workspaces"]
        if not found:
            raise ValueError(f"no workspace is named {workspace_name!r}")
        self._session.post(f"{self._path()}/move", body={"destinationWorkspaceId": found[0]["id"]})
        self.reload()

    def archive(self) -> None:
        self._session.post(f"{self._path()}/archive")
        self.reload()

    def unarchive(self) -> None:
        self._session.post(f"{self._path()}/unarchive")
        self.reload()

    def delete(self) -> None:
        self._session.delete(self._path())


def model_path(identifier: Any) -> str:
    """The path of a model named by name or id."""
    return f"/api/v1/models/{urllib.parse.quote(str(identifier), safe='')}"
