"""Just enough OpenAPI v3 for kubectl: the paths and operations of each group-version, without schemas.

kubectl apply/create validate by default (--validate=strict). kubectl 1.32 first asks the OpenAPI v3 document
of the object's group-version whether the PATCH operation of its kind takes the `fieldValidation` query
parameter; when it does, kubectl leaves validation to the server (it sends fieldValidation=Strict, which the
fake accepts and ignores) and needs no schema. Without any OpenAPI document kubectl fails with "failed to
download openapi". PATCH operations declare no request body, so kubectl apply computes its strategic merge
patch from its built-in types rather than from schemas the fake does not have.
"""
import hashlib
import json

from fake_kube import kinds

_WRITE_PARAMS = [{"name": n, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
                 for n in ("dryRun", "fieldManager", "fieldValidation")]


def _prefix(group, version):
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def _operation(rt, action, subresource=None):
    op = {"operationId": f"{action}{rt.kind}{subresource or ''}", "x-kubernetes-action": action,
          "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
          "responses": {"200": {"description": "OK"}}}
    if action in ("post", "put", "patch"):
        op["parameters"] = list(_WRITE_PARAMS)
    return op


def group_version_document(group, version):
    """The OpenAPI v3 document of one group-version, or None when the fake does not serve it."""
    types = kinds.group_versions().get((group, version))
    if types is None:
        return None
    paths = {}
    for rt in types:
        base = "/" + _prefix(group, version)
        collection = f"{base}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else f"{base}/{rt.plural}"
        paths[collection] = {"get": _operation(rt, "list"), "post": _operation(rt, "post"),
                             "delete": _operation(rt, "deletecollection")}
        paths[collection + "/{name}"] = {"get": _operation(rt, "get"), "put": _operation(rt, "put"),
                                         "patch": _operation(rt, "patch"), "delete": _operation(rt, "delete")}
        if rt.has_status:
            paths[collection + "/{name}/status"] = {"get": _operation(rt, "get", "Status"),
                                                    "put": _operation(rt, "put", "Status"),
                                                    "patch": _operation(rt, "patch", "Status")}
        if rt.namespaced:
            paths[f"{base}/{rt.plural}"] = {"get": _operation(rt, "list", "ForAllNamespaces")}
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes (fake)", "version": kinds.VERSION["gitVersion"]},
            "paths": paths, "components": {"schemas": {}}}


def root_document():
    """GET /openapi/v3: where each group-version's document is."""
    paths = {}
    for group, version in kinds.group_versions():
        doc = json.dumps(group_version_document(group, version), sort_keys=True).encode()
        digest = hashlib.sha256(doc).hexdigest()[:16].upper()
        prefix = _prefix(group, version)
        paths[prefix] = {"serverRelativeURL": f"/openapi/v3/{prefix}?hash={digest}"}
    return {"paths": paths}


def document(path):
    """The document served at an /openapi/v3... path, or None."""
    if path == "/openapi/v3":
        return root_document()
    rest = path[len("/openapi/v3/"):].split("/") if path.startswith("/openapi/v3/") else []
    if len(rest) == 2 and rest[0] == "api":
        return group_version_document("", rest[1])
    if len(rest) == 3 and rest[0] == "apis":
        return group_version_document(rest[1], rest[2])
    return None
