"""Projects: the groups of experiments inside a workspace (upstream's ``Project``)."""

import itertools
from typing import Any, Dict, List, Optional

from determined.common import api
from determined.common.experimental import experiment


class Project:
    """
    A project, from ``Workspace.get_project()``, ``Workspace.list_projects()`` or
    ``client.get_project()``.

    Attributes:
        id: the project's ID.
        name, description, key, archived, notes, n_experiments, n_active_experiments, username,
        workspace_id: (Mutable) as the master reports them; ``reload()`` refreshes them. ``notes``
        is a list of ``{"name", "contents"}`` dicts.
    """

    def __init__(self, session: api.Session, project_id: int) -> None:
        self._session = session
        self.id = project_id
        self.archived: Optional[bool] = None
        self.description: Optional[str] = None
        self.n_active_experiments: Optional[int] = None
        self.n_experiments: Optional[int] = None
        self.name: Optional[str] = None
        self.notes: Optional[List[Dict[str, str]]] = None
        self.workspace_id: Optional[int] = None
        self.username: Optional[str] = None
        self.key: Optional[str] = None

    def __repr__(self) -> str:
        return f"Project(id={self.id}, name={self.name!r})"

    @classmethod
    def _from_json(cls, p: Dict[str, Any], session: api.Session) -> "Project":
        project = cls(session, int(p["id"]))
        project._hydrate(p)
        return project

    def _hydrate(self, p: Dict[str, Any]) -> None:
        self.archived = bool(p.get("archived"))
        self.description = p.get("description")
        self.n_active_experiments = p.get("numActiveExperiments")
        self.n_experiments = p.get("numExperiments")
        self.name = p.get("name")
        self.notes = [{"name": n.get("name"), "contents": n.get("contents")} for n in p.get("notes") or []]
        self.workspace_id = p.get("workspaceId")
        self.username = p.get("username")
        self.key = p.get("key")

    def reload(self) -> None:
        self._hydrate(self._session.get(f"/api/v1/projects/{self.id}")["project"])

    def list_experiments(self) -> List[experiment.Experiment]:
        """The project's experiments."""
        def page(offset: int) -> Dict[str, Any]:
            return self._session.get("/api/v1/experiments", params={"projectId": self.id, "offset": offset})

        found = itertools.chain.from_iterable(r.get("experiments") or [] for r in api.read_paginated(page))
        return [experiment.Experiment._from_json(e, self._session) for e in found]

    def _patch(self, **fields: Any) -> None:
        self._hydrate(self._session.patch(f"/api/v1/projects/{self.id}", body=fields)["project"])

    def set_description(self, description: str) -> None:
        self._patch(description=description)

    def set_key(self, key: str) -> None:
        self._patch(key=key)

    def set_name(self, name: str) -> None:
        self._patch(name=name)

    def archive(self) -> None:
        self._session.post(f"/api/v1/projects/{self.id}/archive")
        self.archived = True

    def unarchive(self) -> None:
        self._session.post(f"/api/v1/projects/{self.id}/unarchive")
        self.archived = False
