"""Exceptions for a master's answers, in upstream's names (``determined.common.api.errors``).

The master answers an error as ``{"error": {"code": <grpc code>, "reason": "<CodeName>",
"error": "<message>"}}`` (grpc-gateway); the HTTP status picks the class:
401 UnauthenticatedException, 403 ForbiddenException, 404 NotFoundException, 400
BadRequestException, anything else >= 300 APIException.
"""

from typing import Any, Optional


class BadResponseException(Exception):
    """The master's answer was not what the API promises (e.g. not JSON)."""


class MasterNotFoundException(Exception):
    """No master answered at the URL."""

    def __init__(self, master: str, cause: Optional[BaseException] = None) -> None:
        self.master = master
        super().__init__(
            f"could not reach the master at {master} ({cause}); set DET_MASTER or pass "
            "master= to login()/Determined()"
        )


class APIException(Exception):
    """An error status from the master. ``status_code`` is the HTTP status, ``message`` the
    master's own message and ``reason`` its gRPC code name (e.g. ``"FailedPrecondition"``)."""

    def __init__(self, status_code: int, message: str, reason: str = "", method: str = "",
                 path: str = "") -> None:
        self.status_code = status_code
        self.message = message
        self.reason = reason
        self.method = method
        self.path = path
        where = f"{method} {path}: " if method else ""
        super().__init__(f"{where}{message} (HTTP {status_code}{', ' + reason if reason else ''})")

    @classmethod
    def _from_response(cls, response: Any) -> "APIException":
        """The exception class for ``response`` (a ``requests.Response``) with its message."""
        message, reason = "", ""
        try:
            body = response.json()
            err = body.get("error") if isinstance(body, dict) else None
            if isinstance(err, dict):
                message = str(err.get("message") or err.get("error") or "")
                reason = str(err.get("reason") or "")
            elif isinstance(body, dict) and "message" in body:
                message = str(body["message"])
        except ValueError:
            pass
        if not message:
            message = (response.text or response.reason or "").strip()
        status = response.status_code
        kind = {400: BadRequestException, 401: UnauthenticatedException,
                403: ForbiddenException, 404: NotFoundException}.get(status, APIException)
        request = getattr(response, "request", None)
        method = getattr(request, "method", "") or ""
        path = getattr(request, "path_url", "") or ""
        return kind(status, message, reason, method, path)


class BadRequestException(APIException):
    pass


class UnauthenticatedException(APIException):
    pass


class ForbiddenException(APIException):
    pass


class NotFoundException(APIException):
    pass
