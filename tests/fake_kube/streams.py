"""The two streaming responses: WATCH (newline-delimited JSON events) and pod logs with follow=true.

Both are written as HTTP/1.1 chunked responses, one chunk per event or batch of log lines, as the real server
does. Neither holds the store lock while writing: a watch reads its own queue, logs read a file.
"""
import json
import queue
import select
import socket
import time

from fake_kube import apierrors
from fake_kube import registry as registry_module
from fake_kube import selection
from fake_kube import tables
from fake_kube import timeutil

BOOKMARK_INTERVAL_S = 2.0
_LOG_POLL_S = 0.1


class ClientGone(Exception):
    """The client closed the connection; the stream ends quietly."""


class ChunkedWriter:
    """Writes a chunked response body on a handler's socket."""

    def __init__(self, handler):
        self._handler = handler

    def start(self, content_type):
        handler = self._handler
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Cache-Control", "no-cache, private")
        handler.end_headers()
        handler.wfile.flush()

    def write(self, data):
        if not data:
            return
        try:
            self._handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self._handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            raise ClientGone()

    def end(self):
        try:
            self._handler.wfile.write(b"0\r\n\r\n")
            self._handler.wfile.flush()
        except OSError:
            self._handler.close_connection = True

    def abort(self):
        """Cuts the connection without ending the body, as a network failure would."""
        self._handler.close_connection = True
        try:
            self._handler.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def client_gone(self):
        """True when the client has closed its side (checked while idle, so dead watches end)."""
        sock = self._handler.connection
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True


class WatchFilter:
    """Which events of a resource type one watch sees, and as what: an object that stops matching the
    selectors on an update is sent as DELETED, one that starts matching as ADDED (real server behaviour)."""

    def __init__(self, namespace, labels, fields):
        self.namespace, self.labels, self.fields = namespace, labels, fields

    def matches(self, obj):
        if obj is None:
            return False
        if self.namespace is not None and obj["metadata"].get("namespace") != self.namespace:
            return False
        return self.labels.matches(obj["metadata"].get("labels")) and self.fields.matches(obj)

    def classify(self, event):
        if event.type != "MODIFIED":
            return event.type if self.matches(event.obj) else None
        now, before = self.matches(event.obj), self.matches(event.old)
        if now and before:
            return "MODIFIED"
        if now:
            return "ADDED"
        return "DELETED" if before else None


def serve_watch(handler, store, rt, namespace, query, pinned_name, accept):
    """Streams a watch until its timeout, the client leaving, or POST /fake/drop-watches."""
    fields = selection.FieldSelector.parse(query.get("fieldSelector", ""), rt)
    if pinned_name:
        fields.requirements.append(("metadata.name", "=", pinned_name))
    watch_filter = WatchFilter(namespace, selection.LabelSelector.parse(query.get("labelSelector", "")), fields)
    since = _parse_rv(query.get("resourceVersion"))
    timeout = query.get("timeoutSeconds")
    deadline = time.monotonic() + float(timeout) if timeout not in (None, "") else None
    bookmarks = selection.parse_bool(query.get("allowWatchBookmarks"))
    as_table = tables.wants_table(accept)
    writer = ChunkedWriter(handler)
    try:
        initial, watcher = store.watch(rt.plural, since)
    except apierrors.ApiError as e:
        writer.start("application/json")
        writer.write(_line({"type": "ERROR", "object": e.status()}))
        writer.end()
        return
    writer.start("application/json")
    abrupt = False
    try:
        for event in initial:
            _send(writer, rt, watch_filter, event, as_table)
        if selection.parse_bool(query.get("sendInitialEvents")):
            _bookmark(writer, rt, store.resource_version, initial_end=True)
        next_bookmark = time.monotonic() + BOOKMARK_INTERVAL_S
        while True:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                break
            wait = min(1.0, next_bookmark - now if bookmarks else 1.0, (deadline - now) if deadline else 1.0)
            try:
                event = watcher.queue.get(timeout=max(0.01, wait))
            except queue.Empty:
                if writer.client_gone():
                    break
                if bookmarks and time.monotonic() >= next_bookmark:
                    current, rv = store.queue_is_current(watcher)
                    if current:
                        _bookmark(writer, rt, rv)
                        next_bookmark = time.monotonic() + BOOKMARK_INTERVAL_S
                continue
            if event is None:
                abrupt = watcher.abrupt
                break
            _send(writer, rt, watch_filter, event, as_table)
    except ClientGone:
        handler.close_connection = True
        return
    finally:
        store.unwatch(watcher)
    if abrupt:
        writer.abort()
    else:
        writer.end()


def _parse_rv(value):
    if value in (None, "", "0"):
        return None
    try:
        return int(value)
    except ValueError:
        raise apierrors.bad_request(f'invalid resource version: strconv.ParseUint: parsing "{value}": invalid syntax')


def _line(doc):
    return json.dumps(doc, separators=(",", ":")).encode() + b"\n"


def _send(writer, rt, watch_filter, event, as_table):
    kind = watch_filter.classify(event)
    if kind is None:
        return
    obj = event.obj
    if as_table:
        obj = tables.table(rt, [obj], obj["metadata"]["resourceVersion"])
    writer.write(_line({"type": kind, "object": obj}))


def _bookmark(writer, rt, rv, initial_end=False):
    metadata = {"resourceVersion": rv}
    if initial_end:
        metadata["annotations"] = {"k8s.io/initial-events-end": "true"}
    writer.write(_line({"type": "BOOKMARK", "object": {"kind": rt.kind, "apiVersion": rt.api_version,
                                                       "metadata": metadata}}))


# Logs.

def choose_container(pod, requested):
    """The container a log request reads, with the real server's 400s for a missing or unknown name."""
    name = pod["metadata"]["name"]
    containers = [c["name"] for c in pod["spec"].get("containers") or []]
    inits = [c["name"] for c in pod["spec"].get("initContainers") or []]
    if not requested:
        if len(containers) == 1:
            return containers[0]
        message = f"a container name must be specified for pod {name}, choose one of: [{' '.join(containers)}]"
        if inits:
            message += f" or one of the init containers: [{' '.join(inits)}]"
        raise apierrors.bad_request(message)
    if requested not in containers + inits:
        raise apierrors.bad_request(f"container {requested} is not valid for pod {name}")
    return requested


def container_status(pod, container):
    status = pod.get("status") or {}
    for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        if cs.get("name") == container:
            return cs
    return None


def check_log_readable(pod, container, previous=False):
    """The kubelet's 400 for a container that has not started yet (validateContainerLogStatus). With
    previous=true the whole log is served (the fake keeps one file across restarts) once there was a restart."""
    cs = container_status(pod, container) or {"state": {"waiting": {"reason": "ContainerCreating"}}}
    state, last = cs.get("state") or {}, cs.get("lastState") or {}
    if previous and "terminated" not in last:
        raise apierrors.bad_request(f'previous terminated container "{container}" in pod '
                                    f'"{pod["metadata"]["name"]}" not found')
    if "waiting" in state and "terminated" not in last:
        reason = state["waiting"].get("reason") or "ContainerCreating"
        text = {"ErrImagePull": "image can't be pulled",
                "ImagePullBackOff": "trying and failing to pull image"}.get(reason, reason)
        raise apierrors.bad_request(f'container "{container}" in pod "{pod["metadata"]["name"]}" is waiting to '
                                    f'start: {text}')


def container_finished(pod, container):
    if pod is None or registry_module.is_terminal_pod(pod):
        return True
    state = (container_status(pod, container) or {}).get("state") or {}
    return "terminated" in state or ("waiting" in state and state["waiting"].get("reason") == "CrashLoopBackOff")


class LogFormatter:
    """Turns log-file lines ("<RFC3339Nano> <text>") into response lines per the request's options."""

    def __init__(self, query):
        self.timestamps = selection.parse_bool(query.get("timestamps"))
        since = None
        try:
            if query.get("sinceTime"):
                since = timeutil.parse_rfc3339(query["sinceTime"])
            elif query.get("sinceSeconds"):
                since = time.time() - int(query["sinceSeconds"])
            self.tail = int(query["tailLines"]) if query.get("tailLines") not in (None, "") else None
            self.limit = int(query["limitBytes"]) if query.get("limitBytes") not in (None, "") else None
        except ValueError as e:
            raise apierrors.bad_request(f"invalid log options: {e}")
        self.since = since
        self.sent = 0

    def format(self, raw_lines):
        out = []
        for raw in raw_lines:
            stamp, _, text = raw.partition(b" ")
            if self.since is not None:
                try:
                    if timeutil.parse_rfc3339(stamp.decode()) < self.since:
                        continue
                except ValueError:
                    pass
            out.append(raw if self.timestamps else text)
        return out

    def limited(self, data):
        """Cuts data at limitBytes; returns (data, whether the limit is reached)."""
        if self.limit is None:
            return data, False
        room = self.limit - self.sent
        data = data[:max(0, room)]
        self.sent += len(data)
        return data, self.sent >= self.limit


def read_complete_lines(path, offset):
    """(complete lines from offset, new offset); a line still being written is left for the next read."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n") + 1
    return data[:end].splitlines(keepends=True), offset + end


def serve_logs(handler, store, kubelet, pod, container, query):
    """GET .../pods/{name}/log: the whole log, or with follow=true the log as it grows until the container
    ends, the pod goes away or the client leaves."""
    namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
    formatter = LogFormatter(query)
    path = kubelet.log_path(namespace, name, container)
    lines, offset = read_complete_lines(path, 0)
    lines = formatter.format(lines)
    if formatter.tail is not None:
        lines = lines[-formatter.tail:] if formatter.tail > 0 else []
    body, done = formatter.limited(b"".join(lines))
    if not selection.parse_bool(query.get("follow")) or not pod["spec"].get("nodeName"):
        handler.send_bytes(200, body, "text/plain")
        return
    writer = ChunkedWriter(handler)
    writer.start("text/plain")
    try:
        writer.write(body)
        idle = 0.0
        while not done:
            current = store.get("pods", namespace, name)
            gone = current is None or current["metadata"]["uid"] != pod["metadata"]["uid"]
            finished = gone or container_finished(current, container)
            lines, offset = read_complete_lines(path, offset)
            data, done = formatter.limited(b"".join(formatter.format(lines)))
            writer.write(data)
            if finished:
                break
            time.sleep(_LOG_POLL_S)
            idle += _LOG_POLL_S
            if idle >= 1.0:
                idle = 0.0
                if writer.client_gone():
                    raise ClientGone()
    except ClientGone:
        handler.close_connection = True
        return
    writer.end()
