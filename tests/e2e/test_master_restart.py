"""The master killed with SIGKILL mid-experiment and started again on the same data: the running trial
process keeps running (no restart), the searcher continues where it was, and nothing reported before
the kill is lost. A deliberate `det deploy local cluster-down` instead preempts the running trial, which
checkpoints and resumes at the next cluster-up without using up a restart."""
import os
import time

from conftest import Cluster, det, local_cluster, log_texts, restart_master, stepper, wait_for

STEPPER = """
import time
import determined as det

info = det.get_cluster_info()
with det.core.init() as ctx:
    print("running trial", info.trial.trial_id, flush=True)
    for step in range(1, 81):
        time.sleep(0.1)
        if step % 10 == 0:
            ctx.train.report_training_metrics(steps_completed=step, metrics={"loss": 1.0 / step})
        if ctx.preempt.should_preempt():
            print("preempted at step", step, flush=True)
            break
    else:
        ctx.train.report_validation_metrics(steps_completed=80, metrics={"loss": 0.5})
        print("finished", flush=True)
"""


def create(cluster, tmp_path, searcher):
    (tmp_path / "stepper.py").write_text(STEPPER)
    (tmp_path / "exp.yaml").write_text(
        "name: restart-me\nentrypoint: python3 stepper.py\nmax_restarts: 0\n"
        "hyperparameters: {x: {type: int, minval: 1, maxval: 1000}}\n" + searcher)
    return cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)


def training_steps(cluster, trial_id):
    return [m["totalBatches"] for m in cluster.metrics(trial_id, "training")]


def test_running_trials_survive_a_master_kill_and_the_search_continues(cluster, tmp_path):
    exp_id = create(cluster, tmp_path,
                    "searcher: {name: random, metric: loss, max_trials: 2, max_concurrent_trials: 1}\n")
    first = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the first trial")
    wait_for(lambda: training_steps(cluster, first["id"]), "the first metrics")
    before = training_steps(cluster, first["id"])

    restart_master(cluster)

    assert cluster.wait_for_experiment(exp_id, timeout=180) == "STATE_COMPLETED"
    after = cluster.trials(exp_id)
    # The searcher resumed from its snapshot: exactly max_trials trials, not a fresh search.
    assert len(after) == 2, after
    survivor = next(t for t in after if t["id"] == first["id"])
    assert survivor["state"] == "STATE_COMPLETED"
    assert survivor["restarts"] == 0
    steps = training_steps(cluster, first["id"])
    assert set(before) <= set(steps)  # nothing reported before the kill was lost
    assert steps == sorted(set(steps)) and steps[-1] == 80  # the same process went on to the end
    logs = cluster.trial_logs(first["id"])
    assert logs.count(f"running trial {first['id']}") == 1, logs[-3000:]  # never restarted
    assert "finished" in logs


def test_cluster_down_preempts_running_trials_and_cluster_up_resumes_them(tmp_path_factory, tmp_path):
    data_dir = tmp_path_factory.mktemp("down-up")
    (tmp_path / "stepper.py").write_text(stepper(60))
    (tmp_path / "exp.yaml").write_text(
        "name: survives-cluster-down\nentrypoint: python3 stepper.py\nsearcher: {name: single, metric: loss}\n"
        "max_restarts: 0\n")
    with local_cluster(data_dir, agents=1, slots=1) as first:
        exp_id = first.create_experiment(tmp_path / "exp.yaml", tmp_path)
        trial = wait_for(lambda: [t for t in first.trials(exp_id) if t["state"] == "STATE_RUNNING"], "the trial")[0]
        wait_for(lambda: "running from step 0" in first.trial_logs(trial["id"]), "the trial to step")
        env = {"DET_AUTH_FILE": str(first.auth_file)}
        down = det("deploy", "local", "cluster-down", "--data-dir", str(data_dir), env=env, timeout=90)
        assert "running trials checkpoint and exit first" in down.stdout, down.stdout

        db = os.environ.get("DET_TEST_DB")  # the e2e_pg_ run: the same PostgreSQL server again
        det("deploy", "local", "cluster-up", "--agents", "1", "--slots", "1", "--master-port", "0",
            *(["--db", db] if db else []), "--data-dir", str(data_dir), env=env, timeout=120)
        second = Cluster(data_dir, first.auth_file)
        assert second.wait_for_experiment(exp_id) == "STATE_COMPLETED"
        [after] = second.trials(exp_id)
        assert after["restarts"] == 0, after
        logs = second.trial_logs(trial["id"])
        assert "The master is shutting down" in logs and "stopped at step" in logs, logs
        resumed = [int(line.rsplit(" ", 1)[1]) for line in log_texts(logs) if line.startswith("resumed at step")]
        assert resumed and resumed[0] > 0, logs
        assert "finished" in logs and "exit code 143" not in logs, logs
