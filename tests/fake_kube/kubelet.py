"""The kubelet: runs each bound pod's containers as local processes and reports them in the pod's status.

For every pod bound to a node (all nodes are this one machine), a PodRunner thread runs the init containers in
order, then all containers at once, each as `command + args` in its own process group with stdout and stderr
going to a log file (one RFC3339Nano timestamp per line, the kubelet's format minus the stream tag). It writes
the status a real kubelet writes: phase Pending -> Running -> Succeeded/Failed, container states waiting /
running / terminated (exit code, reason Completed or Error, StartError with 128 when the command cannot be
run), restartCount and lastState when restartPolicy restarts a container (after a 1 s back-off, not the real
10 s doubling), the PodReadyToStartContainers, Initialized, ContainersReady and Ready conditions, and the
Pulled/Created/Started/Killing/Failed/BackOff Events.

Images are not pulled. An image whose name contains one of the "bad image" substrings never starts: its
container waits with ErrImagePull, then ImagePullBackOff, with the real Warning events.

Each running container's process group id is a file in <state-dir>/process-groups/ until the group is gone.

Deleting a running pod sends SIGTERM to each container's process group, SIGKILL after the grace period, then
removes the pod. When a container's main process exits, what is left of its process group is killed, as the
end of a real container's PID namespace would.
"""
import ctypes
import os
import pathlib
import signal
import subprocess
import threading
import time
import traceback

from fake_kube import apierrors
from fake_kube import kinds
from fake_kube import podenv
from fake_kube import registry as registry_module
from fake_kube import timeutil

_PODS = kinds.BY_PLURAL["pods"]
_RESTART_BACKOFF_S = 1.0
_PULL_RETRY_S = 5.0

try:
    _prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
except (OSError, AttributeError):
    _prctl = None


def _die_with_parent():
    """In the child before exec: get SIGKILL if the fake server dies without cleaning up (e.g. SIGKILL)."""
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _killpg(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _pump(pipe, path):
    """Copies a container's output to its log file, one timestamp per line."""
    with open(path, "ab") as log:
        for line in iter(pipe.readline, b""):
            if not line.endswith(b"\n"):
                line += b"\n"
            log.write(timeutil.rfc3339nano().encode() + b" " + line)
            log.flush()
    pipe.close()


class _Gone(Exception):
    """The pod this runner serves no longer exists (or has been replaced by one with another uid)."""


class ContainerRun:
    """One container of a pod: its spec, its process while it runs, and the state the kubelet reports."""

    def __init__(self, spec, log_path, init):
        self.spec = spec
        self.name = spec["name"]
        self.init = init
        self.log_path = log_path
        self.proc = None
        self.reader = None
        self.pid = None
        self.restart_count = 0
        self.state = {"waiting": {"reason": "PodInitializing"}}
        self.last_state = {}
        self.done = False  # terminated, and the restart policy will not start it again
        self.exit_code = None
        self.next_attempt = 0.0
        self.started_at = None
        self.pull_failures = 0
        self.group_file = None

    @property
    def field_path(self):
        return f"spec.{'initContainers' if self.init else 'containers'}{{{self.name}}}"

    def status(self):
        running = "running" in self.state
        ready = running if not self.init else self.exit_code == 0 and self.done
        status = {"name": self.name, "image": self.spec.get("image", ""), "imageID": "", "ready": ready,
                  "restartCount": self.restart_count, "started": running, "state": self.state,
                  "lastState": self.last_state}
        if self.pid:
            status["containerID"] = f"fake://{self.pid}"
        return status

    def start(self, argv, env, cwd, groups_dir):
        """Starts the process; returns None, or the error text when the command cannot be executed.

        The process group is recorded as a file in groups_dir until it is reaped, so that whoever started a
        server that died without cleaning up (SIGKILL) can still kill what it left (fixture.py does).
        """
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_parent)
        except OSError as e:
            return (f"failed to create containerd task: failed to create shim task: OCI runtime create failed: "
                    f"runc create failed: unable to start container process: exec: \"{argv[0]}\": {e.strerror}: "
                    f"unknown")
        self.proc, self.pid = proc, proc.pid
        self.group_file = groups_dir / str(proc.pid)
        groups_dir.mkdir(parents=True, exist_ok=True)
        self.group_file.touch()
        self.started_at = timeutil.rfc3339()
        self.reader = threading.Thread(target=_pump, args=(proc.stdout, self.log_path), daemon=True,
                                       name=f"log-{self.name}")
        self.reader.start()
        self.state = {"running": {"startedAt": self.started_at}}
        return None

    def reap(self):
        """After the main process exited: kills the rest of its group, drains its output; returns the exit code
        (128 + N for a process killed by signal N, as container runtimes report it)."""
        rc = self.proc.wait()
        _killpg(self.proc.pid, signal.SIGKILL)
        self.group_file.unlink(missing_ok=True)
        self.reader.join(timeout=2)
        code = rc if rc >= 0 else 128 - rc
        self.proc = None
        self.terminate_state(code, "Completed" if code == 0 else "Error")
        return code

    def terminate_state(self, code, reason, message=None):
        terminated = {"exitCode": code, "reason": reason, "startedAt": self.started_at or timeutil.rfc3339(),
                      "finishedAt": timeutil.rfc3339()}
        if self.pid:
            terminated["containerID"] = f"fake://{self.pid}"
        if message:
            terminated["message"] = message
        self.state = {"terminated": terminated}
        self.exit_code = code


class PodRunner:
    """Runs one pod's containers on a thread of its own and writes the pod's status."""

    def __init__(self, kubelet, pod):
        meta = pod["metadata"]
        self.kubelet = kubelet
        self.uid, self.namespace, self.name = meta["uid"], meta["namespace"], meta["name"]
        self.scratch = kubelet.state_dir / "pods" / self.namespace / self.name
        self.restart_policy = pod["spec"].get("restartPolicy", "Always")
        logs = kubelet.state_dir / "logs" / self.namespace / self.name
        self.inits = [ContainerRun(c, logs / f"{c['name']}.log", True) for c in pod["spec"].get("initContainers") or []]
        self.mains = [ContainerRun(c, logs / f"{c['name']}.log", False) for c in pod["spec"].get("containers") or []]
        for c in self.mains:
            c.state = {"waiting": {"reason": "PodInitializing" if self.inits else "ContainerCreating"}}
        self.finished = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._stop_deadline = None
        self._gone = False
        self._thread = threading.Thread(target=self._main, daemon=True, name=f"pod-{self.namespace}/{self.name}")

    def start(self):
        self._thread.start()

    def request_stop(self, grace_seconds, gone=False):
        """Asks the runner to stop the pod's containers: SIGTERM now, SIGKILL after grace_seconds. A pod that is
        already gone from the store (gone=True) is not written to again."""
        with self._lock:
            deadline = time.monotonic() + max(0, grace_seconds)
            if self._stop_deadline is None or deadline < self._stop_deadline:
                self._stop_deadline = deadline
            self._gone = self._gone or gone
        self._stop.set()

    def kill_now(self):
        """Server shutdown: SIGKILL every process group of the pod at once."""
        for c in self.inits + self.mains:
            if c.proc is not None:
                _killpg(c.proc.pid, signal.SIGKILL)
                if c.group_file is not None:
                    c.group_file.unlink(missing_ok=True)

    def _main(self):
        try:
            self._run()
        except _Gone:
            self.request_stop(0, gone=True)
            self._terminate()
        except Exception:  # a bug in the fake: say so loudly, leave no process behind
            traceback.print_exc()
        finally:
            self.kill_now()
            self.finished = True
            self.kubelet.wake()

    def _run(self):
        self.scratch.mkdir(parents=True, exist_ok=True)
        self._publish(first=True)
        for c in self.inits:
            policy = "Never" if self.restart_policy == "Never" else "OnFailure"
            if not self._drive([c], policy):
                return self._terminate()
            if c.exit_code != 0:
                return self._publish(phase="Failed")
        self._publish()
        if not self._drive(self.mains, self.restart_policy):
            return self._terminate()
        self._publish()

    def _drive(self, containers, policy):
        """Starts, watches and restarts containers until all are done (True) or the pod is deleted (False)."""
        while True:
            if self._stop.is_set():
                return False
            changed = False
            for c in containers:
                if c.done:
                    continue
                if c.proc is None:
                    if time.monotonic() >= c.next_attempt:
                        changed = self._try_start(c, policy) or changed
                elif c.proc.poll() is not None:
                    self._after_exit(c, c.reap(), policy)
                    changed = True
            if changed:
                self._publish()
            if all(c.done for c in containers):
                return True
            self._stop.wait(0.05)

    def _after_exit(self, c, code, policy):
        if policy == "Always" or (policy == "OnFailure" and code != 0):
            c.last_state = c.state
            c.restart_count += 1
            c.next_attempt = time.monotonic() + _RESTART_BACKOFF_S
            c.state = {"waiting": {"reason": "CrashLoopBackOff",
                                   "message": f"back-off {int(_RESTART_BACKOFF_S)}s restarting failed "
                                              f"container={c.name} pod={self.name}_{self.namespace}({self.uid})"}}
            self._event(c, "Warning", "BackOff", "Back-off restarting failed container")
        else:
            c.done = True

    def _try_start(self, c, policy):
        """One attempt to start a container; returns whether its state changed."""
        image = c.spec.get("image", "")
        if self.kubelet.is_bad_image(image):
            return self._pull_failed(c, image)
        pod = self._pod()
        try:
            variables = podenv.container_env(pod, c.spec, self.kubelet.lookup, self.kubelet.allocatable(pod))
            podenv.materialize_volumes(pod, c.spec, self.scratch, self.kubelet.lookup)
        except podenv.ConfigError as e:
            c.next_attempt = time.monotonic() + 1.0
            new_state = {"waiting": {"reason": "CreateContainerConfigError", "message": str(e)}}
            if new_state == c.state:
                return False
            c.state = new_state
            self._event(c, "Warning", "Failed", f"Error: {e}")
            return True
        argv = podenv.command_line(c.spec, variables)
        cwd = podenv.host_path(self.scratch, c.spec["workingDir"]) if c.spec.get("workingDir") else self.scratch
        cwd.mkdir(parents=True, exist_ok=True)
        self._event(c, "Normal", "Pulled", f'Container image "{image}" already present on machine')
        error = (c.start(argv, self._environment(pod, variables), cwd, self.kubelet.groups_dir) if argv else
                 "the fake kubelet has no image entrypoint: the container needs a command or args")
        if error:
            c.terminate_state(128, "StartError", error)
            self._event(c, "Warning", "Failed", f"Error: {error}")
            self._after_exit(c, 128, policy)
            return True
        self._event(c, "Normal", "Created", f"Created container {c.name}")
        self._event(c, "Normal", "Started", f"Started container {c.name}")
        return True

    def _pull_failed(self, c, image):
        message = (f'rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to resolve '
                   f'reference "{image}": {image}: not found')
        if c.pull_failures == 0:
            c.state = {"waiting": {"reason": "ErrImagePull", "message": message}}
            self._event(c, "Normal", "Pulling", f'Pulling image "{image}"')
            self._event(c, "Warning", "Failed", f'Failed to pull image "{image}": {message}')
            self._event(c, "Warning", "Failed", "Error: ErrImagePull")
            c.next_attempt = time.monotonic() + 1.0
        else:
            c.state = {"waiting": {"reason": "ImagePullBackOff", "message": f'Back-off pulling image "{image}"'}}
            self._event(c, "Normal", "BackOff", f'Back-off pulling image "{image}"')
            self._event(c, "Warning", "Failed", "Error: ImagePullBackOff")
            c.next_attempt = time.monotonic() + _PULL_RETRY_S
        c.pull_failures += 1
        return True

    def _environment(self, pod, variables):
        env = dict(self.kubelet.base_env)
        env.update({"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(self.kubelet.api_port),
                    "KUBERNETES_PORT": f"tcp://127.0.0.1:{self.kubelet.api_port}",
                    "HOSTNAME": pod["spec"].get("hostname") or self.name, "FAKE_KUBE_POD_ROOT": str(self.scratch)})
        env.update(variables)
        return env

    def _terminate(self):
        """Stops the pod's processes (SIGTERM, then SIGKILL at the deadline) and removes the pod."""
        running = [c for c in self.inits + self.mains if c.proc is not None]
        for c in running:
            if not self._gone:
                self._event(c, "Normal", "Killing", f"Stopping container {c.name}")
            _killpg(c.proc.pid, signal.SIGTERM)
        while any(c.proc.poll() is None for c in running):
            with self._lock:
                deadline = self._stop_deadline
            if time.monotonic() >= deadline:
                for c in running:
                    _killpg(c.proc.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
        for c in running:
            c.reap()
            c.done = True
        if self._gone:
            return
        codes = [c.exit_code for c in self.mains]
        phase = "Succeeded" if all(code == 0 for code in codes) else "Failed"
        try:
            pod = self._publish(phase=phase)
        except _Gone:
            return
        self.kubelet.registry.finish_if_done(_PODS, pod)

    def _pod(self):
        pod = self.kubelet.registry.store.get("pods", self.namespace, self.name)
        if pod is None or pod["metadata"]["uid"] != self.uid:
            raise _Gone()
        return pod

    def _event(self, c, event_type, reason, message):
        try:
            pod = self._pod()
        except _Gone:
            return
        self.kubelet.recorder.record(pod, event_type, reason, message, "kubelet", c.field_path)

    def _phase(self):
        if any(not c.done or c.exit_code != 0 for c in self.inits):
            return "Pending"
        if all(c.done for c in self.mains):
            return "Succeeded" if all(c.exit_code == 0 for c in self.mains) else "Failed"
        if any(c.proc is not None or c.restart_count > 0 or c.done for c in self.mains):
            return "Running"
        return "Pending"

    def _publish(self, phase=None, first=False):
        """Writes the pod's status from the containers' states; returns the pod as stored."""
        phase = phase or self._phase()
        inits_done = all(c.done and c.exit_code == 0 for c in self.inits)
        unready = [c.name for c in self.mains if "running" not in c.state]
        terminal = phase in ("Succeeded", "Failed")

        def update(pod):
            if pod["metadata"]["uid"] != self.uid:
                raise _Gone()
            status = pod.setdefault("status", {})
            if first or "startTime" not in status:
                status.update({"hostIP": "127.0.0.1", "hostIPs": [{"ip": "127.0.0.1"}], "podIP": "127.0.0.1",
                               "podIPs": [{"ip": "127.0.0.1"}], "startTime": status.get("startTime") or
                               timeutil.rfc3339()})
            status["phase"] = phase
            conditions = status.setdefault("conditions", [])
            _set_condition(conditions, "PodReadyToStartContainers", "True")
            if inits_done:
                _set_condition(conditions, "Initialized", "True")
            else:
                pending = [c.name for c in self.inits if not (c.done and c.exit_code == 0)]
                _set_condition(conditions, "Initialized", "False", "ContainersNotInitialized",
                               f"containers with incomplete status: [{' '.join(pending)}]")
            if terminal:
                _set_condition(conditions, "ContainersReady", "False", "PodCompleted")
                _set_condition(conditions, "Ready", "False", "PodCompleted")
            elif unready:
                message = f"containers with unready status: [{' '.join(unready)}]"
                _set_condition(conditions, "ContainersReady", "False", "ContainersNotReady", message)
                _set_condition(conditions, "Ready", "False", "ContainersNotReady", message)
            else:
                _set_condition(conditions, "ContainersReady", "True")
                _set_condition(conditions, "Ready", "True")
            _set_condition(conditions, "PodScheduled", "True")
            conditions.sort(key=lambda c: _CONDITION_ORDER.get(c["type"], 9))
            if self.inits:
                status["initContainerStatuses"] = [c.status() for c in self.inits]
            status["containerStatuses"] = [c.status() for c in self.mains]
            return pod

        try:
            return self.kubelet.registry.store.mutate(_PODS, self.namespace, self.name,
                                                      lambda pod: update(pod))
        except apierrors.ApiError:
            raise _Gone()


_CONDITION_ORDER = {"PodReadyToStartContainers": 0, "Initialized": 1, "Ready": 2, "ContainersReady": 3,
                    "PodScheduled": 4}


def _set_condition(conditions, kind, status, reason=None, message=None):
    """Sets a condition; lastTransitionTime changes only when its status does."""
    for condition in conditions:
        if condition["type"] == kind:
            if condition["status"] != status:
                condition["lastTransitionTime"] = timeutil.rfc3339()
            condition["status"] = status
            break
    else:
        condition = {"type": kind, "status": status, "lastProbeTime": None,
                     "lastTransitionTime": timeutil.rfc3339()}
        conditions.append(condition)
    for key, value in (("reason", reason), ("message", message)):
        if value is None:
            condition.pop(key, None)
        else:
            condition[key] = value


class Kubelet:
    """Starts a PodRunner for each pod bound to a node and stops it when the pod is deleted."""

    def __init__(self, registry, recorder, state_dir, bad_images, base_env, wake):
        self.registry = registry
        self.recorder = recorder
        self.state_dir = pathlib.Path(state_dir)
        self.bad_images = tuple(bad_images)
        self.base_env = dict(base_env)
        self.wake = wake
        self.api_port = 0
        self.groups_dir = self.state_dir / "process-groups"
        self._runners = {}  # pod uid -> PodRunner

    def is_bad_image(self, image):
        return any(bad in image for bad in self.bad_images)

    def lookup(self, plural, namespace, name):
        return self.registry.store.get(plural, namespace, name)

    def allocatable(self, pod):
        node = self.registry.store.get("nodes", "", pod["spec"].get("nodeName", ""))
        return ((node or {}).get("status") or {}).get("allocatable") or {}

    def log_path(self, namespace, pod, container):
        return self.state_dir / "logs" / namespace / pod / f"{container}.log"

    def run_once(self):
        """One pass over the pods: start runners for newly bound pods, stop those of deleted ones."""
        live = set()
        for pod in self.registry.store.items("pods"):
            meta = pod["metadata"]
            live.add(meta["uid"])
            if not pod["spec"].get("nodeName"):
                continue
            runner = self._runners.get(meta["uid"])
            deleting = bool(meta.get("deletionTimestamp"))
            if runner is None:
                if deleting:
                    self._finish_unstarted(pod)
                elif not registry_module.is_terminal_pod(pod):
                    runner = PodRunner(self, pod)
                    self._runners[meta["uid"]] = runner
                    runner.start()
            elif deleting and runner.finished:
                self._finish_unstarted(pod)  # its runner gave up (a bug, already printed): let the pod go
            elif deleting:
                runner.request_stop(meta.get("deletionGracePeriodSeconds") or 0)
        for uid, runner in list(self._runners.items()):
            if uid not in live:
                runner.request_stop(0, gone=True)
                if runner.finished:
                    del self._runners[uid]

    def _finish_unstarted(self, pod):
        """A pod deleted before its containers started: nothing to stop; mark it finished and let it go."""
        meta = pod["metadata"]

        def fail(current):
            if current["metadata"]["uid"] == meta["uid"] and not registry_module.is_terminal_pod(current):
                current.setdefault("status", {})["phase"] = "Failed"
            return current
        try:
            pod = self.registry.store.mutate(_PODS, meta["namespace"], meta["name"], fail)
        except apierrors.ApiError:
            return
        self.registry.finish_if_done(_PODS, pod)

    def stop_all(self):
        for runner in list(self._runners.values()):
            runner.request_stop(0, gone=True)
            runner.kill_now()
