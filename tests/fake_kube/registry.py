"""The API verbs over the store, with the real server's rules: create, get, list, replace, patch, delete.

This is where generateName, uid and timestamps are assigned, create-time defaults applied (defaults.py),
resourceVersion preconditions checked, status subresources kept apart from the main resource, and deletion
handled the way the real server does it:

- An object with finalizers, or deleted with propagationPolicy=Foreground (which adds the foregroundDeletion
  finalizer), only gets a deletionTimestamp; it is removed once its finalizers are gone (the garbage collector
  removes foregroundDeletion when no blocking dependents remain).
- A pod bound to a node and not finished gets deletionTimestamp = now + grace and deletionGracePeriodSeconds;
  the kubelet stops its containers and then removes it. Unbound or finished pods go at once, as do pods deleted
  with gracePeriodSeconds=0 (whose processes the kubelet then kills).
- propagationPolicy=Orphan strips the owner's ownerReferences from its dependents now; Background leaves the
  dependents to the garbage collector once the owner is gone.
"""
import base64
import copy
import json
import random
import time
import uuid

from fake_kube import apierrors
from fake_kube import defaults
from fake_kube import kinds
from fake_kube import patching
from fake_kube import selection
from fake_kube import timeutil

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
_GENERATE_CHARS = "bcdfghjklmnpqrstvwxz2456789"
_NAMESPACES = kinds.BY_PLURAL["namespaces"]


def random_suffix(n=5):
    """The random tail the real server appends to a generateName (and the Job controller to pod names)."""
    return "".join(random.choice(_GENERATE_CHARS) for _ in range(n))


def strip_type(obj):
    """Items of a typed list carry no kind/apiVersion on the real server's wire."""
    obj.pop("kind", None)
    obj.pop("apiVersion", None)
    return obj


def is_terminal_pod(pod):
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def owned_by(obj, uid):
    return any(ref.get("uid") == uid for ref in obj["metadata"].get("ownerReferences") or [])


class Registry:
    def __init__(self, store):
        self.store = store

    # Reads.

    def get(self, rt, namespace, name):
        obj = self.store.get(rt.plural, namespace if rt.namespaced else "", name)
        if obj is None:
            raise apierrors.not_found(rt, name)
        return obj

    def list(self, rt, namespace, label_selector="", field_selector="", limit=0, continue_token=""):
        """The {kind: <Kind>List, metadata: {resourceVersion, continue}, items} document of a LIST request."""
        labels = selection.LabelSelector.parse(label_selector)
        fields = selection.FieldSelector.parse(field_selector, rt)
        items, rv = self.store.list(rt.plural, namespace if rt.namespaced else None)
        items = [o for o in items if labels.matches(o["metadata"].get("labels")) and fields.matches(o)]
        if continue_token:
            list_rv, after = self._decode_continue(continue_token)
            rv = list_rv
            items = [o for o in items if self._key(o) > after]
        metadata = {"resourceVersion": rv}
        if limit and len(items) > limit:
            metadata["remainingItemCount"] = len(items) - limit
            items = items[:limit]
            token = json.dumps({"rv": rv, "start": self._key(items[-1])})
            metadata["continue"] = base64.urlsafe_b64encode(token.encode()).decode()
        return {"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": metadata,
                "items": [strip_type(o) for o in items]}

    @staticmethod
    def _key(obj):
        return obj["metadata"].get("namespace", "") + "/" + obj["metadata"]["name"]

    def _decode_continue(self, token):
        try:
            decoded = json.loads(base64.urlsafe_b64decode(token.encode()))
            list_rv, start = decoded["rv"], decoded["start"]
        except (ValueError, KeyError, TypeError):
            raise apierrors.bad_request("continue key is not valid: incorrect encoded start resourceVersion "
                                        "(version meta.k8s.io/v1)")
        if int(list_rv) < self.store.history_floor():
            raise apierrors.expired(
                "The provided continue parameter is too old to display a consistent list result. You can start a "
                "new list without the continue parameter, or use the continue token in this response to retrieve "
                "the remainder of the results. Continuing with the provided token results in an inconsistent list "
                "- objects that were created, modified, or deleted between the time the first chunk was returned "
                "and now may show up in the list.")
        return list_rv, start

    # Create.

    def create(self, rt, namespace, body, dry_run=False):
        """Creates an object from a client's body; returns it as stored (201)."""
        if not isinstance(body, dict):
            raise apierrors.bad_request("the body of the request was not a JSON object")
        obj = copy.deepcopy(body)
        meta = obj.get("metadata") or {}
        obj["metadata"] = meta
        if rt.namespaced:
            if meta.get("namespace") and meta["namespace"] != namespace:
                raise apierrors.bad_request("the namespace of the provided object does not match the namespace "
                                            "sent on the request")
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if not meta.get("name"):
            if not generated:
                raise apierrors.invalid(rt, "", [("metadata.name", "FieldValueRequired",
                                                  "Required value: name or generateName is required")])
            meta["name"] = meta["generateName"] + random_suffix()
        obj["kind"], obj["apiVersion"] = rt.kind, rt.api_version
        for key in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields"):
            meta.pop(key, None)
        meta["uid"] = str(uuid.uuid4())
        meta["creationTimestamp"] = timeutil.rfc3339()
        if rt.plural == "jobs":
            meta["generation"] = 1
        causes = defaults.name_causes(rt, meta["name"]) + defaults.prepare(rt, obj, self._priority_value)
        if causes:
            raise apierrors.invalid(rt, meta["name"], causes)
        if rt.namespaced:
            self._check_namespace(rt, namespace, meta["name"])
        if dry_run:
            return obj
        for _ in range(10):
            try:
                return self.store.create(rt, copy.deepcopy(obj))
            except apierrors.ApiError as e:
                if not (generated and e.reason == "AlreadyExists"):
                    raise
                meta["name"] = meta["generateName"] + random_suffix()
        raise apierrors.ApiError(500, "ServerTimeout", f"{rt.qualified} could not generate a unique name")

    def _check_namespace(self, rt, namespace, name):
        ns = self.store.get("namespaces", "", namespace)
        if ns is None:
            raise apierrors.not_found(_NAMESPACES, namespace)
        if ns["metadata"].get("deletionTimestamp"):
            raise apierrors.forbidden(f'{rt.qualified} "{name}" is forbidden: unable to create new content in '
                                      f'namespace {namespace} because it is being terminated', rt, name)

    def _priority_value(self, name):
        pc = self.store.get("priorityclasses", "", name)
        return pc.get("value") if pc else None

    # Update.

    def replace(self, rt, namespace, name, body, subresource=None, dry_run=False):
        """PUT: replaces the object (or, for subresource "status", its status)."""
        if not isinstance(body, dict):
            raise apierrors.bad_request("the body of the request was not a JSON object")
        body_name = (body.get("metadata") or {}).get("name")
        if body_name and body_name != name:
            raise apierrors.bad_request(f"the name of the object ({body_name}) does not match the name on the URL "
                                        f"({name})")
        return self._update(rt, namespace, name, lambda old: copy.deepcopy(body), subresource, dry_run)

    def patch(self, rt, namespace, name, raw_body, content_type, subresource=None, dry_run=False):
        """PATCH with a merge, strategic merge or JSON patch body, chosen by Content-Type."""
        media = (content_type or "").split(";")[0].strip()
        functions = {"application/merge-patch+json": patching.merge_patch,
                     "application/strategic-merge-patch+json": patching.strategic_merge_patch,
                     "application/json-patch+json": patching.json_patch}
        if media not in functions:
            raise apierrors.ApiError(415, "UnsupportedMediaType",
                                     "the body of the request was in an unknown format - accepted media types "
                                     "include: application/json-patch+json, application/merge-patch+json, "
                                     "application/strategic-merge-patch+json (the fake has no server-side apply)")
        try:
            body = json.loads(raw_body or b"null")
        except ValueError as e:
            raise apierrors.bad_request(f"error decoding patch: {e}")
        return self._update(rt, namespace, name, lambda old: functions[media](old, body), subresource, dry_run)

    def update_status(self, rt, namespace, name, fn):
        """Controllers' status writes: fn(obj) changes obj["status"] in place (and may change nothing)."""
        def apply(old):
            fn(old)
            return old
        return self.store.mutate(rt, namespace if rt.namespaced else "", name, apply)

    def _update(self, rt, namespace, name, compute, subresource, dry_run):
        namespace = namespace if rt.namespaced else ""

        def apply(old):
            new = compute(old)
            if not isinstance(new, dict):
                raise apierrors.bad_request("the patched or replaced object is not a JSON object")
            return self._merge_update(rt, old, new, name, subresource)

        if dry_run:
            return apply(self.get(rt, namespace, name))
        result = self.store.mutate(rt, namespace, name, apply)
        self.finish_if_done(rt, result)
        return result

    @staticmethod
    def _merge_update(rt, old, new, name, subresource):
        meta = new.get("metadata") or {}
        new["metadata"] = meta
        if meta.get("name", name) != name:
            raise apierrors.bad_request(f"the name of the object ({meta.get('name')}) does not match the name on "
                                        f"the URL ({name})")
        expected = meta.get("resourceVersion")
        if expected and expected != old["metadata"]["resourceVersion"]:
            raise apierrors.conflict(rt, name)
        if subresource == "status":
            result = copy.deepcopy(old)
            result["status"] = new.get("status") or {}
            return result
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation",
                    "namespace", "name"):
            if key in old["metadata"]:
                meta[key] = old["metadata"][key]
            else:
                meta.pop(key, None)
        if rt.has_status:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        if "generation" in old["metadata"] and new.get("spec") != old.get("spec"):
            meta["generation"] = old["metadata"]["generation"] + 1
        new["kind"], new["apiVersion"] = rt.kind, rt.api_version
        return new

    # Delete.

    def delete(self, rt, namespace, name, options, dry_run=False):
        """DELETE: returns the response body (the object while deletion is pending; else the object or a
        Status, as the real server does for this type)."""
        namespace = namespace if rt.namespaced else ""
        obj = self.get(rt, namespace, name)
        meta = obj["metadata"]
        self._check_preconditions(rt, obj, options.get("preconditions") or {})
        policy = self._propagation(rt, options)
        grace = options.get("gracePeriodSeconds")
        if rt.plural == "namespaces" and name in SYSTEM_NAMESPACES:
            raise apierrors.forbidden(f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                                      rt, name)
        if dry_run:
            return obj
        if policy == "Orphan":
            self.orphan_dependents(meta["uid"])
        pending = self._start_deletion(rt, obj, policy, grace)
        if pending is not None:
            return pending
        final = self.store.remove(rt, namespace, name, meta["uid"]) or obj
        if rt.return_deleted_object:
            return final
        details = {"name": name, "kind": rt.plural, "uid": meta["uid"]}
        if rt.group:
            details["group"] = rt.group
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}

    @staticmethod
    def _check_preconditions(rt, obj, preconditions):
        meta = obj["metadata"]
        if preconditions.get("uid") and preconditions["uid"] != meta["uid"]:
            raise apierrors.conflict(rt, meta["name"], f"Precondition failed: UID in precondition: "
                                                       f"{preconditions['uid']}, UID in object meta: {meta['uid']}")
        if preconditions.get("resourceVersion") and preconditions["resourceVersion"] != meta["resourceVersion"]:
            raise apierrors.conflict(rt, meta["name"], f"Precondition failed: ResourceVersion in precondition: "
                                                       f"{preconditions['resourceVersion']}, ResourceVersion in "
                                                       f"object meta: {meta['resourceVersion']}")

    @staticmethod
    def _propagation(rt, options):
        policy = options.get("propagationPolicy")
        if policy is None and options.get("orphanDependents") is not None:
            policy = "Orphan" if options["orphanDependents"] else "Background"
        policy = policy or rt.default_propagation
        if policy not in ("Orphan", "Background", "Foreground"):
            raise apierrors.bad_request(f'propagationPolicy: Unsupported value: "{policy}": supported values: '
                                        f'"Foreground", "Background", "Orphan"')
        return policy

    def _start_deletion(self, rt, obj, policy, grace):
        """Marks the object as being deleted when it cannot go at once; returns it then, else None."""
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if policy == "Foreground" and "foregroundDeletion" not in finalizers:
            finalizers.append("foregroundDeletion")
        graceful_pod = (rt.plural == "pods" and obj["spec"].get("nodeName") and not is_terminal_pod(obj)
                        and grace != 0)
        if not finalizers and not graceful_pod and rt.plural != "namespaces":
            return None
        if grace is None:
            grace = obj["spec"].get("terminationGracePeriodSeconds", 30) if rt.plural == "pods" else 0

        def mark(current):
            current_meta = current["metadata"]
            existing = list(current_meta.get("finalizers") or [])
            added = existing + [f for f in finalizers if f not in existing]
            if added:
                current_meta["finalizers"] = added
            old_grace = current_meta.get("deletionGracePeriodSeconds")
            if graceful_pod and (old_grace is None or grace < old_grace):
                current_meta["deletionGracePeriodSeconds"] = grace
                current_meta["deletionTimestamp"] = timeutil.rfc3339(time.time() + grace)
            elif "deletionTimestamp" not in current_meta:
                current_meta["deletionTimestamp"] = timeutil.rfc3339()
                current_meta["deletionGracePeriodSeconds"] = 0
            if rt.plural == "namespaces":
                current["status"] = {"phase": "Terminating"}
            return current

        return self.store.mutate(rt, meta.get("namespace", ""), meta["name"], mark)

    def delete_collection(self, rt, namespace, label_selector, field_selector, options):
        listed = self.list(rt, namespace, label_selector, field_selector)
        results = []
        for item in listed["items"]:
            try:
                result = self.delete(rt, item["metadata"].get("namespace", ""), item["metadata"]["name"], options)
            except apierrors.ApiError:
                continue  # deleted meanwhile
            results.append(item if result.get("kind") == "Status" else strip_type(result))
        return {"kind": rt.list_kind, "apiVersion": rt.api_version,
                "metadata": {"resourceVersion": self.store.resource_version}, "items": results}

    def orphan_dependents(self, owner_uid):
        """Removes ownerReferences to owner_uid from every object (what the orphan finalizer does)."""
        for rt in kinds.RESOURCE_TYPES:
            for obj in self.store.items(rt.plural):
                if owned_by(obj, owner_uid):
                    def strip(current, uid=owner_uid):
                        refs = [r for r in current["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
                        if refs:
                            current["metadata"]["ownerReferences"] = refs
                        else:
                            current["metadata"].pop("ownerReferences", None)
                        return current
                    try:
                        self.store.mutate(rt, obj["metadata"].get("namespace", ""), obj["metadata"]["name"], strip)
                    except apierrors.ApiError:
                        pass

    def finish_if_done(self, rt, obj):
        """Removes an object being deleted once nothing holds it: no finalizers left and, for a pod, no
        containers the kubelet still has to stop. Namespaces are finished by the garbage collector."""
        meta = obj["metadata"]
        if not meta.get("deletionTimestamp") or meta.get("finalizers") or rt.plural == "namespaces":
            return
        if rt.plural == "pods" and obj["spec"].get("nodeName") and not is_terminal_pod(obj):
            return
        self.store.remove(rt, meta.get("namespace", ""), meta["name"], meta["uid"])

    def remove_finalizer(self, rt, obj, finalizer):
        def strip(current):
            rest = [f for f in current["metadata"].get("finalizers") or [] if f != finalizer]
            if rest:
                current["metadata"]["finalizers"] = rest
            else:
                current["metadata"].pop("finalizers", None)
            return current
        try:
            result = self.store.mutate(rt, obj["metadata"].get("namespace", ""), obj["metadata"]["name"], strip)
        except apierrors.ApiError:
            return
        self.finish_if_done(rt, result)

