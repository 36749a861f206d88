"""The object store: every object, one global resourceVersion counter, the watch history and open watches.

One re-entrant lock guards everything here. Callers never hold it while doing I/O: the store hands out deep
copies, and a watch gets a queue that the store only appends to (never blocks) while holding the lock.

Stored objects are never modified in place; every write stores a new dict. That lets the history and the
watch queues share them, and lets controllers read `items()` without copying (they must not modify what they
get from it).

resourceVersion semantics follow etcd as the real server exposes them: one counter for all objects, bumped by
every create, update and delete (a DELETED event carries the deletion's version), and a write that changes
nothing is not a write (no new version, no event).
"""
import collections
import copy
import queue
import threading

from fake_kube import apierrors

Event = collections.namedtuple("Event", "rv resource type obj old")


class Watcher:
    """An open watch: the store appends the events of one resource type to `queue`; None means "end now"."""

    def __init__(self, resource):
        self.resource = resource
        self.queue = queue.Queue()
        self.abrupt = False

    def close(self, abrupt=False):
        self.abrupt = abrupt
        self.queue.put(None)


class Store:
    def __init__(self, history_size=1000):
        self.lock = threading.RLock()
        self._rv = 0
        self._objects = collections.defaultdict(dict)  # plural -> {(namespace, name): object}
        self._uids = {}  # uid -> (plural, namespace, name)
        self._history = collections.deque()
        self._history_size = max(1, history_size)
        self._floor = 0  # a watch may resume from any resourceVersion >= this one
        self._watchers = set()
        self._listeners = []

    def add_listener(self, fn):
        """fn(event) runs under the store lock after every write; it must be quick and must not block."""
        self._listeners.append(fn)

    @property
    def resource_version(self):
        with self.lock:
            return str(self._rv)

    def get(self, plural, namespace, name):
        """A copy of the object, or None."""
        with self.lock:
            obj = self._objects[plural].get((namespace or "", name))
            return copy.deepcopy(obj) if obj is not None else None

    def list(self, plural, namespace=None):
        """(copies of the objects sorted by namespace and name, the resourceVersion of this snapshot)."""
        with self.lock:
            items = [copy.deepcopy(o) for k, o in sorted(self._objects[plural].items())
                     if namespace is None or k[0] == namespace]
            return items, str(self._rv)

    def items(self, plural):
        """The stored objects themselves, sorted by key: read-only, for controllers that scan often."""
        with self.lock:
            return [o for _, o in sorted(self._objects[plural].items())]

    def has_uid(self, uid):
        with self.lock:
            return uid in self._uids

    def create(self, rt, obj):
        """Stores a new object (the store owns `obj` from now on); returns a copy with its resourceVersion.

        Raises AlreadyExists when the name is taken in the namespace.
        """
        meta = obj["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        with self.lock:
            if key in self._objects[rt.plural]:
                raise apierrors.already_exists(rt, meta["name"])
            self._rv += 1
            meta["resourceVersion"] = str(self._rv)
            self._objects[rt.plural][key] = obj
            self._uids[meta["uid"]] = (rt.plural, key[0], key[1])
            self._record(Event(self._rv, rt.plural, "ADDED", obj, None))
            return copy.deepcopy(obj)

    def mutate(self, rt, namespace, name, fn):
        """The single update path: fn(copy of the object) returns the new object (or raises ApiError).

        Runs fn under the lock, so read-modify-write sequences from clients and controllers never lose each
        other's changes. Returns a copy of the stored result; a result equal to the old object is not written.
        Raises NotFound when there is no such object.
        """
        key = (namespace or "", name)
        with self.lock:
            old = self._objects[rt.plural].get(key)
            if old is None:
                raise apierrors.not_found(rt, name)
            new = fn(copy.deepcopy(old))
            new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
            if new == old:
                return copy.deepcopy(old)
            self._rv += 1
            new["metadata"]["resourceVersion"] = str(self._rv)
            self._objects[rt.plural][key] = new
            self._record(Event(self._rv, rt.plural, "MODIFIED", new, old))
            return copy.deepcopy(new)

    def remove(self, rt, namespace, name, uid=None):
        """Removes the object (only if its uid is `uid`, when given); returns the final copy or None."""
        key = (namespace or "", name)
        with self.lock:
            old = self._objects[rt.plural].get(key)
            if old is None or (uid and old["metadata"]["uid"] != uid):
                return None
            del self._objects[rt.plural][key]
            self._uids.pop(old["metadata"]["uid"], None)
            self._rv += 1
            final = copy.deepcopy(old)
            final["metadata"]["resourceVersion"] = str(self._rv)
            self._record(Event(self._rv, rt.plural, "DELETED", final, old))
            return copy.deepcopy(final)

    def watch(self, plural, since):
        """Opens a watch on one resource type: returns (initial events, Watcher) atomically, so no change is
        missed or sent twice between the two.

        since None: a synthetic ADDED event for every current object, then changes. since N: every change after
        N still in the history; raises Expired (410) when changes after N have been forgotten.
        """
        with self.lock:
            if since is None:
                initial = [Event(int(o["metadata"]["resourceVersion"]), plural, "ADDED", o, None)
                           for _, o in sorted(self._objects[plural].items())]
            else:
                if since < self._floor:
                    raise apierrors.expired(f"too old resource version: {since} ({self._floor + 1})")
                initial = [e for e in self._history if e.resource == plural and e.rv > since]
            watcher = Watcher(plural)
            self._watchers.add(watcher)
            return initial, watcher

    def unwatch(self, watcher):
        with self.lock:
            self._watchers.discard(watcher)

    def queue_is_current(self, watcher):
        """(True, rv) when the watcher has been sent every event up to rv: used to date BOOKMARK events."""
        with self.lock:
            return watcher.queue.empty(), str(self._rv)

    def drop_watches(self, abrupt=False):
        """Ends every open watch (POST /fake/drop-watches)."""
        with self.lock:
            for watcher in self._watchers:
                watcher.close(abrupt)
            count = len(self._watchers)
            self._watchers.clear()
            return count

    def compact(self):
        """Forgets the watch history: resuming from any version before now gets 410 (POST /fake/compact)."""
        with self.lock:
            self._history.clear()
            self._floor = self._rv
            return self._rv

    def history_floor(self):
        with self.lock:
            return self._floor

    def _record(self, event):
        self._history.append(event)
        while len(self._history) > self._history_size:
            self._floor = self._history.popleft().rv
        for watcher in self._watchers:
            if watcher.resource == event.resource:
                watcher.queue.put(event)
        for listener in self._listeners:
            listener(event)
