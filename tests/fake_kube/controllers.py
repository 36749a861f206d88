"""The loop that runs the controllers: garbage collector, Job controller, scheduler and kubelet.

It wakes on every store write (a listener sets an Event) and at least twice a second (for deadlines and
back-offs), runs each controller once in that order, and survives a controller's exception (printed, as a
bug in the fake should be visible in the test's output).
"""
import threading
import traceback


class ControllerLoop:
    def __init__(self, passes):
        self._passes = passes
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="controllers")

    def wake(self, _event=None):
        self._wake.set()

    def start(self):
        self._thread.start()

    def stop(self):
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout=5)

    def _run(self):
        while not self._stopping.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            for run_once in self._passes:
                if self._stopping.is_set():
                    return
                try:
                    run_once()
                except Exception:
                    traceback.print_exc()
