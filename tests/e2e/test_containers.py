"""Tasks that name an image run in containers: a local cluster whose agent talks to a real engine (dockerd, or
podman, through the Docker Engine API on a Unix socket) and two local registries (scripts/local-containers.sh),
all started here. Images come from those registries (nothing public is reachable); the test image is Debian 12
with Python and NumPy, and nothing of ours: the agent mounts this install into the container.

Skipped (ctest "Skipped") where no engine, docker-registry or mmdebstrap is installed."""
import http.client
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse

import pytest

from conftest import (BIN, REPO, local_cluster, log_texts, login, open_notebook, restart_master, ssh_through_tunnel,
                      start_shell, wait_for)

for tool in ("docker-registry", "mmdebstrap"):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (scripts/install-deps.sh installs it)", allow_module_level=True)
if shutil.which("dockerd") is None and shutil.which("podman") is None:
    pytest.skip("no container engine is installed (scripts/install-deps.sh installs docker.io and podman)",
                allow_module_level=True)
if os.geteuid() != 0:
    pytest.skip("the container engines are not installed for rootless use here", allow_module_level=True)

SCRIPT = REPO / "scripts" / "local-containers.sh"
IMAGE = "det-test/python:bookworm"


def engine_call(sock, method, path, body=None):
    """One Docker Engine API call over the Unix socket: (status, parsed JSON body or None)."""
    conn = http.client.HTTPConnection("localhost", timeout=60)
    conn.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.sock.connect(sock)
    try:
        conn.request(method, "/v1.41" + path, body=None if body is None else json.dumps(body),
                     headers={} if body is None else {"Content-Type": "application/json"})
        r = conn.getresponse()
        body = r.read()
        return r.status, (json.loads(body) if body.strip().startswith((b"{", b"[")) else None)
    finally:
        conn.close()


@pytest.fixture(scope="module")
def containers():
    dir_ = pathlib.Path(tempfile.mkdtemp(prefix="det-e2e-containers-"))
    dir_.chmod(0o755)
    r = subprocess.run(["bash", str(SCRIPT), "start", str(dir_)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"local-containers start failed:\n{r.stdout}\n{r.stderr}"
    env = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    env["socket"] = env["DOCKER_HOST"][len("unix://"):]
    try:
        yield env
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", str(dir_)], capture_output=True, text=True, timeout=120)
        shutil.rmtree(dir_, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster(containers, tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("cluster"), env={"DOCKER_HOST": containers["DOCKER_HOST"]}) as c:
        yield c


def image(containers, registry="DET_TEST_REGISTRY"):
    return f"{containers[registry]}/{IMAGE}"


def run_command(cluster, *config, command, check=True):
    """`det command run` with --config entries; the command's output (its log), once it ended."""
    args = ["command", "run"]
    for c in config:
        args += ["--config", c]
    out = cluster.det(*args, command, check=check)
    return out.stdout + out.stderr


def our_containers(containers):
    status, listed = engine_call(containers["socket"], "GET", "/containers/json?all=1&filters=" +
                                 urllib.parse.quote(json.dumps({"label": ["ai.determined.allocation"]})))
    assert status == 200
    return listed


def test_a_command_runs_in_its_image(cluster, containers):
    out = run_command(cluster, f"environment.image={image(containers)}",
                      command="echo packages=$(dpkg-query -W | wc -l); . /etc/os-release; echo os=$ID-$VERSION_ID; "
                              "echo shm=$(df -m /dev/shm | tail -1 | awk '{print $2}')")
    assert f"Pulling image {image(containers)}" in out, out
    assert "os=debian-12" in out, out
    assert "shm=4096" in out, "task_container_defaults.shm_size_bytes (4 GiB unless configured)"
    packages = int(out.split("packages=")[1].split()[0])
    host_packages = int(subprocess.run("dpkg-query -W | wc -l", shell=True, capture_output=True, text=True).stdout)
    assert packages < 400 < host_packages, "the image's packages (about 220), not the host's"
    wait_for(lambda: not our_containers(containers), "the ended task's container to be removed")


NUMPY_TRIAL = """
import numpy as np
import determined as det

with det.core.init() as ctx:
    w = np.zeros(4)
    for step in range(1, 6):
        w += 0.1 * (np.ones(4) - w)
        ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": float(np.sum((1 - w) ** 2))})
    ctx.train.report_validation_metrics(steps_completed=5, metrics={"loss": float(np.sum((1 - w) ** 2))})
    print("numpy", np.__version__, flush=True)
"""


def test_a_numpy_trial_runs_in_an_image_from_the_registry(cluster, containers, tmp_path):
    (tmp_path / "trial.py").write_text(NUMPY_TRIAL)
    (tmp_path / "trial.yaml").write_text(
        f"name: numpy-in-image\nentrypoint: python3 trial.py\nsearcher: {{name: single, metric: loss}}\n"
        f"max_restarts: 0\nenvironment: {{image: '{image(containers)}'}}\n")
    exp_id = cluster.create_experiment(tmp_path / "trial.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED", cluster.trial_logs(cluster.trials(exp_id)[0]["id"])
    trial_id = cluster.trials(exp_id)[0]["id"]
    assert "numpy 1.24" in cluster.trial_logs(trial_id)
    assert cluster.metrics(trial_id, "validation")[-1]["metrics"]["loss"] < 1.5


def test_registry_auth_pulls_and_a_wrong_password_fails_with_the_registrys_words(cluster, containers):
    auth_image = image(containers, "DET_TEST_AUTH_REGISTRY")
    server = containers["DET_TEST_AUTH_REGISTRY"]
    out = run_command(cluster, f"environment.image={auth_image}", "environment.force_pull_image=true",
                      f"environment.registry_auth.username={containers['DET_TEST_REGISTRY_USER']}",
                      f"environment.registry_auth.password={containers['DET_TEST_REGISTRY_PASSWORD']}",
                      f"environment.registry_auth.serveraddress={server}", command="echo pulled-with-auth")
    assert "pulled-with-auth" in out, out
    out = run_command(cluster, f"environment.image={auth_image}", "environment.force_pull_image=true",
                      "environment.registry_auth.username=det", "environment.registry_auth.password=wrong",
                      f"environment.registry_auth.serveraddress={server}", command="echo never", check=False)
    assert "unauthorized: authentication required" in out, out
    assert "never" not in log_texts(out)


def test_force_pull_image_pulls_again_and_a_removed_image_is_pulled_again(cluster, containers):
    ref = image(containers)
    run_command(cluster, f"environment.image={ref}", command="true")
    out = run_command(cluster, f"environment.image={ref}", command="true")
    assert "Pulling image" not in out, "present: not pulled again"
    out = run_command(cluster, f"environment.image={ref}", "environment.force_pull_image=true", command="true")
    assert f"Pulling image {ref} (force_pull_image)" in out, out
    status, _ = engine_call(containers["socket"], "DELETE", f"/images/{urllib.parse.quote(ref, safe='')}?force=1")
    assert status == 200
    out = run_command(cluster, f"environment.image={ref}", command="true")
    assert f"Pulling image {ref}" in out, out


def test_read_only_bind_mounts_refuse_writes_and_shm_follows_shm_size(cluster, containers, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "in.txt").write_text("from the host\n")
    config = tmp_path / "cmd.yaml"
    config.write_text(json.dumps({
        "environment": {"image": image(containers)},
        "resources": {"shm_size": "256M"},
        "bind_mounts": [{"host_path": str(data), "container_path": "/data", "read_only": True}]}))
    out = cluster.det("command", "run", "--config-file", str(config),
                      "cat /data/in.txt; touch /data/new 2>&1 || echo refused; df -m /dev/shm | tail -1").stdout
    assert "from the host" in out and "Read-only file system" in out and "refused" in out, out
    shm = [l for l in log_texts(out) if "/dev/shm" in l]
    assert shm and shm[0].split()[1] == "256", shm
    assert not (data / "new").exists()


def test_kill_removes_the_container(cluster, containers):
    cluster.det("command", "run", "-d", "--config", f"environment.image={image(containers)}", "sleep 600")
    cmd = wait_for(lambda: next((c for c in cluster.get("/api/v1/commands")["commands"]
                                 if c["state"] == "STATE_RUNNING"), None), "the command to run")
    wait_for(lambda: [c for c in our_containers(containers) if c["State"] == "running"], "its container to run")
    cluster.det("command", "kill", cmd["id"])
    wait_for(lambda: cluster.get(f"/api/v1/commands/{cmd['id']}")["command"]["state"] == "STATE_TERMINATED",
             "the command to end")
    wait_for(lambda: not our_containers(containers), "its container to be removed")


@pytest.fixture()
def restartable_agent(containers, tmp_path):
    """A cluster without agents, and one agent on the engine that the test can SIGKILL and start again."""
    config = "resource_pools:\n  - pool_name: default\n    agent_reconnect_wait: 60s\n"
    (tmp_path / "cluster").mkdir()
    with local_cluster(tmp_path / "cluster", agents=0, master_config=config) as cluster:
        work = tmp_path / "agent"
        runs = []

        def start():
            env = {k: v for k, v in os.environ.items() if not k.startswith("DET_")}
            log = open(tmp_path / f"agent.{len(runs)}.log", "w")
            runs.append(subprocess.Popen(
                [str(BIN / "determined-agent"), "--master-url", cluster.master_url, "--id", "container-agent",
                 "--slots", "1", "--work-dir", str(work), "--container-socket", containers["socket"]],
                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True))

        start()
        try:
            wait_for(lambda: cluster.get("/api/v1/agents")["agents"], "the agent to register")
            yield cluster, start, runs
        finally:
            for p in runs:
                if p.poll() is None:
                    p.terminate()
                    p.wait(timeout=20)


def test_a_restarted_agent_adopts_its_running_container(restartable_agent, containers):
    cluster, start, runs = restartable_agent
    cluster.det("command", "run", "-d", "--config", f"environment.image={image(containers)}",
                "for i in $(seq 1 40); do echo line $i; sleep 0.1; done")
    cmd = wait_for(lambda: next(iter(cluster.get("/api/v1/commands")["commands"]), None), "the command")
    wait_for(lambda: "line 5\n" in cluster.task_logs(cmd["id"]), "the command to print", timeout=120)
    runs[-1].send_signal(signal.SIGKILL)
    runs[-1].wait(timeout=10)
    # As an agent that stopped between creating a container and recording it would leave one.
    status, stray = engine_call(containers["socket"], "POST", "/containers/create?name=det-stray", {
        "Image": image(containers), "Cmd": ["true"],
        "Labels": {"ai.determined.agent": "container-agent", "ai.determined.allocation": "stray"}})
    assert status == 201, stray
    time.sleep(1)  # it prints on while no agent follows it
    start()
    wait_for(lambda: cluster.get(f"/api/v1/commands/{cmd['id']}")["command"]["state"] == "STATE_TERMINATED",
             "the command to end", timeout=120)
    lines = wait_for(lambda: (lambda ls: ls if "line 40" in ls else None)(
        [l.strip() for l in log_texts(cluster.task_logs(cmd["id"]))]), "the last line", timeout=20)
    for i in range(1, 41):  # every line once: none lost while no agent followed, none read twice
        assert lines.count(f"line {i}") == 1, (i, lines)
    wait_for(lambda: not our_containers(containers), "its container, and the one it had no record of, to be removed")


def test_a_master_restart_leaves_the_container_running(cluster, containers):
    cluster.det("command", "run", "-d", "--config", f"environment.image={image(containers)}",
                "for i in $(seq 1 30); do echo step $i; sleep 0.1; done")
    cmd = wait_for(lambda: next((c for c in cluster.get("/api/v1/commands")["commands"]
                                 if c["state"] != "STATE_TERMINATED"), None), "the command")
    wait_for(lambda: "step 3\n" in cluster.task_logs(cmd["id"]), "the command to print")
    [before] = [c["Id"] for c in our_containers(containers)]
    restart_master(cluster)
    assert [c["Id"] for c in our_containers(containers)] == [before], "the same container runs on"
    cluster.session = login(cluster, "determined")
    wait_for(lambda: cluster.get(f"/api/v1/commands/{cmd['id']}")["command"]["state"] == "STATE_TERMINATED",
             "the command to end")
    lines = [l.strip() for l in log_texts(cluster.task_logs(cmd["id"]))]
    for i in range(1, 31):
        assert lines.count(f"step {i}") == 1, (i, lines)
    wait_for(lambda: not our_containers(containers), "its container to be removed")


def test_a_shell_in_a_container_is_reached_through_the_proxy(cluster, containers, tmp_path):
    shell = start_shell(cluster, tmp_path, {"environment": {"image": image(containers)}})
    try:
        out = ssh_through_tunnel(cluster, shell, "echo packages=$(dpkg-query -W | wc -l) task=$DET_TASK_ID")
        assert out.returncode == 0, out.stderr
        assert f"task={shell['id']}" in out.stdout, out.stdout
        assert int(out.stdout.split("packages=")[1].split()[0]) < 400, "the image's sshd and packages, not the host's"
        assert [c["State"] for c in our_containers(containers)] == ["running"]
    finally:
        cluster.det("shell", "kill", shell["id"])
    wait_for(lambda: not our_containers(containers), "the shell's container to be removed")


def test_task_container_defaults_network_mode_is_the_containers_network(containers, tmp_path):
    config = "task_container_defaults:\n  network_mode: none\n"
    with local_cluster(tmp_path, master_config=config,
                       env={"DOCKER_HOST": containers["DOCKER_HOST"]}) as isolated:
        out = run_command(isolated, f"environment.image={image(containers)}",
                          command="echo interfaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | xargs)")
    assert "interfaces=lo\n" in out, "network_mode none: only the loopback interface\n" + out
    host = subprocess.run("tail -n +3 /proc/net/dev | wc -l", shell=True, capture_output=True, text=True).stdout
    assert int(host) > 1, "the host has more than the loopback (the test would not tell otherwise)"


def test_a_notebook_in_a_container_opens_through_the_proxy(cluster, containers):
    nid = open_notebook(cluster, {"environment": {"image": image(containers)}})
    assert [c["State"] for c in our_containers(containers)] == ["running"], "Jupyter runs in the image"
    cluster.det("notebook", "kill", nid)
    wait_for(lambda: not our_containers(containers), "the notebook's container to be removed")
