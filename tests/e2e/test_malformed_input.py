"""Every endpoint answers malformed, wrongly typed, oversized or out-of-range input with a 4xx whose
JSON error names the problem: never a 5xx, never a hang, and the master keeps serving.

The endpoints are those of src/master/handlers/*.cc (`router.Add`)."""
import socket
import urllib.parse

import pytest

TIMEOUT = 30  # seconds per request: a hang fails the test instead of blocking it

# Every POST/PUT/PATCH route with a JSON body, path parameters filled with a plausible value. (Logout
# takes no body and ignores one; sending it here would end the test's session.)
BODY_ROUTES = [
    ("POST", "/api/v1/auth/login"),
    ("POST", "/api/v1/experiments"),
    ("POST", "/api/v1/preview-hp-search"),
    ("POST", "/api/v1/task/logs"),
    ("POST", "/api/v1/checkpoints"),
    ("POST", "/api/v1/trials/1/metrics"),
    ("POST", "/api/v1/trials/1/progress"),
    ("POST", "/api/v1/trials/1/early_exit"),
    ("POST", "/api/v1/trials/1/runner/metadata"),
    ("POST", "/api/v1/allocations/none.0/signals/ack_preemption"),
    ("POST", "/api/v1/templates/fuzz-tpl"),
    ("PUT", "/api/v1/templates/fuzz-tpl"),
    ("PATCH", "/api/v1/templates/fuzz-tpl"),
    ("PATCH", "/api/v1/template/rename"),
]

# Routes with a numeric path id, for bad ids.
ID_ROUTES = [
    ("GET", "/api/v1/experiments/{}"),
    ("GET", "/api/v1/experiments/{}/checkpoints"),
    ("GET", "/api/v1/experiments/{}/model_def"),
    ("GET", "/api/v1/experiments/{}/searcher/best_searcher_validation_metric"),
    ("GET", "/api/v1/experiments/{}/trials"),
    ("POST", "/api/v1/experiments/{}/activate"),
    ("POST", "/api/v1/experiments/{}/pause"),
    ("POST", "/api/v1/experiments/{}/cancel"),
    ("POST", "/api/v1/experiments/{}/kill"),
    ("POST", "/api/v1/experiments/{}/archive"),
    ("GET", "/api/v1/trials/{}"),
    ("GET", "/api/v1/trials/{}/logs"),
    ("POST", "/api/v1/trials/{}/kill"),
    ("POST", "/api/v1/trials/{}/metrics"),
    ("POST", "/api/v1/trials/{}/progress"),
    ("POST", "/api/v1/trials/{}/early_exit"),
    ("POST", "/api/v1/trials/{}/runner/metadata"),
]

BAD_IDS = ["abc", "-1", "0", "1.5", "99999999999999999999", "%00", "1e3"]


def request(cluster, method, path, **kwargs):
    return cluster.session.request(method, cluster.master_url + path, timeout=TIMEOUT, **kwargs)


def assert_4xx(resp, *needles):
    """A 4xx with the gateway's JSON error body; when needles are given, one of them (case-insensitive)
    is in the message."""
    where = f"{resp.request.method} {resp.request.url}"
    assert 400 <= resp.status_code < 500, (where, resp.status_code, resp.text[:500])
    error = resp.json()["error"]
    assert error["code"] and error["reason"] and error["error"], (where, error)
    if needles:
        message = error["error"].lower()
        assert any(n.lower() in message for n in needles), (where, error["error"])


def assert_alive(cluster):
    assert request(cluster, "GET", "/api/v1/master").status_code == 200


def test_malformed_json_bodies(cluster):
    for method, path in BODY_ROUTES:
        for body in [b"{not json", b'{"a": 1', b"\xff\xfe\x00", b'{"a": "\\ud800"}', b"[" * 10000]:
            resp = request(cluster, method, path, data=body, headers={"Content-Type": "application/json"})
            assert_4xx(resp)
        # Valid JSON that is not an object.
        for body in [b"[1, 2]", b'"text"', b"42", b"null"]:
            resp = request(cluster, method, path, data=body)
            assert_4xx(resp)
    assert_alive(cluster)


def test_wrong_types(cluster):
    cases = [
        ("POST", "/api/v1/auth/login", {"username": 5, "password": []}),
        ("POST", "/api/v1/experiments", {"config": 5}, "config"),
        ("POST", "/api/v1/experiments", {"config": {"entrypoint": "x"}}, "config"),
        ("POST", "/api/v1/experiments", {"config": "entrypoint: x\n", "template": 3}, "template"),
        ("POST", "/api/v1/experiments", {"config": "entrypoint: x\nsearcher: {name: single, metric: l}\n",
                                         "modelDefinition": {"path": "x"}}),
        ("POST", "/api/v1/experiments", {"config": "entrypoint: x\nsearcher: {name: single, metric: l}\n"
                                                   "max_restarts: many\n"}, "max_restarts"),
        ("POST", "/api/v1/experiments", {"config": "entrypoint: x\nsearcher: {name: single, metric: l}\n"
                                                   "resources: {slots_per_trial: [1]}\n"}, "slots_per_trial"),
        ("POST", "/api/v1/experiments", {"config": "entrypoint: x\nsearcher: {name: single, metric: l}\n"
                                                   "labels: {a: b}\n"}, "labels"),
        ("POST", "/api/v1/preview-hp-search", {"config": 5}, "config"),
        ("POST", "/api/v1/preview-hp-search", {"config": [1, 2]}, "config"),
        ("POST", "/api/v1/preview-hp-search", {"config": {"searcher": "random"}}),
        ("POST", "/api/v1/task/logs", {"logs": {"taskId": "t"}}, "logs"),
        ("POST", "/api/v1/task/logs", {"logs": "x"}, "logs"),
        ("POST", "/api/v1/task/logs", {"logs": [{"taskId": "t", "rankId": "zero"}]}, "rank"),
        ("POST", "/api/v1/task/logs", {"logs": [5]}, "logs"),
        ("POST", "/api/v1/checkpoints", {"uuid": 5, "taskId": []}, "uuid"),
        ("POST", "/api/v1/trials/1/metrics", {"metrics": []}, "metrics"),
        ("POST", "/api/v1/trials/1/metrics", {"metrics": {"metrics": {"avgMetrics": [1]}}}, "avgMetrics"),
        ("POST", "/api/v1/trials/1/progress", {"progress": "half"}),
        ("POST", "/api/v1/trials/1/early_exit", {"reason": 3}),
        ("POST", "/api/v1/templates/fuzz-tpl", {"name": "fuzz-tpl", "config": "not a map"}, "config"),
        ("PUT", "/api/v1/templates/fuzz-tpl", {"name": "fuzz-tpl", "config": [1]}, "config"),
        ("PATCH", "/api/v1/template/rename", {"oldName": 1, "newName": {}}),
    ]
    for method, path, body, *needles in cases:
        assert_4xx(request(cluster, method, path, json=body), *needles)
    assert_alive(cluster)


def test_unknown_enum_names(cluster):
    cases = [
        ("POST", "/api/v1/trials/1/early_exit", {"earlyExit": {"reason": "REASON_BOGUS"}}),
        ("POST", "/api/v1/experiments",
         {"config": "entrypoint: x\nsearcher: {name: bogus, metric: l}\n"}, "bogus"),
        ("POST", "/api/v1/experiments",
         {"config": "entrypoint: x\nsearcher: {name: single, metric: l}\ncheckpoint_policy: sometimes\n"},
         "checkpoint_policy"),
        ("POST", "/api/v1/preview-hp-search",
         {"config": {"entrypoint": "x", "searcher": {"name": "adaptive_asha", "metric": "l", "max_trials": 2,
                                                     "mode": "reckless", "time_metric": "b", "max_time": 4}}},
         "mode"),
    ]
    for method, path, body, *needles in cases:
        assert_4xx(request(cluster, method, path, json=body), *needles)
    for query in ["states=STATE_BOGUS", "sortBy=SORT_BY_BOGUS", "orderBy=ORDER_BY_SIDEWAYS"]:
        resp = request(cluster, "GET", "/api/v1/experiments?" + query)
        assert resp.status_code < 500, (query, resp.status_code, resp.text)
    assert_alive(cluster)


def test_bad_ids(cluster):
    for method, template in ID_ROUTES:
        for bad in BAD_IDS:
            path = template.format(urllib.parse.quote(bad, safe="%"))
            body = {} if method == "POST" else None
            resp = request(cluster, method, path, json=body)
            assert_4xx(resp)
        # Well-formed but absent: 404, never 5xx.
        resp = request(cluster, method, template.format(9223372036854775807), json={} if method == "POST" else None)
        assert_4xx(resp)
    for path in ["/api/v1/checkpoints/not-a-uuid", "/api/v1/templates/no-such-template",
                 "/api/v1/tasks/no-such-task/logs", "/api/v1/tasks/no-such-task/context_directory",
                 "/api/v1/allocations/no-such.0/signals/preemption"]:
        assert_4xx(request(cluster, "GET", path))
    assert_4xx(request(cluster, "DELETE", "/api/v1/templates/no-such-template"))
    assert_alive(cluster)


def test_bad_query_parameters(cluster):
    for path in ["/api/v1/experiments?limit=abc", "/api/v1/experiments?offset=1e999",
                 "/api/v1/experiments/1/trials?limit=x", "/api/v1/trials/1/logs?limit=ten",
                 "/api/v1/trials/metrics/training_metrics?trialIds=abc",
                 "/api/v1/trials/metrics/validation_metrics?trialIds=-1",
                 "/api/v1/trials/metrics/trial_metrics?trialIds=99999999999999999999"]:
        resp = request(cluster, "GET", path)
        assert_4xx(resp)
    assert_alive(cluster)


def test_oversized_values(cluster):
    huge = "x" * (8 << 20)
    # An 8 MiB config, label or log line is refused or stored; either way no 5xx and no hang.
    for method, path, body in [
        ("POST", "/api/v1/preview-hp-search", {"config": huge}),
        ("POST", "/api/v1/experiments", {"config": "entrypoint: x\nsearcher: {name: single, metric: l}\n"
                                                   "labels: [" + huge + "]\n"}),
        ("POST", "/api/v1/auth/login", {"username": huge, "password": huge}),
    ]:
        resp = request(cluster, method, path, json=body)
        assert resp.status_code < 500, (path, resp.status_code, resp.text[:300])
    # YAML alias bombs are refused by size, not expanded.
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    prev = "a"
    for i in range(1, 9):
        bomb += f"b{i}: &b{i} [" + ", ".join(["*" + prev] * 10) + "]\n"
        prev = f"b{i}"
    assert_4xx(request(cluster, "POST", "/api/v1/preview-hp-search", json={"config": bomb}), "too large")
    # Huge and negative numbers.
    for body in [{"config": {"entrypoint": "x", "searcher": {"name": "random", "metric": "l",
                                                              "max_trials": 10 ** 30}}},
                 {"config": {"entrypoint": "x", "searcher": {"name": "random", "metric": "l",
                                                              "max_trials": -5}}},
                 {"config": {"entrypoint": "x", "searcher": {"name": "random", "metric": "l",
                                                              "max_trials": 1e300}}}]:
        assert_4xx(request(cluster, "POST", "/api/v1/preview-hp-search", json=body), "max_trials")
    assert_alive(cluster)


def test_body_over_the_limit_is_refused_before_it_is_read(cluster):
    """A declared Content-Length over the master's body limit is answered at once with a 4xx."""
    url = urllib.parse.urlparse(cluster.master_url)
    token = cluster.session.headers["Authorization"]
    with socket.create_connection((url.hostname, url.port), timeout=TIMEOUT) as sock:
        sock.sendall((f"POST /api/v1/experiments HTTP/1.1\r\nHost: {url.netloc}\r\n"
                      f"Authorization: {token}\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {1 << 40}\r\n\r\n{{").encode())
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            pass
    status_line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    assert status_line.startswith("HTTP/1.1 4"), status_line
    assert_alive(cluster)


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "application/json"])
def test_form_and_text_bodies(cluster, ctype):
    resp = request(cluster, "POST", "/api/v1/experiments", data=b"config=entrypoint", headers={"Content-Type": ctype})
    assert_4xx(resp)
