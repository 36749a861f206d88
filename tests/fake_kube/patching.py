"""PATCH bodies: JSON merge patch (RFC 7386), a strategic merge patch subset, and JSON patch (RFC 6902).

Strategic merge patch is what kubectl apply and client-go send for built-in types. The real server merges
lists by a per-field "merge key"; the fake uses the keys of the fields a pod spec, a job and a status carry
(containers and env by name, ports by containerPort, volumeMounts by mountPath, conditions by type), and
drops the directives it does not need ($setElementOrder, $retainKeys). Every other list is replaced, as in a
JSON merge patch.
"""
import copy

from fake_kube import apierrors

_MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name", "env": "name",
               "volumes": "name", "imagePullSecrets": "name", "ports": "containerPort",
               "volumeMounts": "mountPath", "volumeDevices": "devicePath", "conditions": "type",
               "tolerations": None, "ownerReferences": "uid", "finalizers": None}


def merge_patch(target, patch):
    """RFC 7386: objects merge recursively, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target, patch):
    """The subset of strategic merge patch described in the module docstring."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$setElementOrder/") or key in ("$retainKeys", "$patch"):
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            field = key.split("/", 1)[1]
            result[field] = [v for v in result.get(field) or [] if v not in value]
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list) and _MERGE_KEYS.get(key) and isinstance(result.get(key), list):
            result[key] = _merge_list(result[key], value, _MERGE_KEYS[key])
        elif isinstance(value, dict):
            result[key] = strategic_merge_patch(result.get(key), value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def _merge_list(current, patch, merge_key):
    result = [copy.deepcopy(item) for item in current]
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            result.append(copy.deepcopy(item))
            continue
        index = next((i for i, old in enumerate(result)
                      if isinstance(old, dict) and old.get(merge_key) == item[merge_key]), None)
        if item.get("$patch") == "delete":
            if index is not None:
                del result[index]
        elif index is None:
            result.append(strategic_merge_patch({}, item))
        else:
            result[index] = strategic_merge_patch(result[index], item)
    return result


def json_patch(target, operations):
    """RFC 6902 add/remove/replace/test/copy/move; a failing operation is a 422 like the real server's."""
    doc = copy.deepcopy(target)
    if not isinstance(operations, list):
        raise apierrors.bad_request("json patch must be a list of operations")
    for op in operations:
        kind, path = op.get("op"), op.get("path", "")
        if kind in ("add", "replace", "test"):
            value = copy.deepcopy(op.get("value"))
        elif kind in ("copy", "move"):
            value = copy.deepcopy(_resolve(doc, op.get("from", "")))
            if kind == "move":
                doc = _apply(doc, op["from"], "remove", None)
            kind = "add"
        elif kind == "remove":
            value = None
        else:
            raise apierrors.ApiError(422, "Invalid", f"the server rejected our request due to an error in our "
                                                     f"request: unexpected operation {kind!r}")
        if kind == "test":
            if _resolve(doc, path) != value:
                raise apierrors.ApiError(422, "Invalid", f"the server rejected our request due to an error in our "
                                                         f"request: testing value {path} failed")
            continue
        doc = _apply(doc, path, kind, value)
    return doc


def _pointer(path):
    if path == "":
        return []
    return [p.replace("~1", "/").replace("~0", "~") for p in path.lstrip("/").split("/")]


def _resolve(doc, path):
    for part in _pointer(path):
        try:
            doc = doc[int(part)] if isinstance(doc, list) else doc[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise apierrors.ApiError(422, "Invalid", f"the server rejected our request due to an error in our "
                                                     f"request: doc is missing path: {path!r}")
    return doc


def _apply(doc, path, kind, value):
    parts = _pointer(path)
    if not parts:
        return value
    parent = _resolve(doc, "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts[:-1]))
    last = parts[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last)
        if kind == "add":
            parent.insert(index, value)
        elif kind == "remove":
            del parent[index]
        else:
            parent[index] = value
    elif isinstance(parent, dict):
        if kind == "remove" or kind == "replace":
            if last not in parent:
                raise apierrors.ApiError(422, "Invalid", f"the server rejected our request due to an error in "
                                                         f"our request: doc is missing key: {path!r}")
        if kind == "remove":
            del parent[last]
        else:
            parent[last] = value
    else:
        raise apierrors.ApiError(422, "Invalid", f"the server rejected our request due to an error in our "
                                                 f"request: doc is missing path: {path!r}")
    return doc
