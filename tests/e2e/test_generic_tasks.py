"""Generic tasks (upstream 0.38's `det task`): they run their entrypoint in their context, a failing one
ends in error with its exit status, and they pause, unpause and die on request."""
import re

from conftest import log_texts, wait_for

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def create(cluster, tmp_path, config_yaml, name="task"):
    (tmp_path / f"{name}.yaml").write_text(config_yaml)
    ctx = tmp_path / f"{name}-ctx"
    ctx.mkdir(exist_ok=True)
    (ctx / "msg.txt").write_text("task ran\n")
    out = cluster.det("task", "create", str(tmp_path / f"{name}.yaml"), str(ctx)).stdout
    return UUID.search(out).group(0)


def task(cluster, task_id):
    return cluster.get(f"/api/v1/tasks/{task_id}")["task"]


def wait_state(cluster, task_id, state, timeout=120):
    return wait_for(lambda: (t := task(cluster, task_id))["taskState"] == state and t,
                    f"task {task_id} to be {state}", timeout=timeout)


def test_a_task_runs_and_a_failing_one_ends_in_error(cluster, tmp_path):
    ok = create(cluster, tmp_path, 'entrypoint: ["echo", "task ran"]\n', "ok")
    wait_state(cluster, ok, "GENERIC_TASK_STATE_COMPLETED")
    assert "task ran" in cluster.det("task", "logs", ok).stdout
    assert "echo" in cluster.det("task", "config", ok).stdout

    in_context = create(cluster, tmp_path, 'entrypoint: ["cat", "msg.txt"]\n', "ctx")
    wait_state(cluster, in_context, "GENERIC_TASK_STATE_COMPLETED")
    assert "task ran" in cluster.det("task", "logs", in_context).stdout

    failing = create(cluster, tmp_path, 'entrypoint: ["sh", "-c", "exit 7"]\n', "failing")
    ended = wait_state(cluster, failing, "GENERIC_TASK_STATE_ERROR")
    assert ended["exitCode"] == 7
    assert ended["exitStatus"] == "exited with code 7"


def test_pause_unpause_and_kill(cluster, tmp_path):
    task_id = create(cluster, tmp_path,
                     'entrypoint: ["sh", "-c", "echo started; sleep 100"]\npreemption_timeout: 1\n', "long")
    def runs():  # the task's own "started" lines (the master's log lines say "Process started")
        return log_texts(cluster.det("task", "logs", task_id).stdout).count("started")

    wait_for(lambda: runs() == 1, "the task to start")
    cluster.det("task", "pause", task_id)
    wait_state(cluster, task_id, "GENERIC_TASK_STATE_PAUSED")
    cluster.det("task", "unpause", task_id)
    wait_for(lambda: runs() == 2, "the task to run again")
    assert len(task(cluster, task_id)["allocations"]) == 2
    cluster.det("task", "kill", task_id)
    wait_state(cluster, task_id, "GENERIC_TASK_STATE_CANCELED")
    refused = cluster.det("task", "unpause", task_id, check=False)
    assert refused.returncode != 0 and "has ended" in refused.stdout + refused.stderr


def test_bad_task_configs_are_refused(cluster, tmp_path):
    (tmp_path / "bad.yaml").write_text("entrypoint: [echo, hi]\nbogus_key: 1\n")
    proc = cluster.det("task", "create", str(tmp_path / "bad.yaml"), str(tmp_path), check=False)
    assert proc.returncode != 0 and "bogus_key" in proc.stdout + proc.stderr
    (tmp_path / "empty.yaml").write_text("description: nothing to run\n")
    proc = cluster.det("task", "create", str(tmp_path / "empty.yaml"), str(tmp_path), check=False)
    assert proc.returncode != 0 and "entrypoint" in proc.stdout + proc.stderr
