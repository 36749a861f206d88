"""The Job controller (batch/v1): creates a Job's pods, counts their outcomes, writes the Job's status.

What it does, as the real controller: `parallelism` pods at a time (fewer when fewer completions remain);
`completions` (unset with parallelism set means a work queue: done when one pod succeeded and none is
active); `completionMode: Indexed` (pod name <job>-<index>-<random>, the job-completion-index annotation and
label, JOB_COMPLETION_INDEX from that annotation, hostname <job>-<index>, status.completedIndexes);
`backoffLimit` (failed pods plus container restarts beyond it fail the Job and delete its active pods);
`activeDeadlineSeconds`; `suspend` (deletes active pods, condition Suspended; resuming recreates them and resets
startTime); `ttlSecondsAfterFinished`; conditions SuccessCriteriaMet+Complete or FailureTarget+Failed with the
real reasons; SuccessfulCreate/SuccessfulDelete/Completed/BackoffLimitExceeded Events.

What it does not: the job-tracking finalizer on pods (outcomes are counted from pod events instead, so a pod
deleted after it finished still counts), pod failure policies, backoffLimitPerIndex, the exponential delay
before replacing a failed pod (replacements are created at once).
"""
import copy
import threading
import time

from fake_kube import apierrors
from fake_kube import kinds
from fake_kube import registry as registry_module
from fake_kube import timeutil

_JOBS = kinds.BY_PLURAL["jobs"]
_PODS = kinds.BY_PLURAL["pods"]
INDEX_KEY = "batch.kubernetes.io/job-completion-index"


def controller_uid(obj):
    """The uid of the Job that controls obj, if any."""
    for ref in obj["metadata"].get("ownerReferences") or []:
        if ref.get("controller") and ref.get("kind") == "Job":
            return ref.get("uid")
    return None


def _completion_index(pod):
    value = (pod["metadata"].get("annotations") or {}).get(INDEX_KEY)
    return int(value) if value is not None and value.isdigit() else None


def _condition_true(job, kind):
    return any(c.get("type") == kind and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or [])


def _compress(indexes):
    """Sorted indexes as the real completedIndexes string: "0-2,5"."""
    ranges, start, prev = [], None, None
    for i in sorted(indexes):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            ranges.append((start, prev))
            start = prev = i
    if start is not None:
        ranges.append((start, prev))
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


class JobController:
    def __init__(self, registry, recorder):
        self._registry = registry
        self._recorder = recorder
        self._lock = threading.Lock()
        self._outcomes = {}  # job uid -> {"succeeded": {pod uid: index}, "failed": {pod uid}}
        self._expected_deletions = set()  # pod uids the controller deleted itself: not failures

    def on_event(self, event):
        """Store listener (runs under the store lock): counts each Job pod's outcome exactly once."""
        if event.resource != "pods":
            return
        pod = event.obj
        job_uid = controller_uid(pod)
        if not job_uid:
            return
        uid, phase = pod["metadata"]["uid"], (pod.get("status") or {}).get("phase")
        with self._lock:
            outcome = self._outcomes.setdefault(job_uid, {"succeeded": {}, "failed": set()})
            if uid in outcome["succeeded"] or uid in outcome["failed"]:
                return
            if phase == "Succeeded":
                outcome["succeeded"][uid] = _completion_index(pod)
            elif uid in self._expected_deletions:
                return
            elif phase == "Failed" or event.type == "DELETED":
                outcome["failed"].add(uid)

    def run_once(self):
        pods_by_job = {}
        for pod in self._registry.store.items("pods"):
            job_uid = controller_uid(pod)
            if job_uid:
                pods_by_job.setdefault(job_uid, []).append(pod)
        live = set()
        for job in self._registry.store.items("jobs"):
            live.add(job["metadata"]["uid"])
            try:
                self._sync(job, pods_by_job.get(job["metadata"]["uid"], []))
            except apierrors.ApiError:
                pass  # the Job changed or went away meanwhile; the next pass sees the new state
        with self._lock:
            for uid in list(self._outcomes):
                if uid not in live and uid not in pods_by_job:
                    del self._outcomes[uid]

    def _sync(self, job, pods):
        meta, spec = job["metadata"], job["spec"]
        if meta.get("deletionTimestamp"):
            return
        with self._lock:
            outcome = copy.deepcopy(self._outcomes.get(meta["uid"], {"succeeded": {}, "failed": set()}))
        active = [p for p in pods
                  if not registry_module.is_terminal_pod(p) and not p["metadata"].get("deletionTimestamp")]
        terminating = [p for p in pods if p["metadata"].get("deletionTimestamp")
                       and not registry_module.is_terminal_pod(p)]
        status = copy.deepcopy(job.get("status") or {})
        now = timeutil.rfc3339()
        events = []
        finished = _condition_true(job, "Complete") or _condition_true(job, "Failed")
        if finished:
            if _condition_true(job, "Failed"):
                self._delete_pods(job, active, events)
                active = []
        elif spec.get("suspend"):
            self._delete_pods(job, active, events)
            active = []
            if not _condition_true(job, "Suspended"):
                _set(status, "Suspended", "True", "JobSuspended", "Job suspended", now)
                status.pop("startTime", None)
        else:
            if _condition_true(job, "Suspended"):
                _set(status, "Suspended", "False", "JobResumed", "Job resumed", now)
                status.pop("startTime", None)
            status.setdefault("startTime", now)
            active = self._progress(job, status, active, outcome, now, events)
        self._write_status(job, status, active, terminating, outcome)
        for event_type, reason, message in events:
            self._recorder.record(job, event_type, reason, message, "job-controller")

    def _progress(self, job, status, active, outcome, now, events):
        """Fails, completes or adds pods to a running Job; returns its active pods."""
        spec = job["spec"]
        restarts = sum(cs.get("restartCount", 0) for p in active
                       for cs in (p.get("status") or {}).get("containerStatuses") or [])
        deadline = spec.get("activeDeadlineSeconds")
        started = timeutil.parse_rfc3339(status["startTime"])
        if deadline is not None and time.time() - started >= deadline:
            return self._fail(job, status, active, "DeadlineExceeded", "Job was active longer than specified "
                                                                       "deadline", now, events)
        if len(outcome["failed"]) + restarts > spec.get("backoffLimit", 6):
            return self._fail(job, status, active, "BackoffLimitExceeded", "Job has reached the specified "
                                                                           "backoff limit", now, events)
        completions = spec.get("completions")
        succeeded = outcome["succeeded"]
        if spec.get("completionMode") == "Indexed":
            done = set(i for i in succeeded.values() if i is not None)
            complete = done >= set(range(completions))
        elif completions is None:
            complete = bool(succeeded) and not active
        else:
            complete = len(succeeded) >= completions
        if complete:
            _set(status, "SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of "
                                                                             "succeeded pods", now)
            _set(status, "Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods",
                 now)
            status["completionTime"] = now
            events.append(("Normal", "Completed", "Job completed"))
            return active
        return active + self._create_pods(job, active, outcome, events)

    def _fail(self, job, status, active, reason, message, now, events):
        _set(status, "FailureTarget", "True", reason, message, now)
        _set(status, "Failed", "True", reason, message, now)
        events.append(("Warning", reason, message))
        self._delete_pods(job, active, events)
        return []

    def _create_pods(self, job, active, outcome, events):
        spec = job["spec"]
        parallelism, completions = spec.get("parallelism", 1), spec.get("completions")
        if spec.get("completionMode") == "Indexed":
            taken = {_completion_index(p) for p in active} | set(outcome["succeeded"].values())
            wanted = [i for i in range(completions) if i not in taken][:max(0, parallelism - len(active))]
        else:
            if completions is None:
                count = 0 if outcome["succeeded"] else parallelism - len(active)
            else:
                count = min(parallelism, completions - len(outcome["succeeded"])) - len(active)
            wanted = [None] * max(0, count)
        created = []
        for index in wanted:
            try:
                pod = self._registry.create(_PODS, job["metadata"]["namespace"], self._pod_for(job, index))
            except apierrors.ApiError as e:
                events.append(("Warning", "FailedCreate", f"Error creating: {e.message}"))
                continue
            created.append(pod)
            events.append(("Normal", "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}"))
        return created

    @staticmethod
    def _pod_for(job, index):
        meta, template = job["metadata"], copy.deepcopy(job["spec"].get("template") or {})
        tmeta = template.get("metadata") or {}
        labels, annotations = dict(tmeta.get("labels") or {}), dict(tmeta.get("annotations") or {})
        pod_spec = template.get("spec") or {}
        prefix = f"{meta['name']}-"
        if index is not None:
            prefix = f"{meta['name']}-{index}-"
            labels[INDEX_KEY] = annotations[INDEX_KEY] = str(index)
            pod_spec.setdefault("hostname", f"{meta['name']}-{index}")
            for container in (pod_spec.get("initContainers") or []) + (pod_spec.get("containers") or []):
                env = container.setdefault("env", [])
                if not any(e.get("name") == "JOB_COMPLETION_INDEX" for e in env):
                    env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                        "apiVersion": "v1", "fieldPath": f"metadata.annotations['{INDEX_KEY}']"}}})
        owner = {"apiVersion": "batch/v1", "kind": "Job", "name": meta["name"], "uid": meta["uid"],
                 "controller": True, "blockOwnerDeletion": True}
        pod_meta = {"generateName": prefix, "namespace": meta["namespace"], "labels": labels,
                    "ownerReferences": [owner]}
        if annotations:
            pod_meta["annotations"] = annotations
        return {"metadata": pod_meta, "spec": pod_spec}

    def _delete_pods(self, job, pods, events):
        for pod in pods:
            with self._lock:
                self._expected_deletions.add(pod["metadata"]["uid"])
            try:
                self._registry.delete(_PODS, pod["metadata"]["namespace"], pod["metadata"]["name"],
                                      {"propagationPolicy": "Background"})
                events.append(("Normal", "SuccessfulDelete", f"Deleted pod: {pod['metadata']['name']}"))
            except apierrors.ApiError:
                pass

    def _write_status(self, job, status, active, terminating, outcome):
        for key, value in (("active", len(active)), ("succeeded", len(outcome["succeeded"])),
                           ("failed", len(outcome["failed"]))):
            if value:
                status[key] = value
            else:
                status.pop(key, None)
        status["ready"] = sum(1 for p in active if any(c.get("type") == "Ready" and c.get("status") == "True"
                                                        for c in (p.get("status") or {}).get("conditions") or []))
        status["terminating"] = len(terminating)
        status["uncountedTerminatedPods"] = {}
        if job["spec"].get("completionMode") == "Indexed":
            indexes = [i for i in outcome["succeeded"].values() if i is not None]
            if indexes:
                status["completedIndexes"] = _compress(indexes)

        def apply(current):
            if current["metadata"]["uid"] == job["metadata"]["uid"]:
                current["status"] = status
            return current
        self._registry.store.mutate(_JOBS, job["metadata"]["namespace"], job["metadata"]["name"], apply)


def _set(status, kind, value, reason, message, now):
    conditions = status.setdefault("conditions", [])
    for condition in conditions:
        if condition["type"] == kind:
            if condition["status"] != value:
                condition.update(status=value, reason=reason, message=message, lastTransitionTime=now,
                                 lastProbeTime=now)
            return
    conditions.append({"type": kind, "status": value, "reason": reason, "message": message,
                       "lastProbeTime": now, "lastTransitionTime": now})
