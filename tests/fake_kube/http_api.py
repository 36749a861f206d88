"""The HTTP layer: routes requests to the registry, streams, discovery documents and the /fake/ admin API.

Paths served (JSON unless said otherwise):
  /version, /healthz, /livez, /readyz
  /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>       discovery (legacy format)
  /api/v1/[namespaces/<ns>/]<resource>[/<name>[/status|/log|/eviction]] and /apis/<group>/<version>/...
  /api/v1/watch/... and /apis/<group>/<version>/watch/...               legacy watch paths
  /fake/...                                                             failure injection (fake_apiserver.py)
  /openapi/v3, /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>   paths only (openapi.py)
Anything else is a 404 Status, as on the real server (/openapi/v2 included).
"""
import http.server
import json
import traceback
import urllib.parse

from fake_kube import apierrors
from fake_kube import kinds
from fake_kube import openapi
from fake_kube import protobuf
from fake_kube import selection
from fake_kube import streams
from fake_kube import tables

_SUBRESOURCES = {"status", "log", "eviction"}


class Route:
    """A parsed resource path."""

    def __init__(self, rt, namespace, name, subresource, watch_path):
        self.rt, self.namespace, self.name, self.subresource, self.watch_path = \
            rt, namespace, name, subresource, watch_path


def parse_resource_path(path):
    """The Route of a resource path, or None when the path names no resource the fake serves."""
    parts = [urllib.parse.unquote(p) for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    watch_path = bool(rest) and rest[0] == "watch"
    if watch_path:
        rest = rest[1:]
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces" and kinds.lookup(group, version, rest[2]):
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        return None
    rt = kinds.lookup(group, version, rest[0])
    if rt is None:
        return None
    name = rest[1] if len(rest) > 1 else None
    subresource = rest[2] if len(rest) > 2 else None
    if rt.namespaced and name and namespace is None:
        return None
    if not rt.namespaced and namespace is not None:
        return None
    if subresource and (subresource not in _SUBRESOURCES or
                        (subresource in ("log", "eviction") and rt.plural != "pods") or
                        (subresource == "status" and not rt.has_status)):
        return None
    return Route(rt, namespace, name, subresource, watch_path)


def _flag(query, key):
    return selection.parse_bool(query.get(key))


def _delete_options(query, body):
    options = {}
    if body:
        try:
            parsed = json.loads(body)
        except ValueError as e:
            raise apierrors.bad_request(f"error decoding DeleteOptions: {e}")
        if isinstance(parsed, dict):
            options.update(parsed)
    if "propagationPolicy" in query:
        options["propagationPolicy"] = query["propagationPolicy"]
    if "orphanDependents" in query:
        options["orphanDependents"] = selection.parse_bool(query["orphanDependents"])
    if query.get("gracePeriodSeconds") not in (None, ""):
        try:
            options["gracePeriodSeconds"] = int(query["gracePeriodSeconds"])
        except ValueError:
            raise apierrors.bad_request(f"invalid gracePeriodSeconds: {query['gracePeriodSeconds']}")
    return options


def _object_body(body, content_type):
    """The object a POST or PUT carries, as JSON or (from kubectl's typed clients) protobuf."""
    if (content_type or "").split(";")[0].strip() == protobuf.MEDIA_TYPE:
        return protobuf.decode_object(body)
    try:
        return json.loads(body or b"null")
    except ValueError as e:
        raise apierrors.bad_request(f"error decoding request body: {e}")


class ApiHandler(http.server.BaseHTTPRequestHandler):
    """One request (or keep-alive connection) of the fake API server; self.server.app is the FakeApiServer."""

    protocol_version = "HTTP/1.1"
    server_version = "fake-kube-apiserver/1.32"

    def log_message(self, fmt, *args):
        if self.server.app.verbose:
            super().log_message(fmt, *args)

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PUT(self):
        self._handle("PUT")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_DELETE(self):
        self._handle("DELETE")

    # Plumbing.

    def send_bytes(self, code, data, content_type, headers=None):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_json(self, code, doc, headers=None):
        self.send_bytes(code, json.dumps(doc).encode(), "application/json", headers)

    def _read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self, method):
        app = self.server.app
        url = urllib.parse.urlsplit(self.path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
        body = self._read_body()
        try:
            if url.path.startswith("/fake/"):
                return self.send_json(200, app.admin(method, url.path, query, body))
            app.record_request(method, url.path, url.query, body, self.headers.get("Accept", ""),
                               self.headers.get("Content-Type", ""))
            app.delay()
            injected = app.take_failure(method, url.path)
            if injected:
                raise injected
            self._route(method, url.path, query, body)
        except apierrors.ApiError as e:
            self.send_json(e.code, e.status(), e.headers)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # a bug in the fake: answer like the real server's panic handler, and say so
            traceback.print_exc()
            self.send_json(500, apierrors.failure_status(500, "InternalError", f"Internal error occurred: {e!r}"))

    def _route(self, method, path, query, body):
        app = self.server.app
        path = path.rstrip("/") or "/"
        static = self._static(path)
        if static is not None:
            if method != "GET":
                raise apierrors.method_not_allowed()
            if isinstance(static, str):
                return self.send_bytes(200, static.encode(), "text/plain")
            return self.send_json(200, static)
        route = parse_resource_path(path)
        if route is None:
            raise apierrors.path_not_found(path)
        handler = {"GET": self._get, "POST": self._post, "PUT": self._put, "PATCH": self._patch,
                   "DELETE": self._delete}[method]
        handler(app, route, query, body)

    def _static(self, path):
        if path in ("/healthz", "/livez", "/readyz"):
            return "ok"
        if path == "/version":
            return kinds.VERSION
        if path == "/api":
            return kinds.core_versions(f"127.0.0.1:{self.server.server_address[1]}")
        if path == "/apis":
            return kinds.group_list()
        if path.startswith("/openapi/v3"):
            return openapi.document(path)
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "api":
            return kinds.resource_list("", parts[1])
        if len(parts) == 2 and parts[0] == "apis":
            return kinds.api_group(parts[1])
        if len(parts) == 3 and parts[0] == "apis":
            return kinds.resource_list(parts[1], parts[2])
        return None

    def _body_object(self, body):
        return _object_body(body, self.headers.get("Content-Type"))

    # Verbs.

    def _get(self, app, route, query, body):
        rt, accept = route.rt, self.headers.get("Accept", "")
        if route.subresource == "log":
            pod = app.registry.get(rt, route.namespace, route.name)
            container = streams.choose_container(pod, query.get("container"))
            if pod["spec"].get("nodeName"):
                streams.check_log_readable(pod, container, _flag(query, "previous"))
            return streams.serve_logs(self, app.store, app.kubelet, pod, container, query)
        if route.watch_path or _flag(query, "watch"):
            return streams.serve_watch(self, app.store, rt, route.namespace, query, route.name, accept)
        if route.name:
            obj = app.registry.get(rt, route.namespace, route.name)
            if route.subresource == "status" or not tables.wants_table(accept):
                return self.send_json(200, obj)
            return self.send_json(200, tables.table(rt, [obj], obj["metadata"]["resourceVersion"],
                                                    query.get("includeObject", "PartialObjectMetadata")))
        try:
            limit = int(query.get("limit") or 0)
        except ValueError:
            raise apierrors.bad_request(f"invalid limit: {query.get('limit')}")
        listed = app.registry.list(rt, route.namespace, query.get("labelSelector", ""),
                                   query.get("fieldSelector", ""), limit, query.get("continue", ""))
        if tables.wants_table(accept):
            return self.send_json(200, tables.table(rt, listed["items"], listed["metadata"]["resourceVersion"],
                                                    query.get("includeObject", "PartialObjectMetadata"),
                                                    listed["metadata"].get("continue")))
        self.send_json(200, listed)

    def _post(self, app, route, query, body):
        rt, dry_run = route.rt, query.get("dryRun") == "All"
        if route.subresource == "eviction":
            options = (self._body_object(body) or {}).get("deleteOptions") or {}
            app.registry.delete(rt, route.namespace, route.name, options, dry_run)
            return self.send_json(201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                        "code": 201})
        if route.name:
            raise apierrors.method_not_allowed()
        if rt.namespaced and route.namespace is None:
            raise apierrors.path_not_found("")
        self.send_json(201, app.registry.create(rt, route.namespace or "", self._body_object(body), dry_run))

    def _put(self, app, route, query, body):
        if not route.name or route.subresource not in (None, "status"):
            raise apierrors.method_not_allowed()
        self.send_json(200, app.registry.replace(route.rt, route.namespace, route.name, self._body_object(body),
                                                 route.subresource, query.get("dryRun") == "All"))

    def _patch(self, app, route, query, body):
        if not route.name or route.subresource not in (None, "status"):
            raise apierrors.method_not_allowed()
        self.send_json(200, app.registry.patch(route.rt, route.namespace, route.name, body,
                                               self.headers.get("Content-Type", ""), route.subresource,
                                               query.get("dryRun") == "All"))

    def _delete(self, app, route, query, body):
        options = _delete_options(query, body)
        if route.subresource:
            raise apierrors.method_not_allowed()
        if not route.name:
            return self.send_json(200, app.registry.delete_collection(
                route.rt, route.namespace, query.get("labelSelector", ""), query.get("fieldSelector", ""), options))
        self.send_json(200, app.registry.delete(route.rt, route.namespace, route.name, options,
                                                query.get("dryRun") == "All"))


class ApiHttpServer(http.server.ThreadingHTTPServer):
    """The listening socket; one thread per connection (watches and log streams hold theirs)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, app):
        self.app = app
        super().__init__(address, ApiHandler)
