"""Logging in to a master as upstream's SDK does, sharing the ``det`` CLI's token cache.

Passwords are hashed on the client (``salt_and_hash``) and sent with ``isHashed: true``.
Tokens are cached per master URL in the CLI's file (``$DET_AUTH_FILE``, else
``~/.config/determined-cpp/auth.json``; ``{"<master url>": {"username", "token"}}``, mode 0600),
so after ``det user login`` the SDK needs no password, and the other way round.
"""

import hashlib
import json
import os
import pathlib
import tempfile
from typing import Dict, Optional, Tuple, Union

import requests

from determined.common.api import errors
from determined.common.api._session import Session

# Upstream's client-side salt (determined.common.api.salt_and_hash).
_PASSWORD_SALT = "GubPEmmotfiK9TMD6Zdw"

DEFAULT_USER = "determined"


def salt_and_hash(password: str) -> str:
    """The password as upstream's clients send it: hex sha512 of the salt and the plaintext;
    an empty password stays empty (it matches only users without a password)."""
    if not password:
        return password
    return hashlib.sha512((_PASSWORD_SALT + password).encode("utf-8")).hexdigest()


def get_default_master_url() -> str:
    """``$DET_MASTER``, else ``$DET_MASTER_ADDR``, else ``localhost:8080``."""
    return os.environ.get("DET_MASTER") or os.environ.get("DET_MASTER_ADDR") or "localhost:8080"


def canonicalize_master_url(url: str) -> str:
    """``host:port`` -> ``http://host:port``; no port -> :8080 (:8443 for https); no trailing
    ``/``. The same key the ``det`` CLI caches tokens under."""
    url = url.rstrip("/")
    if "://" not in url:
        url = "http://" + url
    scheme_end = url.index("://") + 3
    path_start = url.find("/", scheme_end)
    authority = url[scheme_end:] if path_start < 0 else url[scheme_end:path_start]
    colon, bracket = authority.rfind(":"), authority.rfind("]")
    has_port = colon >= 0 and (bracket < 0 or colon > bracket)
    if not has_port and authority:
        port = ":8443" if url.startswith("https://") else ":8080"
        url = url[: scheme_end + len(authority)] + port + url[scheme_end + len(authority):]
    return url


def _auth_file() -> pathlib.Path:
    explicit = os.environ.get("DET_AUTH_FILE")
    if explicit:
        return pathlib.Path(explicit)
    return pathlib.Path.home() / ".config" / "determined-cpp" / "auth.json"


class TokenStore:
    """The CLI's token cache file. A missing or unreadable file is an empty cache."""

    def __init__(self, path: Optional[pathlib.Path] = None) -> None:
        self.path = path or _auth_file()

    def _load(self) -> Dict[str, Dict[str, str]]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, master: str) -> Optional[Tuple[str, str]]:
        """(username, token) cached for ``master``, if any."""
        entry = self._load().get(master)
        if isinstance(entry, dict) and entry.get("username") and entry.get("token"):
            return str(entry["username"]), str(entry["token"])
        return None

    def set(self, master: str, username: str, token: str) -> None:
        data = self._load()
        data[master] = {"username": username, "token": token}
        self._save(data)

    def drop(self, master: str, username: Optional[str] = None) -> None:
        data = self._load()
        entry = data.get(master)
        if entry is None or (username and isinstance(entry, dict)
                             and entry.get("username") != username):
            return
        del data[master]
        self._save(data)

    def _save(self, data: Dict[str, Dict[str, str]]) -> None:
        # Atomically, mode 0600 (it holds credentials), as the CLI writes it.
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=str(self.path.parent), prefix=".auth-")
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=2)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a token we cannot cache still works for this process


def _verify(cert: Union[bool, str, None]) -> Union[bool, str]:
    return True if cert is None else cert


def login(master: str, username: str, password: str,
          cert: Union[bool, str, None] = None) -> Tuple[str, str]:
    """POST /api/v1/auth/login with the hashed password; returns (canonical username, token)."""
    try:
        resp = requests.post(
            f"{master}/api/v1/auth/login",
            json={"username": username, "password": salt_and_hash(password), "isHashed": True},
            timeout=60, verify=_verify(cert))
    except requests.exceptions.SSLError:
        raise
    except requests.exceptions.ConnectionError as e:
        raise errors.MasterNotFoundException(master, e) from e
    if resp.status_code >= 300:
        raise errors.APIException._from_response(resp)
    body = resp.json()
    token = body.get("token")
    if not token:
        raise errors.BadResponseException(f"the master at {master} answered the login without a token")
    name = (body.get("user") or {}).get("username") or username
    return str(name), str(token)


def _token_works(master: str, token: str, cert: Union[bool, str, None]) -> bool:
    try:
        resp = requests.get(f"{master}/api/v1/me", headers={"Authorization": f"Bearer {token}"},
                            timeout=60, verify=_verify(cert))
    except requests.exceptions.ConnectionError as e:
        raise errors.MasterNotFoundException(master, e) from e
    return resp.status_code < 300


def login_with_cache(master: str, user: Optional[str] = None, password: Optional[str] = None,
                     cert: Union[bool, str, None] = None) -> Session:
    """
    A session for ``user`` on ``master`` (a canonical URL):

    - inside a task, ``DET_USER_TOKEN`` (with ``DET_USER``) is used when no other user is asked for;
    - without a password, a token cached for the wanted user (the cached one when ``user`` is
      None) is reused while the master accepts it;
    - otherwise the session logs in as ``user`` (else ``DET_USER``, else the cached user, else
      ``determined``) with ``password`` (else ``DET_PASS``, else blank) and caches the token.
    """
    env_user = os.environ.get("DET_USER") or None
    env_token = os.environ.get("DET_USER_TOKEN") or None
    if env_token and password is None and (user is None or user == env_user):
        return Session(master, env_user or user or "", env_token, cert)

    store = TokenStore()
    wanted = user or env_user
    if password is None:
        cached = store.get(master)
        if cached is not None and (wanted is None or wanted == cached[0]):
            if _token_works(master, cached[1], cert):
                return Session(master, cached[0], cached[1], cert)
        if wanted is None and cached is not None:
            wanted = cached[0]
    wanted = wanted or DEFAULT_USER
    if password is None:
        password = os.environ.get("DET_PASS") if (user is None or user == env_user) else None
    try:
        name, token = login(master, wanted, password or "", cert)
    except (errors.UnauthenticatedException, errors.ForbiddenException) as e:
        raise type(e)(e.status_code, f"cannot log in to {master} as user '{wanted}': {e.message} "
                      "(pass password= to login()/Determined(), set DET_PASS, or run "
                      f"`det user login {wanted}`)", e.reason) from e
    store.set(master, name, token)
    return Session(master, name, token, cert)


def logout(session: Session) -> None:
    """Ends the session's token on the master and forgets it in the token cache."""
    try:
        session.post("/api/v1/auth/logout")
    except errors.APIException:
        pass  # an expired token is as good as logged out
    TokenStore().drop(session.master, session.username)
    session.token = None
