"""The master's Prometheus endpoints (observability.enable_prometheus, docs/prometheus.md) end to end:
Prometheus' own `promtool check metrics` accepts what each endpoint serves, and a real Prometheus 2.42 on
loopback, its agent targets found through http_sd_configs pointed at the master, scrapes a running
cluster: queries through its HTTP API find the det_* join series of a running trial, and the agent
targets carry det_agent_id and det_resource_pool. With enable_prometheus: false the endpoints are absent.

Needs Debian's `prometheus` package (prometheus and promtool); without it the suite skips itself."""
import contextlib
import shutil
import socket
import subprocess
import time
import urllib.parse

import pytest
import requests
import yaml

from conftest import local_cluster, wait_for

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(not (PROMETHEUS and PROMTOOL),
                                reason="prometheus is not installed (Debian's prometheus package)")

ENDPOINTS = ["/debug/prom/metrics", "/prom/det-state-metrics", "/prom/det-http-sd-config"]

# A trial that runs long enough to be scraped; the cluster is torn down (and it killed) after the tests.
SLEEPER = "import time\nprint('sleeping', flush=True)\ntime.sleep(600)\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("prom"), agents=2, slots=1) as c:
        yield c


@pytest.fixture(scope="module")
def running_trial(cluster, tmp_path_factory):
    """(experiment id, trial id, allocation id) of a trial whose process runs."""
    model_dir = tmp_path_factory.mktemp("model")
    (model_dir / "sleeper.py").write_text(SLEEPER)
    (model_dir / "sleeper.yaml").write_text(
        "name: sleeper\nentrypoint: python3 sleeper.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 0\n"
        "labels: [prom-e2e]\n")
    exp_id = cluster.create_experiment(model_dir / "sleeper.yaml", model_dir)
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    task_id = cluster.get(f"/api/v1/trials/{trial_id}")["trial"]["taskId"]
    summaries = wait_for(lambda: {k: v for k, v in cluster.get("/api/v1/tasks")["allocationIdToSummary"].items()
                                  if v["taskId"] == task_id}, "the trial's allocation")
    (allocation_id,) = summaries
    wait_for(lambda: "sleeping" in cluster.trial_logs(trial_id), "the trial's process to run", timeout=120)
    return exp_id, trial_id, allocation_id


def scrape(cluster, path):
    resp = cluster.session.get(cluster.master_url + path, timeout=30)
    assert resp.status_code == 200, (path, resp.status_code, resp.text)
    return resp


def promtool_check(text):
    proc = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"promtool check metrics:\n{proc.stdout}\n{proc.stderr}\n---\n{text}"


def test_promtool_accepts_each_exposition(cluster, running_trial):
    exp_id, trial_id, allocation_id = running_trial
    # Requests with ids in their paths: counted under their route's pattern, never with the id.
    cluster.get(f"/api/v1/experiments/{exp_id}")
    cluster.get(f"/api/v1/trials/{trial_id}")
    state = scrape(cluster, "/prom/det-state-metrics")
    assert state.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    promtool_check(state.text)
    assert f'det_container_id_allocation_id{{allocation_id="{allocation_id}",container_id="{allocation_id}"}} 1' \
        in state.text, state.text
    assert f'experiment_id="{exp_id}"' in state.text
    assert 'task_actor="TRIAL"' in state.text
    assert f'det_experiment_id_label{{experiment_id="{exp_id}",label="prom-e2e"}} 1' in state.text
    assert f'container_runtime_id="agent ' in state.text

    # A label added to the live experiment is there at the next scrape.
    added = cluster.session.put(f"{cluster.master_url}/api/v1/experiments/{exp_id}/labels/relabelled", timeout=30)
    assert added.status_code == 200, added.text
    relabelled = wait_for(lambda: 'label="relabelled"' in (t := scrape(cluster, "/prom/det-state-metrics").text) and t,
                          "the new label in det-state-metrics")
    assert f'det_experiment_id_label{{experiment_id="{exp_id}",label="relabelled"}} 1' in relabelled

    metrics = scrape(cluster, "/debug/prom/metrics").text
    promtool_check(metrics)
    for name in ["determined_healthy 1", "process_cpu_seconds_total", "process_resident_memory_bytes",
                 "process_open_fds", "process_start_time_seconds", 'determined_running_allocations{resource_pool="default"} 1',
                 'determined_slots_used{resource_pool="default",slot_type="cpu"} 1',
                 'determined_slots_free{resource_pool="default",slot_type="cpu"} 1',
                 "determined_scheduler_passes_total", "determined_metric_rows_ingested_total",
                 "determined_metric_writer_queue_depth",
                 'echo_requests_total{code="200",method="GET",url="/api/v1/experiments/{experiment_id}"}',
                 'echo_request_duration_seconds_bucket{code="200",method="GET",url="/api/v1/trials/{trial_id}"']:
        assert name in metrics, f"{name} missing:\n{metrics}"
    assert f"/api/v1/trials/{trial_id}\"" not in metrics  # ids never become label values

    targets = scrape(cluster, "/prom/det-http-sd-config").json()
    agents = {a["id"] for a in cluster.get("/api/v1/agents")["agents"]}
    assert {g["labels"]["det_agent_id"] for g in targets} == agents
    for group in targets:
        assert group["labels"]["det_resource_pool"] == "default"
        assert sorted(t.rsplit(":", 1)[1] for t in group["targets"]) == ["8080", "9400"]


def test_endpoints_need_credentials(cluster):
    for path in ENDPOINTS:
        assert requests.get(cluster.master_url + path, timeout=30).status_code == 401, path


@contextlib.contextmanager
def prometheus(tmp_path, cluster):
    """A Prometheus of the test's own on a free loopback port, with its own data directory, scraping
    the master's two expositions every second and the agents' targets found through the master."""
    token_file = tmp_path / "token"
    token_file.write_text(cluster.session.headers["Authorization"].split(" ", 1)[1])
    master = urllib.parse.urlparse(cluster.master_url)
    auth = {"type": "Bearer", "credentials_file": str(token_file)}
    config = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s"},
        "scrape_configs": [
            {"job_name": "det-state", "metrics_path": "/prom/det-state-metrics", "authorization": auth,
             "static_configs": [{"targets": [master.netloc]}]},
            {"job_name": "det-master", "metrics_path": "/debug/prom/metrics", "authorization": auth,
             "static_configs": [{"targets": [master.netloc]}]},
            {"job_name": "det-agents",
             "http_sd_configs": [{"url": f"{cluster.master_url}/prom/det-http-sd-config", "refresh_interval": "1s",
                                  "authorization": auth}]},
        ],
    }
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = open(tmp_path / "prometheus.log", "wb")
    proc = subprocess.Popen([PROMETHEUS, f"--config.file={tmp_path / 'prometheus.yml'}",
                             f"--storage.tsdb.path={tmp_path / 'data'}", f"--web.listen-address=127.0.0.1:{port}"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        def ready():
            assert proc.poll() is None, (tmp_path / "prometheus.log").read_text()
            try:
                return requests.get(f"{url}/-/ready", timeout=5).status_code == 200
            except requests.ConnectionError:
                return False
        wait_for(ready, "Prometheus to be ready", timeout=60)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def query(url, promql):
    resp = requests.get(f"{url}/api/v1/query", params={"query": promql}, timeout=10)
    resp.raise_for_status()
    body = resp.json()
    assert body["status"] == "success", body
    return body["data"]["result"]


def test_prometheus_scrapes_the_live_cluster(cluster, running_trial, tmp_path):
    exp_id, _, allocation_id = running_trial
    with prometheus(tmp_path, cluster) as url:
        # The join series of the running trial, from the master's det-state-metrics.
        series = wait_for(lambda: query(url, f'det_container_id_allocation_id{{allocation_id="{allocation_id}"}}'),
                          "the trial's container series in Prometheus", timeout=60)
        assert series[0]["metric"]["job"] == "det-state"
        assert series[0]["metric"]["container_id"] == allocation_id
        # The joins work in PromQL: allocation -> job -> experiment.
        joined = wait_for(lambda: query(
            url, f'det_allocation_id_task_id_task_actor{{allocation_id="{allocation_id}"}} '
                 '* on(job_id) group_left(experiment_id) det_job_id_experiment_id'),
            "the allocation joined to its experiment", timeout=30)
        assert joined[0]["metric"]["experiment_id"] == str(exp_id)
        assert joined[0]["metric"]["task_actor"] == "TRIAL"
        # The master's own figures, scraped as well.
        assert wait_for(lambda: query(url, 'determined_healthy{job="det-master"} == 1'), "determined_healthy", 30)
        assert wait_for(lambda: query(url, 'determined_running_allocations{resource_pool="default"} >= 1'),
                        "the running allocation count", 30)
        assert wait_for(lambda: query(url, 'process_resident_memory_bytes{job="det-master"} > 0'), "process_*", 30)

        # The agent targets, found through http_sd_configs, with their labels.
        agents = {a["id"] for a in cluster.get("/api/v1/agents")["agents"]}

        def agent_targets():
            resp = requests.get(f"{url}/api/v1/targets", params={"state": "active"}, timeout=10)
            resp.raise_for_status()
            found = [t for t in resp.json()["data"]["activeTargets"] if t["labels"].get("job") == "det-agents"]
            return found if {t["labels"].get("det_agent_id") for t in found} == agents else None

        found = wait_for(agent_targets, "the agents' targets", timeout=60)
        assert len(found) == 2 * len(agents)  # DCGM's and cAdvisor's port on each
        for target in found:
            assert target["labels"]["det_resource_pool"] == "default"
            assert target["discoveredLabels"]["__address__"].rsplit(":", 1)[1] in ("9400", "8080")


def test_disabled_prometheus_has_no_endpoints(tmp_path):
    with local_cluster(tmp_path, agents=1, slots=1,
                       master_config="observability:\n  enable_prometheus: false\n") as c:
        for path in ENDPOINTS:
            assert c.session.get(c.master_url + path, timeout=30).status_code == 404, path
        # The master still serves the rest.
        assert c.get("/api/v1/master")["clusterName"]
