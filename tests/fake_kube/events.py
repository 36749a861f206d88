"""core/v1 Events as the scheduler and the kubelet record them, aggregated like client-go's recorder.

A repeat of the same (object, type, reason, message) bumps `count` and `lastTimestamp` of the existing Event
instead of creating another one, as the real event correlator does; clients such as the resource manager
read `count` to see that a pod is still failing to schedule.
"""
import threading
import time

from fake_kube import apierrors
from fake_kube import kinds
from fake_kube import timeutil

_EVENTS = kinds.BY_PLURAL["events"]


class EventRecorder:
    def __init__(self, registry):
        self._registry = registry
        self._lock = threading.Lock()
        self._names = {}  # (uid, type, reason, message) -> event name

    def record(self, obj, event_type, reason, message, component, field_path=None):
        """Records (or re-counts) an Event about obj; never raises: an event is a side note."""
        meta = obj["metadata"]
        namespace = meta.get("namespace") or "default"
        key = (meta["uid"], event_type, reason, message)
        now = timeutil.rfc3339()
        with self._lock:
            name = self._names.get(key)
        if name:
            def bump(event):
                event["count"] = event.get("count", 1) + 1
                event["lastTimestamp"] = now
                return event
            try:
                self._registry.store.mutate(_EVENTS, namespace, name, bump)
                return
            except apierrors.ApiError:
                pass  # deleted meanwhile: record a new one
        involved = {"kind": obj.get("kind"), "namespace": meta.get("namespace"), "name": meta["name"],
                    "uid": meta["uid"], "apiVersion": obj.get("apiVersion"),
                    "resourceVersion": meta.get("resourceVersion")}
        if field_path:
            involved["fieldPath"] = field_path
        if not meta.get("namespace"):
            involved.pop("namespace")
        host = (obj.get("spec") or {}).get("nodeName")
        # Named like client-go's recorder names them, <object>.<unix nanoseconds in hex>, so they list in order.
        event = {"metadata": {"name": f"{meta['name']}.{time.time_ns():x}", "namespace": namespace},
                 "involvedObject": involved, "reason": reason, "message": message,
                 "source": {"component": component, **({"host": host} if host and component == "kubelet" else {})},
                 "firstTimestamp": now, "lastTimestamp": now, "count": 1, "type": event_type, "eventTime": None,
                 "reportingComponent": component, "reportingInstance": host or ""}
        try:
            created = self._registry.create(_EVENTS, namespace, event)
        except apierrors.ApiError:
            return  # e.g. the namespace is going away
        with self._lock:
            self._names[key] = created["metadata"]["name"]
