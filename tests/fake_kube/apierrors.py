"""Errors as the real API server reports them: metav1.Status objects with matching HTTP codes.

Clients branch on `reason` and `code` (client-go's IsNotFound, IsConflict, IsAlreadyExists; python's
ApiException.status; kubectl prints "Error from server (<reason>): <message>"), so the messages and the odd
`details.kind` (the *resource*, e.g. "pods", for NotFound/AlreadyExists/Conflict) follow the real server.
"""


class ApiError(Exception):
    """An expected failure of an API request, carried to the HTTP layer and written as a Status."""

    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.headers = headers or {}

    def status(self):
        """The Status object the server writes for this error."""
        return failure_status(self.code, self.reason, self.message, self.details)


def failure_status(code, reason, message, details=None):
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
              "reason": reason, "code": code}
    if details:
        status["details"] = details
    return status


def _details(rt, name):
    details = {"name": name, "kind": rt.plural}
    if rt.group:
        details["group"] = rt.group
    return details


def not_found(rt, name):
    return ApiError(404, "NotFound", f'{rt.qualified} "{name}" not found', _details(rt, name))


def already_exists(rt, name):
    return ApiError(409, "AlreadyExists", f'{rt.qualified} "{name}" already exists', _details(rt, name))


def conflict(rt, name, why="the object has been modified; please apply your changes to the latest version "
                           "and try again"):
    return ApiError(409, "Conflict", f'Operation cannot be fulfilled on {rt.qualified} "{name}": {why}',
                    _details(rt, name))


def invalid(rt, name, causes):
    """422 Invalid; causes are (field, reason, message) triples, e.g. ("metadata.name", "FieldValueRequired",
    "Required value: name or generateName is required")."""
    kind = f"{rt.kind}.{rt.group}" if rt.group else rt.kind
    text = "; ".join(f"{field}: {message}" for field, _, message in causes)
    if len(causes) > 1:
        text = "[" + ", ".join(f"{field}: {message}" for field, _, message in causes) + "]"
    details = {"name": name, "kind": rt.kind,
               "causes": [{"reason": reason, "message": message, "field": field} for field, reason, message in causes]}
    if rt.group:
        details["group"] = rt.group
    return ApiError(422, "Invalid", f'{kind} "{name}" is invalid: {text}', details)


def bad_request(message):
    return ApiError(400, "BadRequest", message)


def forbidden(message, rt=None, name=""):
    return ApiError(403, "Forbidden", message, _details(rt, name) if rt else None)


def method_not_allowed():
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


def expired(message):
    return ApiError(410, "Expired", message)


def path_not_found(path):
    """The real server's answer to a path no API serves."""
    return ApiError(404, "NotFound", "the server could not find the requested resource", {})


def injected(code):
    """The Status of a failure injected with POST /fake/fail."""
    if code == 429:
        return ApiError(429, "TooManyRequests",
                        "the server has received too many requests and has asked us to try again later",
                        {"retryAfterSeconds": 1}, {"Retry-After": "1"})
    if code == 503:
        return ApiError(503, "ServiceUnavailable", "the server is currently unable to handle the request", {})
    if code == 504:
        return ApiError(504, "Timeout", "the server was unable to return a response in the time allotted", {})
    return ApiError(code, "InternalError", "Internal error occurred: injected by /fake/fail", {})
