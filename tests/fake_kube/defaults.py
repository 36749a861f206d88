"""What the real server adds to and checks in an object on create: defaults, validation, server-set fields.

Only the defaults and checks a client can observe in the flows the fake serves are here: a pod's restart
policy, grace period, scheduler name, QoS class and "requests default to limits"; a Job's parallelism,
completions, backoffLimit, selector and the labels its pods get; a Service's cluster IP; a namespace's phase.
Validation covers names and the rules a resource manager can trip over (a Job's restartPolicy, Indexed Jobs
without completions, containers without a name or image).
"""
import base64
import itertools
import re

from fake_kube import apierrors
from fake_kube import quantity

_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN_TEXT = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                   "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                   "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_LABEL_TEXT = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
               "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
               "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_LABEL_NAMED = {"namespaces", "services"}
_cluster_ips = itertools.count(10)


def name_causes(rt, name):
    """The validation causes of a metadata.name (empty when the name is valid)."""
    if rt.plural in _LABEL_NAMED:
        if len(name) > 63 or not _LABEL.match(name):
            return [("metadata.name", "FieldValueInvalid", f'Invalid value: "{name}": {_LABEL_TEXT}')]
        return []
    if rt.plural == "events":
        return []  # events are named <object>.<hex>; the real server only requires a path-safe name
    if len(name) > 253 or not _SUBDOMAIN.match(name):
        return [("metadata.name", "FieldValueInvalid", f'Invalid value: "{name}": {_SUBDOMAIN_TEXT}')]
    if rt.plural == "jobs" and len(name) > 63:
        return [("metadata.name", "FieldValueInvalid",
                 f'Invalid value: "{name}": must be no more than 63 characters')]
    return []


def prepare(rt, obj, lookup_priority):
    """Applies the create-time defaults of `rt` to obj (in place) and returns its validation causes.

    lookup_priority(name) returns the PriorityClass value of a name, or None when there is none.
    """
    fn = _PREPARE.get(rt.plural)
    return fn(obj, lookup_priority) if fn else []


def _pod(obj, lookup_priority):
    spec = obj.setdefault("spec", {})
    causes = _default_pod_spec(spec, "spec")
    if causes:
        return causes
    class_name = spec.get("priorityClassName")
    if class_name:
        value = lookup_priority(class_name)
        if value is None:
            raise apierrors.forbidden(f'pods "{obj["metadata"].get("name", "")}" is forbidden: no PriorityClass '
                                      f'with name {class_name} was found')
        spec["priority"] = value
    else:
        spec.setdefault("priority", 0)
    obj["status"] = {"phase": "Pending", "qosClass": qos_class(spec)}
    return []


def _default_pod_spec(spec, field):
    causes = []
    spec.setdefault("restartPolicy", "Always")
    if spec["restartPolicy"] not in ("Always", "OnFailure", "Never"):
        causes.append((f"{field}.restartPolicy", "FieldValueNotSupported",
                       f'Unsupported value: "{spec["restartPolicy"]}": supported values: "Always", "OnFailure", '
                       f'"Never"'))
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("securityContext", {})
    spec.setdefault("serviceAccountName", "default")
    spec.setdefault("serviceAccount", spec["serviceAccountName"])
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    containers = spec.get("containers") or []
    if not containers:
        causes.append((f"{field}.containers", "FieldValueRequired", "Required value"))
    seen = set()
    for group in ("initContainers", "containers"):
        for i, container in enumerate(spec.get(group) or []):
            where = f"{field}.{group}[{i}]"
            name = container.get("name") or ""
            if not name:
                causes.append((f"{where}.name", "FieldValueRequired", "Required value"))
            elif not _LABEL.match(name):
                causes.append((f"{where}.name", "FieldValueInvalid", f'Invalid value: "{name}": {_LABEL_TEXT}'))
            elif name in seen:
                causes.append((f"{where}.name", "FieldValueDuplicate", f'Duplicate value: "{name}"'))
            seen.add(name)
            if not container.get("image"):
                causes.append((f"{where}.image", "FieldValueRequired", "Required value"))
            _default_container(container)
    return causes


def _default_container(container):
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    image = container.get("image") or ""
    tagged = ":" in image.rsplit("/", 1)[-1] or "@" in image
    container.setdefault("imagePullPolicy",
                         "Always" if not tagged or image.endswith(":latest") else "IfNotPresent")
    resources = container.setdefault("resources", {})
    limits = resources.get("limits") or {}
    if limits:
        requests = resources.setdefault("requests", {})
        for name, value in limits.items():
            requests.setdefault(name, value)


def qos_class(spec):
    """Guaranteed, Burstable or BestEffort, from the containers' cpu and memory requests and limits."""
    containers = spec.get("containers") or []
    any_set, guaranteed = False, True
    for container in containers:
        resources = container.get("resources") or {}
        requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
        for name in ("cpu", "memory"):
            if name in requests or name in limits:
                any_set = True
            if name not in limits or requests.get(name, limits.get(name)) != limits.get(name):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _job(obj, lookup_priority):
    meta, spec = obj["metadata"], obj.setdefault("spec", {})
    if "parallelism" not in spec and "completions" not in spec:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("manualSelector", None)
    if spec.get("manualSelector") is None:
        spec.pop("manualSelector")
    spec.setdefault("podReplacementPolicy", "TerminatingOrFailed")
    template = spec.setdefault("template", {})
    pod_spec = template.setdefault("spec", {})
    causes = []
    restart = pod_spec.get("restartPolicy")
    if restart is None:
        causes.append(("spec.template.spec.restartPolicy", "FieldValueRequired",
                       'Required value: valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        causes.append(("spec.template.spec.restartPolicy", "FieldValueNotSupported",
                       f'Unsupported value: "{restart}": supported values: "OnFailure", "Never"'))
    if spec["completionMode"] == "Indexed" and spec.get("completions") is None:
        causes.append(("spec.completions", "FieldValueRequired", "Required value: when completion mode is Indexed"))
    if spec["completionMode"] not in ("Indexed", "NonIndexed"):
        causes.append(("spec.completionMode", "FieldValueNotSupported",
                       f'Unsupported value: "{spec["completionMode"]}": supported values: "NonIndexed", "Indexed"'))
    causes += _default_pod_spec(pod_spec, "spec.template.spec")
    if causes:
        return causes
    job_labels = {"batch.kubernetes.io/controller-uid": meta["uid"], "batch.kubernetes.io/job-name": meta["name"],
                  "controller-uid": meta["uid"], "job-name": meta["name"]}
    spec.setdefault("selector", {"matchLabels": {"batch.kubernetes.io/controller-uid": meta["uid"]}})
    template.setdefault("metadata", {}).setdefault("labels", {}).update(job_labels)
    meta.setdefault("labels", {})
    for key in ("batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name"):
        meta["labels"].setdefault(key, job_labels[key])
    obj["status"] = {}
    return []


def _service(obj, lookup_priority):
    spec = obj.setdefault("spec", {})
    spec.setdefault("type", "ClusterIP")
    if spec.get("clusterIP") != "None":
        n = next(_cluster_ips)
        spec["clusterIP"] = spec.get("clusterIP") or f"10.96.{n // 250}.{n % 250 + 1}"
    spec["clusterIPs"] = [spec["clusterIP"]]
    spec.setdefault("ipFamilies", ["IPv4"])
    spec.setdefault("ipFamilyPolicy", "SingleStack")
    spec.setdefault("sessionAffinity", "None")
    spec.setdefault("internalTrafficPolicy", "Cluster")
    for port in spec.get("ports") or []:
        port.setdefault("protocol", "TCP")
        port.setdefault("targetPort", port.get("port"))
    obj["status"] = {"loadBalancer": {}}
    return []


def _namespace(obj, lookup_priority):
    obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"]["name"]
    obj["spec"] = {"finalizers": ["kubernetes"]}
    obj["status"] = {"phase": "Active"}
    return []


def _priority_class(obj, lookup_priority):
    obj.setdefault("preemptionPolicy", "PreemptLowerPriority")
    if not isinstance(obj.get("value"), int):
        return [("value", "FieldValueRequired", "Required value")]
    return []


def _secret(obj, lookup_priority):
    obj.setdefault("type", "Opaque")
    string_data = obj.pop("stringData", None) or {}
    data = obj.setdefault("data", {})
    for key, value in string_data.items():
        data[key] = base64.b64encode(value.encode()).decode()
    return []


def _resource_list_causes(obj):
    causes = []
    for group in ("initContainers", "containers"):
        for i, container in enumerate((obj.get("spec") or {}).get(group) or []):
            for kind in ("requests", "limits"):
                for name, value in ((container.get("resources") or {}).get(kind) or {}).items():
                    try:
                        quantity.parse_quantity(value)
                    except ValueError as e:
                        causes.append((f"spec.{group}[{i}].resources.{kind}[{name}]", "FieldValueInvalid",
                                       f"Invalid value: {value!r}: {e}"))
    return causes


_PREPARE = {"pods": lambda o, lp: _pod(o, lp) + _resource_list_causes(o), "jobs": _job, "services": _service,
            "namespaces": _namespace, "priorityclasses": _priority_class, "secrets": _secret}
