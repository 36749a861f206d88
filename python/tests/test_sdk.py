"""The Python SDK's pure pieces and its HTTP contract, against a fake master in a thread:
password hashing, URL and JSON mapping, the model-definition packer, paging, login with the token
cache, errors, and checkpoint downloads from shared_fs storage."""

import base64
import hashlib
import http.server
import json
import threading
import urllib.parse
from typing import Any, Callable, Dict, List, Tuple

import pytest

from determined.common import api, context
from determined.common.api import errors
from determined.common.experimental import _util, metrics
from determined.experimental import client


def test_password_hash_is_upstreams():
    expected = hashlib.sha512(b"GubPEmmotfiK9TMD6Zdw" + b"s3cret").hexdigest()
    assert api.salt_and_hash("s3cret") == expected
    assert api.salt_and_hash("") == ""  # a blank password stays blank


@pytest.mark.parametrize("given,canonical", [
    ("localhost", "http://localhost:8080"),
    ("127.0.0.1:9000", "http://127.0.0.1:9000"),
    ("http://m:1/", "http://m:1"),
    ("https://m", "https://m:8443"),
    ("http://[::1]", "http://[::1]:8080"),
])
def test_master_url_is_canonical_as_the_cli_caches_it(given, canonical):
    assert api.canonicalize_master_url(given) == canonical


def test_default_master_url(monkeypatch):
    assert api.get_default_master_url() == "localhost:8080"
    monkeypatch.setenv("DET_MASTER_ADDR", "addr:1")
    assert api.get_default_master_url() == "addr:1"
    monkeypatch.setenv("DET_MASTER", "m:2")
    assert api.get_default_master_url() == "m:2"


def test_timestamps_and_int64():
    t = _util.parse_timestamp("2024-01-02T03:04:05.123456789Z")
    assert (t.year, t.microsecond, t.utcoffset().total_seconds()) == (2024, 123456, 0)
    assert _util.parse_timestamp("2024-01-02T03:04:05Z").second == 5
    assert _util.parse_timestamp(None) is None
    assert _util.to_int("123") == 123 and _util.to_int(None) is None
    assert _util.int_map({"a": "1", "b": 2}) == {"a": 1, "b": 2}


def test_metric_reports_read_upstreams_nesting():
    report = {"trialId": 3, "trialRunId": 1, "totalBatches": 10, "endTime": "2024-01-01T00:00:00Z",
              "metrics": {"validation_metrics": {"loss": 0.5}}, "group": "validation", "id": 7}
    m = metrics.TrialMetrics._from_json(report, "validation")
    assert (m.trial_id, m.total_batches, m.steps_completed, m.metrics, m.group, m.batch_metrics) == (
        3, 10, 10, {"loss": 0.5}, "validation", None)
    for group in ("training", "inference"):
        report = dict(report, metrics={"avg_metrics": {"x": 1}, "batch_metrics": [{"x": 1}]}, group=group)
        got = metrics.TrialMetrics._from_json(report, group)
        assert got.metrics == {"x": 1} and got.batch_metrics == [{"x": 1}], group
    # A user metric named avg_metrics is a value inside the nesting, never the nesting itself.
    report = dict(report, metrics={"validation_metrics": {"avg_metrics": 1.0}}, group="validation")
    assert metrics.TrialMetrics._from_json(report, "validation").metrics == {"avg_metrics": 1.0}


def test_enums_hold_wire_names():
    assert client.ExperimentState("STATE_COMPLETED") is client.ExperimentState.COMPLETED
    assert client.CheckpointState.DELETED.value == "STATE_DELETED"
    assert client.CheckpointSortBy.SEARCHER_METRIC.value == "SORT_BY_SEARCHER_METRIC"
    assert client.OrderBy.ASC is client.OrderBy.ASCENDING and client.OrderBy.DESC.value == "ORDER_BY_DESC"
    assert client.TrialSortBy.ID.value == "SORT_BY_ID"
    assert client.ExperimentReference is client.Experiment and client.TrialReference is client.Trial


def test_context_packs_as_the_cli(tmp_path):
    root = tmp_path / "ctx"
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "train.py").write_text("print(1)\n")
    (root / "pkg" / "mod.py").write_text("X = 1\n")
    (root / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (root / "data.bin").write_bytes(b"\x00\x01")
    (root / "big").mkdir()
    (root / "big" / "blob").write_text("skip me")
    (root / "notes.log").write_text("x")
    (root / ".detignore").write_text("# comment\nbig/\n*.log\n")
    inc = tmp_path / "extra"
    inc.mkdir()
    (inc / "helper.py").write_text("H = 2\n")
    single = tmp_path / "single.txt"
    single.write_text("one")

    files = context.read_v1_context(root, [inc, single])
    by_path = {f["path"]: f for f in files}
    assert sorted(by_path) == ["data.bin", "extra", "extra/helper.py", "pkg", "pkg/mod.py",
                               "single.txt", "train.py"]
    assert by_path["pkg"]["type"] == 53 and by_path["pkg"]["content"] == ""
    assert by_path["train.py"]["type"] == 48
    assert base64.b64decode(by_path["data.bin"]["content"]) == b"\x00\x01"
    assert isinstance(by_path["train.py"]["mtime"], str) and int(by_path["train.py"]["mtime"]) > 0
    assert by_path["train.py"]["mode"] & 0o100000 and by_path["train.py"]["uid"] == 0

    with pytest.raises(ValueError, match="doesn't exist"):
        context.read_v1_context(tmp_path / "missing")
    with pytest.raises(ValueError, match="must be a directory"):
        context.read_v1_context(single)
    with pytest.raises(ValueError, match="duplicate path"):
        context.read_v1_context(root, [root / "train.py"])
    with pytest.raises(ValueError, match="maximum allowed size"):
        context.read_v1_context(root, limit=3)


@pytest.mark.parametrize("pattern,path,ignored", [
    ("*.log", "a/b/c.log", True),
    ("/top.txt", "top.txt", True),
    ("/top.txt", "sub/top.txt", False),
    ("build/", "build", False),
    ("build/", "build/", True),
    ("build/", "x/build/y", True),
    ("a/**/z", "a/b/c/z", True),
    ("file[0-9].txt", "file7.txt", True),
    ("file[!0-9].txt", "file7.txt", False),
    ("?.py", "ab.py", False),
])
def test_detignore_wildmatch(pattern, path, ignored):
    assert context.DetIgnore([pattern]).matches(path) is ignored


def test_detignore_negation_last_match_wins():
    rules = context.DetIgnore(["*.txt", "!keep.txt"])
    assert rules.matches("drop.txt") and not rules.matches("keep.txt")


def test_read_paginated_follows_end_index():
    pages = {0: (0, 2), 2: (2, 4), 4: (4, 5)}
    seen = []

    def get(offset):
        seen.append(offset)
        start, end = pages[offset]
        return {"items": list(range(start, end)),
                "pagination": {"startIndex": start, "endIndex": end, "total": 5}}

    assert [x for r in api.read_paginated(get) for x in r["items"]] == [0, 1, 2, 3, 4]
    assert seen == [0, 2, 4]
    assert len(list(api.read_paginated(get, pages="single"))) == 1


# --- against a fake master ---

Handler = Callable[[str, Dict[str, List[str]], Any], Tuple[int, Any]]


class FakeMaster:
    """Answers requests from `routes[(method, path)]`; records (method, path, query, body, auth)."""

    def __init__(self) -> None:
        self.routes: Dict[Tuple[str, str], Handler] = {}
        self.calls: List[Tuple[str, str, Dict[str, List[str]], Any, str]] = []
        fake = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                url = urllib.parse.urlparse(self.path)
                query = urllib.parse.parse_qs(url.query)
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                fake.calls.append((self.command, url.path, query, body,
                                   self.headers.get("Authorization", "")))
                route = fake.routes.get((self.command, url.path))
                if route is None:
                    status, reply = 404, {"error": {"code": 5, "reason": "NotFound",
                                                    "error": f"api not found: {self.command} {url.path}"}}
                else:
                    status, reply = route(self.headers.get("Authorization", ""), query, body)
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


USERS = {"determined": "", "alice": api.salt_and_hash("pw")}


@pytest.fixture
def master(monkeypatch, tmp_path):
    monkeypatch.setenv("DET_AUTH_FILE", str(tmp_path / "auth.json"))
    fake = FakeMaster()

    def login(auth, query, body):
        if not body.get("isHashed") or USERS.get(body["username"]) != body["password"]:
            return 401, {"error": {"code": 16, "reason": "Unauthenticated", "error": "invalid credentials"}}
        return 200, {"token": "tok-" + body["username"], "user": {"id": 1, "username": body["username"]}}

    def me(auth, query, body):
        if not auth.startswith("Bearer tok-"):
            return 401, {"error": {"code": 16, "reason": "Unauthenticated", "error": "invalid credentials"}}
        return 200, {"user": {"id": 1, "username": auth[len("Bearer tok-"):], "admin": False,
                              "active": True, "agentUserGroup": None, "displayName": "", "remote": False}}

    fake.routes[("POST", "/api/v1/auth/login")] = login
    fake.routes[("GET", "/api/v1/me")] = me
    fake.routes[("POST", "/api/v1/auth/logout")] = lambda a, q, b: (200, {})
    yield fake
    fake.close()
    client._determined = None


def test_login_hashes_the_password_and_caches_the_token(master, tmp_path):
    d = client.Determined(master=master.url, user="alice", password="pw")
    assert d.whoami().username == "alice"
    _, path, _, body, _ = master.calls[0]
    assert path == "/api/v1/auth/login"
    assert body == {"username": "alice", "password": api.salt_and_hash("pw"), "isHashed": True}
    cache = json.loads((tmp_path / "auth.json").read_text())
    assert cache == {master.url: {"username": "alice", "token": "tok-alice"}}
    assert oct((tmp_path / "auth.json").stat().st_mode & 0o777) == "0o600"

    # No password: the cached token is reused (checked with /api/v1/me), no new login.
    master.calls.clear()
    again = client.Determined(master=master.url)
    assert again.get_session_username() == "alice"
    assert [c[1] for c in master.calls] == ["/api/v1/me"]

    again.logout()
    assert json.loads((tmp_path / "auth.json").read_text()) == {}
    with pytest.raises(errors.UnauthenticatedException):
        client.Determined(master=master.url, user="alice", password="wrong")


def test_default_user_blank_password_and_env(master, monkeypatch):
    assert client.Determined(master=master.url).get_session_username() == "determined"
    monkeypatch.setenv("DET_MASTER", master.url)
    monkeypatch.setenv("DET_USER", "alice")
    monkeypatch.setenv("DET_PASS", "pw")
    client._determined = None
    assert client.whoami().username == "alice"
    # Inside a task: DET_USER_TOKEN is used as it is.
    monkeypatch.setenv("DET_USER_TOKEN", "tok-alice")
    monkeypatch.delenv("DET_PASS")
    master.calls.clear()
    client.login()
    assert client.get_session_username() == "alice"
    assert master.calls == []


def test_errors_map_statuses_and_messages(master):
    d = client.Determined(master=master.url)
    master.routes[("POST", "/api/v1/experiments/5/activate")] = lambda a, q, b: (
        400, {"error": {"code": 9, "reason": "FailedPrecondition",
                        "error": "experiment in incompatible state STATE_COMPLETED"}})
    master.routes[("GET", "/api/v1/experiments/5")] = lambda a, q, b: (
        200, {"experiment": {"id": 5, "state": "STATE_COMPLETED", "labels": ["x"], "name": "e",
                             "projectId": 1, "forkedFrom": None, "progress": 1.0},
              "config": {"searcher": {"metric": "loss"}}})
    master.routes[("GET", "/api/v1/experiments/6")] = lambda a, q, b: (403, {"error": {
        "code": 7, "reason": "PermissionDenied", "error": "not yours"}})
    exp = d.get_experiment(5)
    assert exp.state is client.ExperimentState.COMPLETED and exp.labels == {"x"}
    assert exp.config == {"searcher": {"metric": "loss"}}
    assert exp.wait(interval=0) is client.ExperimentState.COMPLETED
    with pytest.raises(errors.BadRequestException) as e:
        exp.activate()
    assert e.value.status_code == 400 and "STATE_COMPLETED" in e.value.message
    assert e.value.reason == "FailedPrecondition"
    with pytest.raises(errors.ForbiddenException):
        d.get_experiment(6)
    with pytest.raises(errors.NotFoundException, match="api not found"):
        d.get_trial(1)


def test_create_experiment_request(master, tmp_path):
    d = client.Determined(master=master.url)
    master.routes[("POST", "/api/v1/experiments")] = lambda a, q, b: (
        200, {"experiment": {"id": 9, "state": "STATE_ACTIVE", "name": "n"}, "config": {"name": "n"},
              "warnings": []})
    model = tmp_path / "model"
    model.mkdir()
    (model / "train.py").write_text("x")
    (model / "c.yaml").write_text("name: n  # as written\n")
    exp = d.create_experiment(str(model / "c.yaml"), model, project_id=3, template="t")
    assert exp.id == 9 and exp.config == {"name": "n"}
    body = master.calls[-1][3]
    assert body["config"] == "name: n  # as written\n"  # the file's text as the user wrote it
    assert body["activate"] is True and body["projectId"] == 3 and body["template"] == "t"
    assert {f["path"] for f in body["modelDefinition"]} == {"train.py", "c.yaml"}
    d.create_experiment({"name": "n", "searcher": {"name": "single"}}, None)
    body = master.calls[-1][3]
    assert "modelDefinition" not in body
    assert "name: n" in body["config"] and "searcher:" in body["config"]


def test_checkpoint_lists_and_queries(master):
    d = client.Determined(master=master.url)
    ckpts = [{"uuid": f"u{i}", "state": "STATE_COMPLETED", "resources": {"f": "3"},
              "metadata": {"steps_completed": i},
              "training": {"trialId": 10 + i % 2, "experimentId": 1, "experimentConfig": None,
                           "validationMetrics": {"avgMetrics": {"loss": float(5 - i)}}}}
             for i in range(4)]
    master.routes[("GET", "/api/v1/experiments/1")] = lambda a, q, b: (
        200, {"experiment": {"id": 1, "state": "STATE_COMPLETED"},
              "config": {"searcher": {"metric": "loss", "smaller_is_better": True}}})
    master.routes[("GET", "/api/v1/experiments/1/checkpoints")] = lambda a, q, b: (
        200, {"checkpoints": ckpts, "pagination": {"startIndex": 0, "endIndex": 4, "total": 4}})
    exp = d.get_experiment(1)
    got = exp.list_checkpoints()
    assert [c.uuid for c in got] == ["u0", "u1", "u2", "u3"] and got[0].resources == {"f": 3}
    assert master.calls[-1][2] == {"sortByAttr": ["SORT_BY_SEARCHER_METRIC"], "offset": ["0"]}
    exp.list_checkpoints(sort_by="loss", order_by=client.OrderBy.DESC, max_results=2)
    assert master.calls[-1][2] == {"sortByMetric": ["loss"], "orderBy": ["ORDER_BY_DESC"],
                                   "offset": ["0"], "limit": ["2"]}
    with pytest.warns(FutureWarning):
        top = exp.top_n_checkpoints(2)
    # Best first (smallest loss), one per trial.
    assert [c.uuid for c in top] == ["u3", "u2"]
    assert master.calls[-1][2]["states"] == ["STATE_COMPLETED"]


def test_checkpoint_download_from_shared_fs(master, tmp_path):
    d = client.Determined(master=master.url)
    store = tmp_path / "store" / "sub" / "abc"
    store.mkdir(parents=True)
    (store / "weights").write_text("w")
    config = {"checkpoint_storage": {"type": "shared_fs", "host_path": str(tmp_path / "store"),
                                     "storage_path": "sub"}}
    master.routes[("GET", "/api/v1/checkpoints/abc")] = lambda a, q, b: (
        200, {"checkpoint": {"uuid": "abc", "state": "STATE_COMPLETED", "resources": {"weights": "1"},
                             "metadata": {"steps_completed": 1, "k": "v"},
                             "training": {"trialId": 2, "experimentId": 1, "experimentConfig": None}}})
    master.routes[("GET", "/api/v1/experiments/1")] = lambda a, q, b: (
        200, {"experiment": {"id": 1, "state": "STATE_COMPLETED"}, "config": config})
    ckpt = d.get_checkpoint("abc")
    out = ckpt.download(str(tmp_path / "out"))
    assert (tmp_path / "out" / "weights").read_text() == "w"
    assert json.loads((tmp_path / "out" / "metadata.json").read_text()) == {"steps_completed": 1, "k": "v"}
    assert out == str(tmp_path / "out")
    # A directory already holding it is left as it is.
    (store / "weights").write_text("changed")
    ckpt.download(str(tmp_path / "out"))
    assert (tmp_path / "out" / "weights").read_text() == "w"
    # Files the checkpoint reported but storage lacks are named.
    (store / "weights").unlink()
    with pytest.raises(FileNotFoundError, match="weights"):
        ckpt.download(str(tmp_path / "again"))


def test_checkpoint_metadata_and_delete_requests(master):
    d = client.Determined(master=master.url)
    master.routes[("GET", "/api/v1/checkpoints/abc")] = lambda a, q, b: (
        200, {"checkpoint": {"uuid": "abc", "state": "STATE_COMPLETED", "metadata": {"steps_completed": 1}}})
    master.routes[("POST", "/api/v1/checkpoints/abc/metadata")] = lambda a, q, b: (200, {"checkpoint": b["checkpoint"]})
    master.routes[("DELETE", "/api/v1/checkpoints")] = lambda a, q, b: (200, {})
    master.routes[("POST", "/api/v1/checkpoints/rm")] = lambda a, q, b: (200, {})
    ckpt = d.get_checkpoint("abc")
    ckpt.add_metadata({"a": 1})
    assert master.calls[-1][3] == {"checkpoint": {"uuid": "abc", "metadata": {"steps_completed": 1, "a": 1}}}
    assert ckpt.metadata == {"steps_completed": 1, "a": 1}
    ckpt.remove_metadata(["a"])
    assert ckpt.metadata == {"steps_completed": 1}
    ckpt.delete()
    assert master.calls[-1][:2] == ("DELETE", "/api/v1/checkpoints")
    assert master.calls[-1][3] == {"checkpointUuids": ["abc"]}
    ckpt.remove_files(["optimizer/**"])
    assert master.calls[-1][:2] == ("POST", "/api/v1/checkpoints/rm")
    assert master.calls[-1][3] == {"checkpointUuids": ["abc"], "checkpointGlobs": ["optimizer/**"]}


def test_trial_logs_and_metrics_streams(master):
    d = client.Determined(master=master.url)
    lines = [{"id": str(i), "message": f"line {i}\n", "level": "LOG_LEVEL_INFO"} for i in range(1, 6)]

    def logs(auth, query, body):
        got = list(lines)
        if query.get("orderBy") == ["ORDER_BY_DESC"]:
            got.reverse()
        if "limit" in query:
            got = got[: int(query["limit"][0])]
        return 200, "".join(json.dumps({"result": x}) + "\n" for x in got).encode()

    master.routes[("GET", "/api/v1/trials/4")] = lambda a, q, b: (
        200, {"trial": {"id": 4, "experimentId": 1, "state": "STATE_RUNNING", "hparams": {"a": 1}}})
    master.routes[("GET", "/api/v1/trials/4/logs")] = logs
    master.routes[("GET", "/api/v1/trials/metrics/trial_metrics")] = lambda a, q, b: (
        200, (json.dumps({"result": {"metrics": [
            {"trialId": 4, "trialRunId": 1, "totalBatches": 1, "metrics": {"avg_metrics": {"loss": 1.0}},
             "group": "training"}]}})
            + "\n" + json.dumps({"error": {"httpCode": 500, "message": "boom"}}) + "\n").encode())
    trial = d.get_trial(4)
    assert trial.state is client.TrialState.RUNNING and trial.hparams == {"a": 1}
    assert list(trial.logs()) == [f"line {i}\n" for i in range(1, 6)]
    assert list(trial.logs(head=2)) == ["line 1\n", "line 2\n"]
    assert list(trial.logs(tail=2)) == ["line 4\n", "line 5\n"]
    assert list(trial.logs(tail=2, follow=True)) == ["line 4\n", "line 5\n"]
    list(trial.logs(min_level=client.LogLevel.WARNING, stdtypes=["stderr"]))
    assert master.calls[-1][2]["levels"] == ["LOG_LEVEL_WARNING", "LOG_LEVEL_ERROR", "LOG_LEVEL_CRITICAL"]
    it = trial.iter_metrics("training")
    assert next(it).metrics == {"loss": 1.0}
    assert master.calls[-1][2] == {"trialIds": ["4"], "group": ["training"]}
    with pytest.raises(errors.APIException, match="boom"):
        next(it)


def _project_json(pid, name, workspace_id=2, **extra):
    p = {"id": pid, "name": name, "description": "", "key": name[:4].upper(), "archived": False,
         "notes": [{"name": "n", "contents": "c"}], "numExperiments": 1, "numActiveExperiments": 0,
         "workspaceId": workspace_id, "username": "determined"}
    p.update(extra)
    return p


def test_workspaces_and_projects_have_upstreams_shape(master):
    d = client.Determined(master=master.url)
    workspaces = [{"id": 1, "name": "Uncategorized"}, {"id": 2, "name": "vision"}, {"id": 3, "name": "vision-2"}]
    # The master's name filter matches more than the exact name; the SDK picks the exact one.
    master.routes[("GET", "/api/v1/workspaces")] = lambda a, q, b: (200, {
        "workspaces": [w for w in workspaces if q.get("name", [""])[0].lower() in w["name"].lower()],
        "pagination": {"startIndex": 0, "endIndex": 3, "total": 3}})
    projects = [_project_json(7, "seg"), _project_json(8, "seg-old")]
    master.routes[("GET", "/api/v1/workspaces/2/projects")] = lambda a, q, b: (200, {
        "projects": [p for p in projects if q.get("name", [""])[0] in p["name"]],
        "pagination": {"startIndex": 0, "endIndex": 2, "total": 2}})
    master.routes[("GET", "/api/v1/projects/7")] = lambda a, q, b: (200, {"project": projects[0]})
    master.routes[("PATCH", "/api/v1/projects/7")] = lambda a, q, b: (200, {"project": dict(projects[0], **b)})
    master.routes[("POST", "/api/v1/projects/7/archive")] = lambda a, q, b: (200, {})
    master.routes[("POST", "/api/v1/workspaces/2/projects")] = lambda a, q, b: (
        200, {"project": _project_json(9, b["name"], description=b["description"])})
    master.routes[("GET", "/api/v1/experiments")] = lambda a, q, b: (200, {
        "experiments": [{"id": 4, "name": "e", "state": "STATE_COMPLETED", "projectId": int(q["projectId"][0])}],
        "pagination": {"startIndex": 0, "endIndex": 1, "total": 1}})

    ws = d.get_workspace("vision")
    assert isinstance(ws, client.Workspace) and (ws.id, ws.name) == (2, "vision")
    assert [(w.id, w.name) for w in d.list_workspaces()] == [(1, "Uncategorized"), (2, "vision"), (3, "vision-2")]
    with pytest.raises(errors.NotFoundException):
        d.get_workspace("audio")

    seg = ws.get_project("seg")
    assert isinstance(seg, client.Project)
    assert (seg.id, seg.name, seg.key, seg.workspace_id, seg.n_experiments, seg.n_active_experiments,
            seg.archived, seg.notes, seg.username) == (7, "seg", "SEG", 2, 1, 0, False,
                                                      [{"name": "n", "contents": "c"}], "determined")
    with pytest.raises(errors.NotFoundException):
        ws.get_project("se")  # a name the master's filter matches, but no project's
    assert [p.name for p in ws.list_projects()] == ["seg", "seg-old"]
    assert d.get_project(7).name == "seg"
    assert [e.id for e in seg.list_experiments()] == [4]
    seg.set_description("cells")
    assert seg.description == "cells" and master.calls[-1][3] == {"description": "cells"}
    seg.archive()
    assert seg.archived is True and master.calls[-1][:2] == ("POST", "/api/v1/projects/7/archive")
    made = ws.create_project("new", description="fresh")
    assert (made.id, made.name, made.description) == (9, "new", "fresh")
    assert master.calls[-1][3] == {"name": "new", "workspaceId": 2, "description": "fresh"}


def test_module_level_workspace_functions_use_the_default_client(master, monkeypatch):
    monkeypatch.setenv("DET_MASTER", master.url)
    monkeypatch.setattr(client, "_determined", None)
    master.routes[("GET", "/api/v1/workspaces")] = lambda a, q, b: (200, {
        "workspaces": [{"id": 1, "name": "Uncategorized"}], "pagination": {"startIndex": 0, "endIndex": 1, "total": 1}})
    master.routes[("GET", "/api/v1/projects/1")] = lambda a, q, b: (200, {"project": _project_json(1, "Uncategorized", 1)})
    assert client.get_workspace("Uncategorized").id == 1
    assert [w.name for w in client.list_workspaces()] == ["Uncategorized"]
    assert client.get_project(1).workspace_id == 1
