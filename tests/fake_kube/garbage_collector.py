"""The garbage collector, the namespace controller and the pod GC of nodes that went away.

- An object whose owners (ownerReferences, by uid) are all gone is deleted (Background): how a Job deleted
  with propagationPolicy=Background loses its pods.
- An object being deleted with the foregroundDeletion finalizer gets its dependents deleted; the finalizer is
  removed (and the object with it) once no dependent with blockOwnerDeletion=true is left.
- A namespace being deleted has everything in it deleted, then goes itself.
- A pod bound to a node that no longer exists is deleted at once (its processes are killed).
"""
from fake_kube import apierrors
from fake_kube import kinds

_NAMESPACES = kinds.BY_PLURAL["namespaces"]
_PODS = kinds.BY_PLURAL["pods"]


class GarbageCollector:
    def __init__(self, registry):
        self._registry = registry

    def run_once(self):
        store = self._registry.store
        objects = [(rt, obj) for rt in kinds.RESOURCE_TYPES for obj in store.items(rt.plural)]
        uids = {obj["metadata"]["uid"] for _, obj in objects}
        dependents = {}
        for rt, obj in objects:
            refs = obj["metadata"].get("ownerReferences") or []
            for ref in refs:
                dependents.setdefault(ref.get("uid"), []).append((rt, obj, ref))
            if refs and not obj["metadata"].get("deletionTimestamp") and not any(
                    ref.get("uid") in uids for ref in refs):
                self._delete(rt, obj, {"propagationPolicy": "Background"})
        for rt, obj in objects:
            meta = obj["metadata"]
            if meta.get("deletionTimestamp") and "foregroundDeletion" in (meta.get("finalizers") or []):
                self._foreground(rt, obj, dependents.get(meta["uid"], []))
        nodes = {n["metadata"]["name"] for n in store.items("nodes")}
        for pod in store.items("pods"):
            node = pod["spec"].get("nodeName")
            if node and node not in nodes and not pod["metadata"].get("deletionGracePeriodSeconds") == 0:
                self._delete(_PODS, pod, {"gracePeriodSeconds": 0})
        for ns in store.items("namespaces"):
            if ns["metadata"].get("deletionTimestamp"):
                self._finish_namespace(ns, objects)

    def _foreground(self, rt, owner, deps):
        blocking = False
        for dep_rt, dep, ref in deps:
            if not dep["metadata"].get("deletionTimestamp"):
                self._delete(dep_rt, dep, {"propagationPolicy": "Background"})
            if ref.get("blockOwnerDeletion"):
                blocking = True
        if not blocking:
            self._registry.remove_finalizer(rt, owner, "foregroundDeletion")

    def _finish_namespace(self, ns, objects):
        name = ns["metadata"]["name"]
        remaining = [(rt, obj) for rt, obj in objects if rt.namespaced and obj["metadata"].get("namespace") == name]
        for rt, obj in remaining:
            if not obj["metadata"].get("deletionTimestamp"):
                self._delete(rt, obj, {"propagationPolicy": "Background"})
        if not remaining:
            self._registry.store.remove(_NAMESPACES, "", name, ns["metadata"]["uid"])

    def _delete(self, rt, obj, options):
        meta = obj["metadata"]
        try:
            self._registry.delete(rt, meta.get("namespace", ""), meta["name"], options)
        except apierrors.ApiError:
            pass  # gone meanwhile
