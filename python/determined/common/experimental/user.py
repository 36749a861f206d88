"""Users of a cluster."""

from typing import Any, Dict, Optional

from determined.common import api
from determined.common.api import authentication


class User:
    """
    A user account, usually from ``client.whoami()``, ``client.get_user_by_name()`` or
    ``client.list_users()``.

    Attributes:
        user_id: the user's ID.
        username, admin, active, remote, display_name, agent_uid, agent_gid, agent_user,
        agent_group: (Mutable) as the master reports them; ``reload()`` refreshes them.
    """

    def __init__(self, user_id: int, session: api.Session) -> None:
        self.user_id = user_id
        self._session = session
        self.username: Optional[str] = None
        self.admin: Optional[bool] = None
        self.active: Optional[bool] = None
        self.remote: Optional[bool] = None
        self.display_name: Optional[str] = None
        self.agent_uid: Optional[int] = None
        self.agent_gid: Optional[int] = None
        self.agent_user: Optional[str] = None
        self.agent_group: Optional[str] = None

    def __repr__(self) -> str:
        return f"User(user_id={self.user_id}, username={self.username!r})"

    def _hydrate(self, u: Dict[str, Any]) -> None:
        self.username = u.get("username")
        self.admin = bool(u.get("admin"))
        self.active = u.get("active") if u.get("active") is not None else True
        self.remote = bool(u.get("remote"))
        self.display_name = u.get("displayName")
        group = u.get("agentUserGroup") or {}
        self.agent_uid = group.get("agentUid")
        self.agent_gid = group.get("agentGid")
        self.agent_user = group.get("agentUser")
        self.agent_group = group.get("agentGroup")

    @classmethod
    def _from_json(cls, u: Dict[str, Any], session: api.Session) -> "User":
        user = cls(int(u["id"]), session)
        user._hydrate(u)
        return user

    def reload(self) -> None:
        self._hydrate(self._session.get(f"/api/v1/users/{self.user_id}")["user"])

    def _patch(self, **fields: Any) -> None:
        self._session.patch(f"/api/v1/users/{self.user_id}", body=fields)

    def rename(self, new_username: str) -> None:
        self._patch(username=new_username)
        self.reload()

    def activate(self) -> None:
        self._patch(active=True)
        self.reload()

    def deactivate(self) -> None:
        self._patch(active=False)
        self.reload()

    def change_display_name(self, display_name: str) -> None:
        self._patch(displayName=display_name)
        self.reload()

    def change_password(self, new_password: str) -> None:
        """Sets the user's password (hashed on this side, as upstream's clients do)."""
        self._patch(password=authentication.salt_and_hash(new_password), isHashed=True)

    def link_with_agent(self, agent_uid: Optional[int] = None, agent_gid: Optional[int] = None,
                        agent_user: Optional[str] = None,
                        agent_group: Optional[str] = None) -> None:
        group = {"agentUid": agent_uid, "agentGid": agent_gid, "agentUser": agent_user,
                 "agentGroup": agent_group}
        self._patch(agentUserGroup={k: v for k, v in group.items() if v is not None})
        self.reload()
