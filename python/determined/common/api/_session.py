"""An authenticated HTTP session to one master's REST API (``/api/v1/...``)."""

import enum
import json
from typing import Any, Dict, Iterator, Optional, Union

import requests

from determined.common.api import errors

# A master answers the SDK's unary calls quickly; streams (logs with follow) have no read timeout.
_TIMEOUT_S = 60.0


def _query_value(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, enum.Enum):  # the SDK's enums hold the wire names ("STATE_ACTIVE")
        return v.value
    return v


def _clean_params(params: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Drops None values; bools become true/false; lists become repeated keys (via requests)."""
    out: Dict[str, Any] = {}
    for k, v in (params or {}).items():
        if v is None:
            continue
        if isinstance(v, (list, tuple, set)):
            out[k] = [_query_value(x) for x in v]
        else:
            out[k] = _query_value(v)
    return out


def _stream_error(path: str, err: Any) -> errors.APIException:
    """A mid-stream error line: ``{"error": {"grpcCode", "httpCode", "message", ...}}``."""
    if not isinstance(err, dict):
        return errors.APIException(500, str(err), method="GET", path=path)
    status = 500
    for key in ("httpCode",):
        try:
            status = int(err[key])
            break
        except (KeyError, TypeError, ValueError):
            continue
    message = str(err.get("message") or err.get("error") or err)
    return errors.APIException(status, message, str(err.get("reason") or ""), "GET", path)


class Session:
    """
    An authenticated connection to a master: ``get``, ``post``, ``put``, ``patch`` and ``delete``
    take a path (``"/api/v1/experiments"`` or ``"api/v1/experiments"``), return the decoded JSON
    body (``{}`` for an empty one), and raise ``errors.APIException`` subclasses for error
    statuses. ``stream`` yields each ``result`` of a server-streaming (newline-delimited JSON)
    call. Not thread-safe: a thread should use its own ``Session``.
    """

    def __init__(self, master: str, username: Optional[str], token: Optional[str],
                 cert: Union[bool, str, None] = None) -> None:
        self.master = master.rstrip("/")
        self.username = username or ""
        self.token = token
        self.cert = True if cert is None else cert
        self._http = requests.Session()
        self._http.verify = self.cert

    def close(self) -> None:
        """Closes the session's pooled connections (the session stays usable)."""
        self._http.close()

    def __del__(self) -> None:
        try:
            self._http.close()
        except Exception:
            pass

    def _url(self, path: str) -> str:
        return f"{self.master}/{path.lstrip('/')}"

    def _headers(self) -> Dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def _request(self, method: str, path: str, params: Optional[Dict[str, Any]] = None,
                 body: Any = None, stream: bool = False,
                 timeout: Optional[float] = _TIMEOUT_S) -> requests.Response:
        kwargs: Dict[str, Any] = {"params": _clean_params(params), "headers": self._headers(),
                                  "stream": stream, "timeout": timeout}
        if body is not None:
            kwargs["data"] = json.dumps(body)
            kwargs["headers"]["Content-Type"] = "application/json"
        try:
            resp = self._http.request(method, self._url(path), **kwargs)
        except requests.exceptions.SSLError:
            raise
        except requests.exceptions.ConnectionError as e:
            raise errors.MasterNotFoundException(self.master, e) from e
        if resp.status_code >= 300:
            raise errors.APIException._from_response(resp)
        return resp

    def _json(self, resp: requests.Response) -> Any:
        if not resp.content:
            return {}
        try:
            return resp.json()
        except ValueError as e:
            raise errors.BadResponseException(
                f"{resp.request.method} {resp.request.path_url}: the master's answer is not "
                f"JSON: {resp.text[:200]!r}") from e

    def get(self, path: str, params: Optional[Dict[str, Any]] = None) -> Any:
        return self._json(self._request("GET", path, params=params))

    def post(self, path: str, body: Any = None, params: Optional[Dict[str, Any]] = None) -> Any:
        return self._json(self._request("POST", path, params=params, body=body))

    def put(self, path: str, body: Any = None, params: Optional[Dict[str, Any]] = None) -> Any:
        return self._json(self._request("PUT", path, params=params, body=body))

    def patch(self, path: str, body: Any = None, params: Optional[Dict[str, Any]] = None) -> Any:
        return self._json(self._request("PATCH", path, params=params, body=body))

    def delete(self, path: str, body: Any = None, params: Optional[Dict[str, Any]] = None) -> Any:
        return self._json(self._request("DELETE", path, params=params, body=body))

    def stream(self, path: str, params: Optional[Dict[str, Any]] = None) -> Iterator[Any]:
        """Yields each line's ``result`` of a streaming call; an ``error`` line raises
        ``APIException``. Closing the generator closes the connection."""
        resp = self._request("GET", path, params=params, stream=True, timeout=None)
        try:
            for line in resp.iter_lines():
                if not line:
                    continue
                try:
                    msg = json.loads(line)
                except ValueError as e:
                    raise errors.BadResponseException(
                        f"GET {path}: a streamed line is not JSON: {line[:200]!r}") from e
                if isinstance(msg, dict) and msg.get("error") is not None:
                    raise _stream_error(path, msg["error"])
                yield msg.get("result") if isinstance(msg, dict) else msg
        finally:
            resp.close()
