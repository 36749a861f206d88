"""Server-side printing: the meta.k8s.io/v1 Table kubectl asks for with `Accept: ...;as=Table;...`.

kubectl get (and get -w) prints the rows the server computes; without a Table it would only show names.
The columns are the real server's for the types served (pods, jobs, nodes, namespaces, configmaps, services,
events, priorityclasses), with the `priority` 1 columns that `-o wide` adds.
"""
from fake_kube import timeutil


def _col(name, kind="string", priority=0, fmt=""):
    return {"name": name, "type": kind, "format": fmt, "description": name, "priority": priority}


def _pod_status(pod):
    """The STATUS kubectl shows: Terminating, a waiting/terminated container's reason, or the phase."""
    status = pod.get("status") or {}
    reason = status.get("reason") or status.get("phase") or "Unknown"
    for cs in status.get("initContainerStatuses") or []:
        state = cs.get("state") or {}
        if "terminated" in state and state["terminated"].get("exitCode") == 0:
            continue
        if "waiting" in state and state["waiting"].get("reason") not in (None, "PodInitializing"):
            reason = f"Init:{state['waiting']['reason']}"
        else:
            reason = "Init:0/" + str(len(status.get("initContainerStatuses")))
        break
    else:
        for cs in status.get("containerStatuses") or []:
            state = cs.get("state") or {}
            if "waiting" in state and state["waiting"].get("reason"):
                reason = state["waiting"]["reason"]
            elif "terminated" in state and state["terminated"].get("reason"):
                reason = state["terminated"]["reason"]
    if pod["metadata"].get("deletionTimestamp"):
        reason = "Terminating"
    return reason


def _pod_row(pod):
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    total = len(pod["spec"].get("containers") or [])
    ready = sum(1 for cs in statuses if cs.get("ready"))
    restarts = sum(cs.get("restartCount", 0) for cs in statuses)
    status = pod.get("status") or {}
    return [pod["metadata"]["name"], f"{ready}/{total}", _pod_status(pod), str(restarts),
            timeutil.age(pod["metadata"].get("creationTimestamp")), status.get("podIP") or "<none>",
            pod["spec"].get("nodeName") or "<none>", status.get("nominatedNodeName") or "<none>", "<none>"]


def _job_row(job):
    spec, status = job.get("spec") or {}, job.get("status") or {}
    conditions = {c["type"]: c["status"] for c in status.get("conditions") or []}
    state = ("Complete" if conditions.get("Complete") == "True" else "Failed" if conditions.get("Failed") == "True"
             else "Suspended" if conditions.get("Suspended") == "True" else "Running")
    completions = spec.get("completions")
    shown = f"{status.get('succeeded', 0)}/{completions}" if completions is not None else \
        f"{status.get('succeeded', 0)}/1 of {spec.get('parallelism', 1)}"
    duration = ""
    if status.get("startTime"):
        end = timeutil.parse_rfc3339(status["completionTime"]) if status.get("completionTime") else None
        duration = timeutil.age(status["startTime"], end)
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    return [job["metadata"]["name"], state, shown, duration, timeutil.age(job["metadata"].get("creationTimestamp")),
            ",".join(c.get("name", "") for c in containers), ",".join(c.get("image", "") for c in containers),
            ",".join(f"{k}={v}" for k, v in ((spec.get("selector") or {}).get("matchLabels") or {}).items())]


def _node_row(node):
    conditions = {c["type"]: c["status"] for c in (node.get("status") or {}).get("conditions") or []}
    state = "Ready" if conditions.get("Ready") == "True" else "NotReady"
    if (node.get("spec") or {}).get("unschedulable"):
        state += ",SchedulingDisabled"
    roles = sorted(k.split("/", 1)[1] for k in (node["metadata"].get("labels") or {})
                   if k.startswith("node-role.kubernetes.io/"))
    info = (node.get("status") or {}).get("nodeInfo") or {}
    addresses = {a["type"]: a["address"] for a in (node.get("status") or {}).get("addresses") or []}
    return [node["metadata"]["name"], state, ",".join(roles) or "<none>",
            timeutil.age(node["metadata"].get("creationTimestamp")), info.get("kubeletVersion", ""),
            addresses.get("InternalIP", "<none>"), addresses.get("ExternalIP", "<none>"), info.get("osImage", ""),
            info.get("kernelVersion", ""), info.get("containerRuntimeVersion", "")]


def _event_row(event):
    involved = event.get("involvedObject") or {}
    subject = f"{involved.get('kind', '').lower()}/{involved.get('name')}"
    return [timeutil.age(event.get("lastTimestamp") or event["metadata"].get("creationTimestamp")),
            event.get("type", ""), event.get("reason", ""), subject,
            involved.get("fieldPath", ""), (event.get("source") or {}).get("component", ""), event.get("message", ""),
            timeutil.age(event.get("firstTimestamp") or event["metadata"].get("creationTimestamp")),
            event.get("count", 1), event["metadata"]["name"]]


def _service_row(svc):
    spec = svc.get("spec") or {}
    ports = ",".join(f"{p.get('port')}/{p.get('protocol', 'TCP')}" for p in spec.get("ports") or []) or "<none>"
    return [svc["metadata"]["name"], spec.get("type", "ClusterIP"), spec.get("clusterIP", ""), "<none>", ports,
            timeutil.age(svc["metadata"].get("creationTimestamp"))]


_TABLES = {
    "pods": ([_col("Name", fmt="name"), _col("Ready"), _col("Status"), _col("Restarts", "string"), _col("Age"),
              _col("IP", priority=1), _col("Node", priority=1), _col("Nominated Node", priority=1),
              _col("Readiness Gates", priority=1)], _pod_row),
    "jobs": ([_col("Name", fmt="name"), _col("Status"), _col("Completions"), _col("Duration"), _col("Age"),
              _col("Containers", priority=1), _col("Images", priority=1), _col("Selector", priority=1)], _job_row),
    "nodes": ([_col("Name", fmt="name"), _col("Status"), _col("Roles"), _col("Age"), _col("Version"),
               _col("Internal-IP", priority=1), _col("External-IP", priority=1), _col("OS-Image", priority=1),
               _col("Kernel-Version", priority=1), _col("Container-Runtime", priority=1)], _node_row),
    "namespaces": ([_col("Name", fmt="name"), _col("Status"), _col("Age")],
                   lambda o: [o["metadata"]["name"], (o.get("status") or {}).get("phase", ""),
                              timeutil.age(o["metadata"].get("creationTimestamp"))]),
    "configmaps": ([_col("Name", fmt="name"), _col("Data", "integer"), _col("Age")],
                   lambda o: [o["metadata"]["name"], len(o.get("data") or {}) + len(o.get("binaryData") or {}),
                              timeutil.age(o["metadata"].get("creationTimestamp"))]),
    "services": ([_col("Name", fmt="name"), _col("Type"), _col("Cluster-IP"), _col("External-IP"),
                  _col("Port(s)"), _col("Age")], _service_row),
    "events": ([_col("Last Seen"), _col("Type"), _col("Reason"), _col("Object"), _col("Subobject", priority=1),
                _col("Source", priority=1), _col("Message"), _col("First Seen", priority=1),
                _col("Count", "integer", 1), _col("Name", priority=1)], _event_row),
    "priorityclasses": ([_col("Name", fmt="name"), _col("Value", "integer"), _col("Global-Default", "boolean"),
                         _col("Age"), _col("PreemptionPolicy", priority=1)],
                        lambda o: [o["metadata"]["name"], o.get("value", 0), bool(o.get("globalDefault")),
                                   timeutil.age(o["metadata"].get("creationTimestamp")),
                                   o.get("preemptionPolicy", "")]),
}
_DEFAULT = ([_col("Name", fmt="name"), _col("Age")],
            lambda o: [o["metadata"]["name"], timeutil.age(o["metadata"].get("creationTimestamp"))])


def wants_table(accept):
    return "as=Table" in (accept or "")


def table(rt, objects, resource_version, include_object="PartialObjectMetadata", continue_token=None):
    """The Table of the objects (each carrying kind/apiVersion or not)."""
    columns, row_fn = _TABLES.get(rt.plural, _DEFAULT)
    rows = []
    for obj in objects:
        if include_object == "Object":
            embedded = dict(obj, kind=rt.kind, apiVersion=rt.api_version)
        elif include_object == "None":
            embedded = None
        else:
            embedded = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}
        rows.append({"cells": row_fn(obj), "object": embedded})
    metadata = {"resourceVersion": resource_version}
    if continue_token:
        metadata["continue"] = continue_token
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata, "columnDefinitions": columns,
            "rows": rows}
