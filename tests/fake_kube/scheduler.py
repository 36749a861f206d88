"""The scheduler: binds pending pods to nodes where their resource requests fit.

`place` is a pure function of a pod, the nodes and what is already used on each; the Scheduler runs it over
the pending pods (highest priority first, then oldest) on every change, so a pod that did not fit is retried
as soon as something finishes, is deleted, or a node appears.

Filters, in the real scheduler's order, each failing node counted under the first reason that rules it out:
spec.unschedulable ("node(s) were unschedulable"), nodeSelector and required node affinity ("node(s) didn't
match Pod's node affinity/selector"), then resources ("Insufficient cpu", "Insufficient memory",
"Insufficient nvidia.com/gpu", "Too many pods"), where a pod's request is the larger of its containers' sum
and its largest init container, per resource, and requests default to limits. The message of a pod that fits
nowhere is the real one, e.g. "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes
are available: 2 No preemption victims found for incoming pod."; it goes into the PodScheduled=False
condition (reason Unschedulable) and a Warning FailedScheduling Event. There is no preemption, no taints and
tolerations, and no pod (anti-)affinity.
"""
import collections
import dataclasses
import fractions

from fake_kube import apierrors
from fake_kube import kinds
from fake_kube import quantity
from fake_kube import registry as registry_module
from fake_kube import selection
from fake_kube import timeutil

_PODS = kinds.BY_PLURAL["pods"]


@dataclasses.dataclass
class Placement:
    node: str = None  # the chosen node, or None
    message: str = ""  # why it fits nowhere


def pod_requests(pod):
    """{resource: Fraction} the pod needs: max(sum of containers, largest init container) per resource."""
    def requests(container):
        resources = container.get("resources") or {}
        merged = dict(resources.get("limits") or {})
        merged.update(resources.get("requests") or {})
        return {k: quantity.parse_quantity(v) for k, v in merged.items()}

    spec = pod.get("spec") or {}
    total = collections.Counter()
    for container in spec.get("containers") or []:
        total.update(requests(container))
    for container in spec.get("initContainers") or []:
        for name, value in requests(container).items():
            total[name] = max(total[name], value)
    return {k: v for k, v in total.items() if v}


def _allocatable(node):
    values = ((node.get("status") or {}).get("allocatable") or {})
    result = {k: quantity.parse_quantity(v) for k, v in values.items()}
    result.setdefault("pods", fractions.Fraction(110))
    return result


def place(pod, requests, nodes, used):
    """Chooses the first node (in the given order) where the pod fits; nodes' `used` maps node name to a
    Counter of what bound pods take there (including "pods")."""
    reasons, preemption = collections.Counter(), collections.Counter()
    for node in nodes:
        name = node["metadata"]["name"]
        if (node.get("spec") or {}).get("unschedulable"):
            reasons["node(s) were unschedulable"] += 1
            preemption["Preemption is not helpful for scheduling"] += 1
            continue
        if not selection.node_matches_pod(node, pod):
            reasons["node(s) didn't match Pod's node affinity/selector"] += 1
            preemption["Preemption is not helpful for scheduling"] += 1
            continue
        allocatable, taken = _allocatable(node), used.get(name, collections.Counter())
        missing = []
        if taken["pods"] + 1 > allocatable["pods"]:
            missing.append("Too many pods")
        for resource, amount in sorted(requests.items()):
            if resource != "pods" and taken[resource] + amount > allocatable.get(resource, 0):
                missing.append(f"Insufficient {resource}")
        if not missing:
            return Placement(node=name)
        reasons.update(missing)
        preemption["No preemption victims found for incoming pod"] += 1
    return Placement(message=_fit_error(len(nodes), reasons, preemption))


def _fit_error(node_count, reasons, preemption):
    if node_count == 0:
        return "no nodes available to schedule pods"

    def histogram(counter):
        return ", ".join(sorted(f"{count} {reason}" for reason, count in counter.items()))
    return (f"0/{node_count} nodes are available: {histogram(reasons)}. "
            f"preemption: 0/{node_count} nodes are available: {histogram(preemption)}.")


def _usage(pods):
    used = collections.defaultdict(collections.Counter)
    for pod in pods:
        node = pod["spec"].get("nodeName")
        if node and not registry_module.is_terminal_pod(pod):
            used[node].update(pod_requests(pod))
            used[node]["pods"] += 1
    return used


class Scheduler:
    def __init__(self, registry, recorder):
        self._registry = registry
        self._recorder = recorder

    def run_once(self):
        store = self._registry.store
        nodes = sorted(store.items("nodes"), key=lambda n: n["metadata"]["name"])
        pods = store.items("pods")
        used = _usage(pods)
        pending = [p for p in pods if not p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")
                   and p["spec"].get("schedulerName", "default-scheduler") == "default-scheduler"
                   and not registry_module.is_terminal_pod(p)]
        pending.sort(key=lambda p: (-(p["spec"].get("priority") or 0), p["metadata"]["creationTimestamp"],
                                    int(p["metadata"]["resourceVersion"])))
        for pod in pending:
            if pod["spec"].get("schedulingGates"):
                self._mark(pod, "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates",
                           event=False)
                continue
            try:
                requests = pod_requests(pod)
            except ValueError:
                continue  # validation rejects bad quantities; a status write could still carry one
            placement = place(pod, requests, nodes, used)
            if placement.node:
                if self._bind(pod, placement.node):
                    used[placement.node].update(requests)
                    used[placement.node]["pods"] += 1
            else:
                self._mark(pod, "Unschedulable", placement.message, event=True)

    def _bind(self, pod, node):
        meta = pod["metadata"]

        def bind(current):
            if current["metadata"]["uid"] != meta["uid"] or current["spec"].get("nodeName"):
                return current
            current["spec"]["nodeName"] = node
            _scheduled_condition(current, "True")
            return current
        try:
            bound = self._registry.store.mutate(_PODS, meta["namespace"], meta["name"], bind)
        except apierrors.ApiError:
            return False
        if bound["spec"].get("nodeName") != node or bound["metadata"]["uid"] != meta["uid"]:
            return False
        self._recorder.record(bound, "Normal", "Scheduled",
                              f"Successfully assigned {meta['namespace']}/{meta['name']} to {node}",
                              "default-scheduler")
        return True

    def _mark(self, pod, reason, message, event):
        """Records why the pod waits: the PodScheduled=False condition and, when the reason is new, an Event."""
        meta = pod["metadata"]
        current = next((c for c in (pod.get("status") or {}).get("conditions") or []
                        if c.get("type") == "PodScheduled"), None)
        if current and current.get("reason") == reason and current.get("message") == message:
            return

        def update(obj):
            if obj["metadata"]["uid"] == meta["uid"] and not obj["spec"].get("nodeName"):
                _scheduled_condition(obj, "False", reason, message)
            return obj
        try:
            updated = self._registry.store.mutate(_PODS, meta["namespace"], meta["name"], update)
        except apierrors.ApiError:
            return
        if event:
            self._recorder.record(updated, "Warning", "FailedScheduling", message, "default-scheduler")


def _scheduled_condition(pod, status, reason=None, message=None):
    conditions = pod.setdefault("status", {}).setdefault("conditions", [])
    conditions[:] = [c for c in conditions if c.get("type") != "PodScheduled"]
    condition = {"type": "PodScheduled", "status": status, "lastProbeTime": None,
                 "lastTransitionTime": timeutil.rfc3339()}
    if reason:
        condition.update(reason=reason, message=message)
    conditions.append(condition)
