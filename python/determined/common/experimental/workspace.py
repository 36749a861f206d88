"""Workspaces: the top level of the cluster's projects and experiments (upstream's ``Workspace``)."""

from typing import Any, Dict, List, Optional

from determined.common import api
from determined.common.api import errors
from determined.common.experimental import project


class Workspace:
    """
    A workspace, from ``client.get_workspace()``, ``client.list_workspaces()`` or
    ``client.create_workspace()``.

    Attributes:
        id: the workspace's ID.
        name: (Mutable) its name; ``reload()`` refreshes it.
    """

    def __init__(self, session: api.Session, workspace_id: Optional[int] = None,
                 workspace_name: Optional[str] = None) -> None:
        if (workspace_id is None) == (workspace_name is None):
            raise ValueError("Workspace must be constructed with either a name or id (not both).")
        self._session = session
        self.name = workspace_name
        self.id = workspace_id if workspace_id is not None else _find(session, str(workspace_name))["id"]

    def __repr__(self) -> str:
        return f"Workspace(id={self.id}, name={self.name!r})"

    @classmethod
    def _from_json(cls, w: Dict[str, Any], session: api.Session) -> "Workspace":
        workspace = cls(session, workspace_id=int(w["id"]))
        workspace._hydrate(w)
        return workspace

    def _hydrate(self, w: Dict[str, Any]) -> None:
        self.id = int(w["id"])
        self.name = w.get("name")

    def reload(self) -> None:
        self._hydrate(self._session.get(f"/api/v1/workspaces/{self.id}")["workspace"])

    def create_project(self, name: str, description: Optional[str] = None) -> project.Project:
        body = {"name": name, "workspaceId": self.id, "description": description}
        resp = self._session.post(f"/api/v1/workspaces/{self.id}/projects", body=body)
        return project.Project._from_json(resp["project"], self._session)

    def delete_project(self, name: str) -> None:
        """Deletes the project named ``name``; NotFoundException when this workspace has none."""
        self._session.delete(f"/api/v1/projects/{self.get_project(name).id}")

    def get_project(self, project_name: str) -> project.Project:
        """The project named ``project_name``; NotFoundException when this workspace has none."""
        resp = self._session.get(f"/api/v1/workspaces/{self.id}/projects", params={"name": project_name})
        for p in resp.get("projects") or []:
            if p.get("name") == project_name:
                return project.Project._from_json(p, self._session)
        raise errors.NotFoundException(404, f"Project '{project_name}' not found in this workspace.")

    def list_projects(self) -> List[project.Project]:
        def page(offset: int) -> Dict[str, Any]:
            return self._session.get(f"/api/v1/workspaces/{self.id}/projects", params={"offset": offset})

        return [project.Project._from_json(p, self._session)
                for r in api.read_paginated(page) for p in r.get("projects") or []]


def _find(session: api.Session, name: str) -> Dict[str, Any]:
    """The workspace named ``name`` exactly; NotFoundException when there is none."""
    resp = session.get("/api/v1/workspaces", params={"name": name})
    for w in resp.get("workspaces") or []:
        if w.get("name") == name:
            return w
    raise errors.NotFoundException(404, f"Workspace {name} not found.")
