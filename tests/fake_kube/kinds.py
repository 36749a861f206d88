"""The resource types the fake serves, and the discovery documents kubectl reads to find them.

Each ResourceType says how the real server treats the type where the fake's generic code needs to know:
whether it is namespaced, has a status subresource (updates of the main resource leave status alone), which
field selectors it accepts (others are rejected with 400, as the real server does), what a DELETE without a
propagationPolicy does (batch/v1 Jobs orphan their pods: a classic surprise kept on purpose), and whether a
DELETE answers with the object or with a Status.
"""
import dataclasses

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
_META_FIELDS = ("metadata.name", "metadata.namespace")


@dataclasses.dataclass(frozen=True)
class ResourceType:
    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool
    short_names: tuple = ()
    categories: tuple = ()
    has_status: bool = False
    subresources: tuple = ()  # (name, kind, verbs, group, version) besides status
    fields: tuple = ()  # field selectors beyond metadata.name/namespace
    default_propagation: str = "Background"
    return_deleted_object: bool = False

    @property
    def api_version(self):
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self):
        """The resource as error messages name it: "pods", "jobs.batch"."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def list_kind(self):
        return self.kind + "List"

    @property
    def field_selectors(self):
        return _META_FIELDS + self.fields


RESOURCE_TYPES = (
    ResourceType("", "v1", "pods", "pod", "Pod", True, ("po",), ("all",), has_status=True,
                 subresources=(("log", "Pod", ("get",), "", ""), ("eviction", "Eviction", ("create",), "policy", "v1")),
                 fields=("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
                         "status.phase", "status.podIP", "status.nominatedNodeName"),
                 return_deleted_object=True),
    ResourceType("", "v1", "configmaps", "configmap", "ConfigMap", True, ("cm",)),
    ResourceType("", "v1", "secrets", "secret", "Secret", True, fields=("type",)),
    ResourceType("", "v1", "services", "service", "Service", True, ("svc",), ("all",), has_status=True,
                 return_deleted_object=True),
    ResourceType("", "v1", "events", "event", "Event", True, ("ev",),
                 fields=("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                         "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                         "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type")),
    ResourceType("", "v1", "resourcequotas", "resourcequota", "ResourceQuota", True, ("quota",), has_status=True),
    ResourceType("", "v1", "nodes", "node", "Node", False, ("no",), has_status=True,
                 fields=("spec.unschedulable",), return_deleted_object=True),
    ResourceType("", "v1", "namespaces", "namespace", "Namespace", False, ("ns",), has_status=True,
                 fields=("status.phase",), return_deleted_object=True),
    ResourceType("batch", "v1", "jobs", "job", "Job", True, (), ("all",), has_status=True,
                 fields=("status.successful",), default_propagation="Orphan"),
    ResourceType("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", False, ("pc",)),
)

BY_PLURAL = {rt.plural: rt for rt in RESOURCE_TYPES}


def lookup(group, version, plural):
    """The ResourceType served at /api[s]/<group>/<version>/<plural>, or None."""
    rt = BY_PLURAL.get(plural)
    if rt and rt.group == group and rt.version == version:
        return rt
    return None


def group_versions():
    """{(group, version): [ResourceType...]} in a stable order."""
    result = {}
    for rt in RESOURCE_TYPES:
        result.setdefault((rt.group, rt.version), []).append(rt)
    return result


def core_versions(server_address):
    """GET /api: the legacy APIVersions document."""
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def group_list():
    """GET /apis: the legacy APIGroupList of the named groups."""
    groups = []
    for group, version in group_versions():
        if group:
            gv = {"groupVersion": f"{group}/{version}", "version": version}
            groups.append({"name": group, "versions": [gv], "preferredVersion": gv})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(group):
    """GET /apis/<group>: one APIGroup, or None when the group is not served."""
    for g in group_list()["groups"]:
        if g["name"] == group:
            return {"kind": "APIGroup", "apiVersion": "v1", **g}
    return None


def resource_list(group, version):
    """GET /api/v1 or /apis/<group>/<version>: the APIResourceList kubectl's discovery reads, or None."""
    types = group_versions().get((group, version))
    if types is None:
        return None
    resources = []
    for rt in types:
        entry = {"name": rt.plural, "singularName": rt.singular, "namespaced": rt.namespaced, "kind": rt.kind,
                 "verbs": list(ALL_VERBS)}
        if rt.short_names:
            entry["shortNames"] = list(rt.short_names)
        if rt.categories:
            entry["categories"] = list(rt.categories)
        resources.append(entry)
        if rt.has_status:
            resources.append({"name": f"{rt.plural}/status", "singularName": "", "namespaced": rt.namespaced,
                              "kind": rt.kind, "verbs": ["get", "patch", "update"]})
        for sub, kind, verbs, sub_group, sub_version in rt.subresources:
            entry = {"name": f"{rt.plural}/{sub}", "singularName": "", "namespaced": rt.namespaced, "kind": kind,
                     "verbs": list(verbs)}
            if sub_group:
                entry.update(group=sub_group, version=sub_version)
            resources.append(entry)
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}" if group else version,
            "resources": resources}


VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.0", "gitCommit": "fake", "gitTreeState": "clean",
           "buildDate": "2024-12-11T00:00:00Z", "goVersion": "go1.23.3", "compiler": "gc", "platform": "linux/amd64"}
