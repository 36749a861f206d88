"""Bad input gets a 4xx whose message names the problem, nothing is stored, and the master survives."""
import base64

import requests


def experiment_count(cluster):
    return cluster.get("/api/v1/experiments")["pagination"]["total"]


def post_experiment(cluster, config, files=None, headers=None):
    body = {"config": config, "modelDefinition": files or [], "activate": True}
    session = cluster.session if headers is None else requests.Session()
    return session.post(f"{cluster.master_url}/api/v1/experiments", json=body, headers=headers, timeout=120)


def assert_error(resp, status, *needles):
    assert resp.status_code == status, (resp.status_code, resp.text)
    error = resp.json()["error"]
    assert error["code"] and error["reason"]
    for needle in needles:
        assert needle in error["error"], error["error"]


def test_bad_experiments_are_refused_and_nothing_is_stored(cluster):
    before = experiment_count(cluster)
    good = "entrypoint: python3 train.py\nsearcher: {name: single, metric: accuracy}\n"

    assert_error(post_experiment(cluster, "entrypoint: [unclosed\n"), 400, "YAML syntax error at line")
    assert_error(post_experiment(cluster, good + "not_a_key: 3\n"), 400, "not_a_key: unknown key")
    assert_error(post_experiment(cluster, "searcher: {name: single, metric: accuracy}\n"), 400,
                 "entrypoint: required")
    assert_error(post_experiment(cluster, good + "resources: {slots: 2}\n"), 400,
                 "resources.slots_per_trial")
    assert_error(post_experiment(cluster, good.replace("single", "custom")), 400,
                 "the 'custom' searcher has been removed")
    assert_error(post_experiment(cluster, good.replace("python3 train.py", "[]")), 400,
                 "entrypoint: must be a string or a non-empty list of strings")
    body = {"config": good, "modelDefinition": [], "projectId": 2}
    assert_error(cluster.session.post(f"{cluster.master_url}/api/v1/experiments", json=body, timeout=30), 404,
                 "project 2 not found")

    big = base64.b64encode(b"\0" * (96 << 20)).decode()
    assert_error(post_experiment(cluster, good, files=[{"path": "big.bin", "type": 48, "content": big,
                                                        "mtime": "0", "mode": 420}]),
                 400, "model definition is too large", "95 MiB")

    assert_error(post_experiment(cluster, good, headers={"Authorization": "Bearer not-a-token"}), 401,
                 "invalid credentials")
    assert_error(post_experiment(cluster, good, headers={}), 401, "token missing")

    assert experiment_count(cluster) == before


def test_master_survives_garbage(cluster):
    url = cluster.master_url
    s = cluster.session
    for path, body in [("/api/v1/experiments", b"{not json"), ("/api/v1/experiments", b"[1,2]"),
                       ("/api/v1/auth/login", b"\xff\xfe"), ("/api/v1/task/logs", b'{"logs": []}'),
                       ("/api/v1/task/logs", b'{"logs": [{"log": "x"}]}'),
                       ("/api/v1/trials/abc/metrics", b"{}"), ("/api/v1/trials/999999/metrics", b"{}"),
                       ("/api/v1/checkpoints", b'{"uuid": "x"}')]:
        resp = s.post(url + path, data=body, timeout=30)
        assert 400 <= resp.status_code < 500, (path, resp.status_code, resp.text)
        assert "error" in resp.json()
    assert s.get(url + "/api/v1/experiments/abc", timeout=30).status_code == 400
    assert s.get(url + "/api/v1/experiments/424242", timeout=30).status_code == 404
    assert s.get(url + "/api/v1/nope", timeout=30).status_code == 404
    assert requests.get(url + "/api/v1/master", timeout=30).json()["version"]
