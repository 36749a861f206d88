"""The `det` command tree against a real cluster: users, experiment create --follow, failing trials."""
import json
import pathlib
import re
import subprocess
import tarfile

from conftest import det, wait_for


def test_user_login_whoami_logout(cluster):
    login = cluster.det("user", "login", "admin", input="\n")
    assert login.returncode == 0
    whoami = cluster.det("user", "whoami")
    assert "admin" in whoami.stdout
    cluster.det("user", "logout")
    # Logged out: the next command logs in again as the default user.
    assert "determined" in cluster.det("user", "whoami").stdout


def test_one_version_for_the_client_the_master_and_the_agents(cluster):
    shown = json.loads(cluster.det("version", "--json").stdout)
    version = shown["client"]["version"]
    assert shown["master"]["version"] == version and shown["master_address"] == cluster.master_url, shown
    agents = cluster.get("/api/v1/agents")["agents"]
    assert agents and {a["version"] for a in agents} == {version}, agents


def test_failing_trial_restarts_from_its_checkpoint(cluster, tmp_path):
    (tmp_path / "crash_once.py").write_text(
        "import sys\nimport determined as det\n"
        "info = det.get_cluster_info()\n"
        "with det.core.init() as ctx:\n"
        "    if info.latest_checkpoint is None:\n"
        "        with ctx.checkpoint.store_path({'steps_completed': 1}) as (path, uuid):\n"
        "            (path / 'state').write_text('from run 1')\n"
        "        print('crashing after the checkpoint', flush=True)\n"
        "        sys.exit(2)\n"
        "    with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:\n"
        "        print('resumed', (path / 'state').read_text(), 'at step', info.trial.steps_completed, flush=True)\n"
        "    ctx.train.report_training_metrics(steps_completed=2, metrics={'loss': 1.0})\n")
    (tmp_path / "crash.yaml").write_text(
        "entrypoint: python3 crash_once.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 1\n")
    created = cluster.det("experiment", "create", str(tmp_path / "crash.yaml"), str(tmp_path))
    exp_id = int(re.search(r"Created experiment (\d+)", created.stdout).group(1))
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    trial = cluster.get(f"/api/v1/experiments/{exp_id}/trials")["trials"][0]
    assert trial["restarts"] == 1
    logs = cluster.det("trial", "logs", str(trial["id"])).stdout
    assert "crashing after the checkpoint" in logs
    assert "resumed from run 1 at step 1" in logs


def test_failing_trial_ends_in_error_and_its_output_is_in_the_logs(cluster, tmp_path):
    (tmp_path / "fail.py").write_text(
        "import sys\nimport determined as det\n"
        "info = det.get_cluster_info()\n"
        "print('trial', info.trial.trial_id, 'hparams', info.trial.hparams, flush=True)\n"
        "print('something went wrong', file=sys.stderr)\n"
        "sys.exit(3)\n")
    (tmp_path / "fail.yaml").write_text(
        "name: failing\nentrypoint: python3 fail.py\n"
        "searcher: {name: single, metric: loss}\nhyperparameters: {lr: 0.5}\nmax_restarts: 0\n")
    follow = cluster.det("experiment", "create", str(tmp_path / "fail.yaml"), str(tmp_path), "--follow",
                         check=False)
    assert follow.returncode != 0, follow.stdout
    assert "something went wrong" in follow.stdout + follow.stderr
    exp_id = int(re.search(r"Created experiment (\d+)", follow.stdout).group(1))
    assert cluster.wait_for_experiment(exp_id) == "STATE_ERROR"

    described = json.loads(cluster.det("experiment", "describe", str(exp_id), "--json").stdout)
    trial = described["trials"][0]
    assert trial["state"] == "STATE_ERROR"
    assert trial["hparams"] == {"lr": 0.5}
    logs = cluster.det("trial", "logs", str(trial["id"])).stdout
    assert f"trial {trial['id']} hparams {{'lr': 0.5}}" in logs
    assert "exited with code 3" in logs
    assert cluster.det("trial", "logs", str(trial["id"]), "--tail", "1").stdout.strip().endswith(
        f"Trial {trial['id']} is ERROR")
    assert "queued" in cluster.det("trial", "logs", str(trial["id"]), "--head", "1").stdout

    # `det experiment list` shows the caller's own experiments; --all shows everyone's.
    mine = json.loads(cluster.det("experiment", "list", "--json").stdout)
    assert exp_id in [e["id"] for e in mine]
    as_admin = json.loads(cluster.det("-u", "admin", "experiment", "list", "--json").stdout)
    assert exp_id not in [e["id"] for e in as_admin]
    everyone = json.loads(cluster.det("-u", "admin", "experiment", "list", "--all", "--json").stdout)
    assert exp_id in [e["id"] for e in everyone]


def test_master_logs_and_task_logs(cluster, tmp_path):
    exp_id, trial_id = cluster.run_script(
        tmp_path, "hello", "import sys\nprint('hello from the task', flush=True)\nprint('oops', file=sys.stderr)\n")
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"

    # The master's own log: upstream's entry shape, and `det master logs` prints it line by line.
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/master/logs", timeout=30)
    entries = [json.loads(line)["result"]["logEntry"] for line in resp.text.splitlines() if line]
    assert entries and set(entries[0]) == {"id", "message", "timestamp", "level"}
    assert [e["id"] for e in entries] == sorted(e["id"] for e in entries)
    assert any(f"experiment {exp_id} is COMPLETED" in e["message"] for e in entries)
    assert all(e["level"].startswith("LOG_LEVEL_") for e in entries)
    out = cluster.det("master", "logs").stdout
    assert re.search(rf"\[INFO\]: experiment {exp_id} is COMPLETED", out), out
    tail = cluster.det("master", "logs", "--tail", "2").stdout.splitlines()
    assert len(tail) == 2
    assert cluster.det("master", "logs", "--tail", "x", check=False).returncode != 0

    # A trial's task: the same lines as `det trial logs`.
    task_id = cluster.trials(exp_id)[0]["taskId"]
    task_logs = cluster.det("task", "logs", task_id)
    assert "hello from the task" in task_logs.stdout
    assert f"det task logs -f {task_id}" in task_logs.stderr
    assert cluster.det("task", "logs", task_id, "--tail", "1").stdout.count("\n") == 1
    # Filters are applied by the master, and bad ones named.
    stderr_only = cluster.det("trial", "logs", str(trial_id), "--stdtype", "stderr").stdout
    assert "oops" in stderr_only and "hello from the task" not in stderr_only
    assert "hello from the task" in cluster.det("task", "logs", task_id, "--stdtype", "stdout").stdout
    for query, problem in (("levels=LOG_LEVEL_LOUD", "levels"), ("rankIds=x", "rankIds"),
                           ("timestampBefore=yesterday", "timestampBefore")):
        bad = cluster.session.get(f"{cluster.master_url}/api/v1/trials/{trial_id}/logs?{query}", timeout=30)
        assert bad.status_code == 400 and problem in bad.json()["error"]["error"], bad.text
    missing = cluster.det("task", "logs", "no-such-task", check=False)
    assert missing.returncode != 0 and "no-such-task" in missing.stderr

    # enableRegex: searchText is a regular expression; a bad one is a 400 naming it.
    def messages(path, **params):
        resp = cluster.session.get(f"{cluster.master_url}{path}", params=params, timeout=30)
        assert resp.status_code == 200, resp.text
        return [json.loads(line)["result"] for line in resp.text.splitlines() if line]
    [found] = messages(f"/api/v1/trials/{trial_id}/logs", searchText="^hel+o from", enableRegex="true")
    assert found["log"] == "hello from the task\n", found
    # message: upstream's flat line, which its CLI and SDK print.
    assert re.fullmatch(r"\[[0-9T:.-]+Z\] .{8} \|\| hello from the task\n", found["message"]), found
    assert messages(f"/api/v1/trials/{trial_id}/logs", searchText="^hel+o from") == [], "no regex without enableRegex"
    bad = cluster.session.get(f"{cluster.master_url}/api/v1/tasks/{task_id}/logs",
                              params={"searchText": "(", "enableRegex": "true"}, timeout=30)
    assert bad.status_code == 400 and "searchText" in bad.json()["error"]["error"], bad.text

    # TrialLogsFields / TaskLogsFields: the distinct values, one streamed message.
    for path, extra in ((f"/api/v1/trials/{trial_id}/logs/fields", set()),
                        (f"/api/v1/tasks/{task_id}/logs/fields", {"allocationIds"})):
        lines = cluster.session.get(f"{cluster.master_url}{path}", params={"follow": "true"}, timeout=30).text.splitlines()
        assert len(lines) == 1, lines
        fields = json.loads(lines[0])["result"]
        assert set(fields) == {"agentIds", "containerIds", "rankIds", "stdtypes", "sources"} | extra, fields
        assert fields["stdtypes"] == ["stderr", "stdout"] and "task" in fields["sources"], fields
        assert fields["rankIds"] == [], "a one-process trial prints no ranks"
        assert fields["agentIds"] and fields["agentIds"] == sorted(set(fields["agentIds"]))


SERIES_REPORTER = """
import determined as det

with det.core.init() as ctx:
    for step in range(1, 301):
        metrics = {"loss": 1.0 / step, "epoch": step // 100}
        if step % 50 == 0:
            metrics["lr"] = 0.1
        ctx.train.report_training_metrics(steps_completed=step, metrics=metrics)
    for step in (100, 200, 300):
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"accuracy": step / 300, "loss": 1 - step / 300})
"""


def test_metric_series_are_downsampled_for_charts(cluster, tmp_path):
    exp_id, trial_id = cluster.run_script(tmp_path, "series", SERIES_REPORTER)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"

    def series(**params):
        resp = cluster.session.get(f"{cluster.master_url}/api/v1/trials/time-series",
                                   params={"trialIds": trial_id, **params}, timeout=30)
        assert resp.status_code == 200, resp.text
        [trial] = resp.json()["trials"]
        assert trial["trial"]["id"] == trial_id
        return {m["group"]: m for m in trial["metrics"]}

    loss = series(maxDatapoints=20, metricNames="loss", metricType="METRIC_TYPE_TRAINING")["training"]
    assert loss["type"] == "METRIC_TYPE_TRAINING"
    points = loss["data"]
    assert len(points) == 20
    assert points[0]["batches"] == 1 and points[-1]["batches"] == 300, "the whole range is kept"
    assert [p["batches"] for p in points] == sorted(p["batches"] for p in points)
    assert all(set(p["values"]) == {"loss"} for p in points)
    assert points[-1]["values"]["loss"] == 1.0 / 300 and points[-1]["epoch"] == 3
    assert all(set(p) <= {"batches", "values", "time", "epoch"} for p in points)

    # A metric reported every 50th step has just those points; metricIds name the group.
    by_group = series(maxDatapoints=100, metricIds=["training.lr", "validation.accuracy"])
    assert [p["batches"] for p in by_group["training"]["data"]] == [50, 100, 150, 200, 250, 300]
    assert [p["values"]["accuracy"] for p in by_group["validation"]["data"]] == [100 / 300, 200 / 300, 1.0]
    # startBatches/endBatches bound the range; without names every value comes back.
    window = series(startBatches=100, endBatches=110, group="training")["training"]["data"]
    assert [p["batches"] for p in window] == list(range(100, 111))
    assert set(window[0]["values"]) == {"loss", "epoch", "lr"} and set(window[1]["values"]) == {"loss", "epoch"}

    # ExpMetricNames: every group's names, once, since the experiment has ended.
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/experiments/metrics-stream/metric-names",
                               params={"ids": exp_id}, timeout=30)
    [line] = resp.text.splitlines()
    names = json.loads(line)["result"]
    assert names["searcherMetrics"] == ["loss"]
    assert names["trainingMetrics"] == ["epoch", "loss", "lr"] and names["validationMetrics"] == ["accuracy", "loss"]
    assert {"group": "validation", "name": "accuracy"} in names["metricNames"]
    missing = cluster.session.get(f"{cluster.master_url}/api/v1/experiments/metrics-stream/metric-names",
                                  params={"ids": 99999}, timeout=30)
    assert missing.status_code == 404, missing.text

    for params, problem in (({"maxDatapoints": 0}, "maxDatapoints"), ({"metricIds": "loss"}, "metricIds"),
                            ({"metricType": "METRIC_TYPE_LOUD"}, "metricType"),
                            ({"startBatches": 10, "endBatches": 5}, "endBatches")):
        bad = cluster.session.get(f"{cluster.master_url}/api/v1/trials/time-series",
                                  params={"trialIds": trial_id, **params}, timeout=30)
        assert bad.status_code == 400 and problem in bad.json()["error"]["error"], (params, bad.text)


CHECKPOINTER = """
import determined as det

with det.core.init() as ctx:
    with ctx.checkpoint.store_path({"steps_completed": 5}) as (path, uuid):
        (path / "weights").write_text("w" * 1000)
        (path / "sub").mkdir()
        (path / "sub" / "state").write_text("s")
    ctx.train.report_validation_metrics(steps_completed=5, metrics={"loss": 0.1})
"""


def test_checkpoint_list_describe_download(cluster, tmp_path):
    exp_id, trial_id = cluster.run_script(tmp_path, "checkpointer", CHECKPOINTER)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"

    listed = json.loads(cluster.det("checkpoint", "list", str(exp_id), "--json").stdout)
    assert len(listed) == 1
    uuid = listed[0]["uuid"]
    table = cluster.det("checkpoint", "list", str(exp_id)).stdout
    assert uuid in table and "COMPLETED" in table

    # Upstream's `det experiment list-checkpoints|lc`: the searcher metric's value at the checkpoint.
    csv = cluster.det("experiment", "list-checkpoints", str(exp_id), "--csv").stdout.splitlines()
    assert csv[0] == "Trial ID,# of Batches,State,Validation Metric,UUID,Resources,Size", csv
    assert csv[1].startswith(f"{trial_id},5,COMPLETED,0.1,{uuid},3,"), csv
    best = json.loads(cluster.det("e", "lc", str(exp_id), "--best", "1", "--json").stdout)
    assert [c["uuid"] for c in best] == [uuid]
    assert best[0]["training"]["validationMetrics"]["avgMetrics"] == {"loss": 0.1}
    refused = cluster.det("e", "lc", str(exp_id), "--best", "0", check=False)
    assert refused.returncode == 2 and "--best: must be a positive integer" in refused.stderr, refused.stderr

    described = json.loads(cluster.det("checkpoint", "describe", uuid, "--json").stdout)
    assert described["training"]["trialId"] == trial_id
    assert described["metadata"]["steps_completed"] == 5
    assert "Trial ID" in cluster.det("checkpoint", "describe", uuid).stdout

    out = tmp_path / "downloaded"
    downloaded = cluster.det("checkpoint", "download", uuid, "-o", str(out))
    assert f"Local checkpoint path: {out}" in downloaded.stdout
    assert (out / "weights").read_text() == "w" * 1000
    assert (out / "sub" / "state").read_text() == "s"

    # Upstream's `det experiment download` (the best checkpoints, each to DIR/UUID) and `det trial download`.
    top = tmp_path / "top"
    quiet = cluster.det("experiment", "download", str(exp_id), "--top-n", "2", "-o", str(top), "-q").stdout
    assert quiet.splitlines() == [str(top / uuid)], quiet
    assert (top / uuid / "weights").read_text() == "w" * 1000
    by_loss = cluster.det("e", "download", str(exp_id), "--sort-by", "loss", "--smaller-is-better", "true",
                          "-o", str(tmp_path / "by_loss")).stdout
    assert f"Local checkpoint path: {tmp_path / 'by_loss' / uuid}" in by_loss
    by_missing = cluster.det("e", "download", str(exp_id), "--sort-by", "accuracy", "--smaller-is-better", "false",
                             "-o", str(tmp_path / "none"), check=False)
    assert by_missing.returncode != 0 and "no completed checkpoint with accuracy" in by_missing.stderr
    no_order = cluster.det("e", "download", str(exp_id), "--sort-by", "loss", check=False)
    assert no_order.returncode != 0 and "--smaller-is-better" in no_order.stderr
    for choice in (["--best"], ["--latest"], ["--uuid", uuid]):
        target = tmp_path / ("trial" + choice[0])
        got = cluster.det("trial", "download", str(trial_id), *choice, "-o", str(target), "-q").stdout
        assert got.strip() == str(target) and (target / "sub" / "state").read_text() == "s", choice
    neither = cluster.det("trial", "download", str(trial_id), check=False)
    assert neither.returncode != 0 and "--best, --latest or --uuid" in neither.stderr
    other = cluster.det("trial", "download", str(trial_id + 1000), "--uuid", uuid, check=False)
    assert other.returncode != 0 and f"not of trial {trial_id + 1000}" in other.stderr, other.stderr
    cluster.det("e", "download-model-def", str(exp_id), "--output-dir", str(tmp_path))
    with tarfile.open(tmp_path / f"experiment_{exp_id}_model_def.tgz") as tgz:
        assert "./checkpointer.py" in tgz.getnames() or "checkpointer.py" in tgz.getnames(), tgz.getnames()

    missing = cluster.det("checkpoint", "describe", "no-such-uuid", check=False)
    assert missing.returncode != 0 and "no-such-uuid" in missing.stderr

    # GetTrialWorkloads: the validation and the checkpoint, at 5 batches, in that order.
    workloads = cluster.get(f"/api/v1/trials/{trial_id}/workloads")
    assert [list(w) for w in workloads["workloads"]] == [["validation"], ["checkpoint"]], workloads
    validation, checkpoint = workloads["workloads"][0]["validation"], workloads["workloads"][1]["checkpoint"]
    assert validation["totalBatches"] == 5 and validation["metrics"]["avgMetrics"] == {"loss": 0.1}
    assert checkpoint["uuid"] == uuid and checkpoint["totalBatches"] == 5
    assert checkpoint["resources"]["weights"] == "1000", "int64 sizes as strings"
    assert workloads["pagination"]["total"] == 2
    only = cluster.get(f"/api/v1/trials/{trial_id}/workloads", params={"filter": "FILTER_OPTION_CHECKPOINT"})
    assert [list(w) for w in only["workloads"]] == [["checkpoint"]]
    bad = cluster.session.get(f"{cluster.master_url}/api/v1/trials/{trial_id}/workloads",
                              params={"filter": "FILTER_OPTION_ALL"}, timeout=30)
    assert bad.status_code == 400 and "filter" in bad.json()["error"]["error"]

    # `det trial describe`: the trial, its workloads (upstream's table and JSON) and --metrics-summary.
    described = cluster.det("trial", "describe", str(trial_id), "--metrics-summary").stdout
    assert "Workloads:" in described and uuid in described and "loss=0.1" in described, described
    summary = json.loads(described[described.index("Summary metrics:") + len("Summary metrics:"):])
    assert summary["validation_metrics"]["loss"]["last"] == 0.1, summary
    as_json = json.loads(cluster.det("trial", "describe", str(trial_id), "--json").stdout)
    assert as_json["trial"]["id"] == trial_id
    assert [list(w) for w in as_json["workloads"]] == [["validation"], ["checkpoint"]]
    paged = json.loads(cluster.det("trial", "describe", str(trial_id), "--json", "--limit", "1", "--pages", "0").stdout)
    assert paged["workloads"] == as_json["workloads"]
    second = json.loads(cluster.det("trial", "describe", str(trial_id), "--json", "--limit", "1", "--offset", "1").stdout)
    assert [list(w) for w in second["workloads"]] == [["checkpoint"]]

    # `det trial support-bundle`: the trial's and the master's logs, the trial and its experiment.
    bundle_dir = tmp_path / "bundle"
    bundle_dir.mkdir()
    made = cluster.det("trial", "support-bundle", str(trial_id), "-o", str(bundle_dir)).stdout
    path = pathlib.Path(re.search(r"bundle path: (\S+)", made).group(1))
    assert path.parent == bundle_dir and re.fullmatch(rf"det-bundle-trial-{trial_id}-\d{{8}}T\d{{6}}\.tar\.gz", path.name)
    with tarfile.open(path) as tgz:
        name = path.name[: -len(".tar.gz")]
        files = {m.name: tgz.extractfile(m).read().decode() for m in tgz.getmembers() if m.isfile()}
    assert sorted(files) == [f"{name}/{f}" for f in ("api_experiment_call.json", "api_trial_call.json",
                                                      "master_logs.txt", "trial_logs.txt")], sorted(files)
    assert json.loads(files[f"{name}/api_trial_call.json"])["id"] == trial_id
    assert json.loads(files[f"{name}/api_experiment_call.json"])["experiment"]["id"] == exp_id
    assert f"Trial {trial_id} is COMPLETED" in files[f"{name}/trial_logs.txt"], files[f"{name}/trial_logs.txt"]
    assert "[INFO]:" in files[f"{name}/master_logs.txt"]
    nowhere = cluster.det("trial", "support-bundle", str(trial_id), "-o", str(tmp_path / "absent"), check=False)
    assert nowhere.returncode != 0 and "absent is not a directory" in nowhere.stderr, nowhere.stderr


def test_create_follow_shows_a_progress_line_per_trial(cluster, tmp_path):
    (tmp_path / "search.py").write_text(
        "import determined as det\n"
        "with det.core.init() as ctx:\n"
        "    lr = det.get_cluster_info().trial.hparams['lr']\n"
        "    ctx.train.report_training_metrics(steps_completed=5, metrics={'loss': lr})\n"
        "    ctx.train.report_validation_metrics(steps_completed=5, metrics={'loss': lr / 2})\n")
    (tmp_path / "search.yaml").write_text(
        "name: progress\nentrypoint: python3 search.py\nmax_restarts: 0\n"
        "searcher: {name: grid, metric: loss, max_length: 5}\n"
        "hyperparameters: {lr: {type: categorical, vals: [0.5, 0.25]}}\n")
    follow = cluster.det("experiment", "create", str(tmp_path / "search.yaml"), str(tmp_path), "--follow")
    exp_id = int(re.search(r"Created experiment (\d+)", follow.stdout).group(1))
    trial_ids = sorted(t["id"] for t in cluster.trials(exp_id))
    assert len(trial_ids) == 2
    # Not a terminal here: each line is printed when it changes, and every trial ends COMPLETED.
    for trial_id in trial_ids:
        assert re.search(rf"^Trial {trial_id}: COMPLETED, 5 batches, loss 0\.(25|125) \(best 0\.(25|125)\)$",
                         follow.stdout, re.M), follow.stdout
    assert follow.stdout.rstrip().endswith(f"Experiment {exp_id} terminated with state COMPLETED")

    # GetExperimentTrials: sorted, filtered by state, paged.
    def listed(**params):
        return cluster.get(f"/api/v1/experiments/{exp_id}/trials", params=params)
    by_best = listed(sortBy="SORT_BY_BEST_VALIDATION_METRIC")["trials"]
    assert [t["bestValidation"]["metrics"]["avgMetrics"]["loss"] for t in by_best] == [0.125, 0.25]
    assert [t["id"] for t in listed(orderBy="ORDER_BY_DESC")["trials"]] == trial_ids[::-1]
    page = listed(limit=1, offset=1)
    assert [t["id"] for t in page["trials"]] == trial_ids[1:] and page["pagination"]["total"] == 2
    assert listed(states="STATE_ERROR")["trials"] == []
    assert len(listed(states=["STATE_COMPLETED", "8"])["trials"]) == 2, "names or experimentv1.State numbers"
    bad = cluster.session.get(f"{cluster.master_url}/api/v1/experiments/{exp_id}/trials",
                              params={"sortBy": "SORT_BY_COLOR"}, timeout=30)
    assert bad.status_code == 400 and "sortBy" in bad.json()["error"]["error"]

    # download-code: the context as upstream names it.
    out_dir = tmp_path / "code"
    out_dir.mkdir()
    cluster.det("experiment", "download-code", str(exp_id), "--output-dir", str(out_dir))
    with tarfile.open(out_dir / f"experiment_{exp_id}_model_def.tgz") as tgz:
        assert {"search.py", "search.yaml"} <= {pathlib.PurePath(n).name for n in tgz.getnames()}
    missing = cluster.det("experiment", "download-code", "99999", check=False)
    assert missing.returncode == 1 and "99999" in missing.stderr


def test_bash_completion_knows_the_real_command_tree():
    script = det("completion", "bash").stdout

    def offered(*words):
        line = " ".join(f"'{w}'" for w in words)
        probe = f'{script}\nCOMP_WORDS=(det {line}); COMP_CWORD={len(words)}; _det_complete; echo "${{COMPREPLY[*]}}"'
        return subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True).stdout.split()

    assert {"experiment", "trial", "checkpoint", "master", "user"} <= set(offered(""))
    assert offered("e", "cre") == ["create"], "the alias e leads to experiment"
    assert "--follow" in offered("experiment", "create", "--f")
    assert {"--json", "--csv"} <= set(offered("checkpoint", "list", "--"))
    assert offered("trial", "logs", "--ta") == ["--tail"]


def test_a_config_override_replaces_the_value_at_its_key(cluster, tmp_path):
    """Upstream's `--config KEY=VALUE` sets KEY to VALUE: an object there is replaced, not merged into."""
    (tmp_path / "hp.py").write_text("import determined as det\nwith det.core.init() as ctx:\n    pass\n")
    (tmp_path / "hp.yaml").write_text("name: hp\nentrypoint: python3 hp.py\nsearcher: {name: single, metric: loss}\n"
                                      "max_restarts: 0\nhyperparameters: {lr: 0.1, layers: 2}\n")
    exp_id = cluster.create_experiment(tmp_path / "hp.yaml", tmp_path, "--config", "hyperparameters={lr: 0.5}",
                                       "--config", "hyperparameters.dropout=0.2")
    config = cluster.get(f"/api/v1/experiments/{exp_id}")["config"]
    assert config["hyperparameters"] == {"lr": {"type": "const", "val": 0.5},
                                         "dropout": {"type": "const", "val": 0.2}}, config["hyperparameters"]


def test_an_image_an_agent_without_a_container_engine_cannot_use_is_said_at_create_and_in_the_trial_log(cluster,
                                                                                                          tmp_path):
    (tmp_path / "img.py").write_text("print('ran on the host')\n")
    (tmp_path / "img.yaml").write_text("name: img\nentrypoint: python3 img.py\nsearcher: {name: single, metric: loss}\n"
                                       "max_restarts: 0\nenvironment: {image: my/train:1}\n")
    created = cluster.det("experiment", "create", str(tmp_path / "img.yaml"), str(tmp_path))
    note = "environment.image (my/train:1) is used only where tasks run in containers"
    assert created.stderr.count(note) == 1, created.stderr
    exp_id = int(re.search(r"Created experiment (\d+)", created.stdout).group(1))
    trial_id = wait_for(lambda: (cluster.trials(exp_id) or [None])[0], "the trial")["id"]
    cluster.wait_for_experiment(exp_id)
    logs = cluster.trial_logs(trial_id)
    assert "has no container engine (container_socket, DOCKER_HOST): environment.image my/train:1 is not used" in logs
    assert "ran on the host" in logs, logs


TEST_MODE_TRAIN = """
import determined as det
with det.core.init() as ctx:
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
    ctx.train.report_validation_metrics(steps_completed=1, metrics={"loss": 0.5})
    with ctx.checkpoint.store_path({"steps_completed": 1}) as (path, uuid):
        (path / "model.txt").write_text("weights")
    if FAIL:
        raise SystemExit("the test-mode trial fails here")
"""


def test_create_test_mode_checks_the_config_then_runs_a_short_copy(cluster, tmp_path):
    (tmp_path / "exp.yaml").write_text(
        "name: test-mode\nentrypoint: python3 train.py\nmax_restarts: 3\n"
        "searcher: {name: random, metric: loss, max_trials: 5}\nhyperparameters: {lr: {type: double, minval: 0, maxval: 1}}\n")
    (tmp_path / "train.py").write_text(TEST_MODE_TRAIN.replace("FAIL", "False"))
    ok = cluster.det("experiment", "create", "--test", str(tmp_path / "exp.yaml"), str(tmp_path))
    assert "Experiment configuration validation succeeded!" in ok.stdout, ok.stdout
    for stage in ("Scheduling task", "Testing training", "Testing validation", "Testing checkpointing"):
        assert f"{stage} ... ok" in ok.stdout, ok.stdout
    assert "Model definition test succeeded!" in ok.stdout, ok.stdout
    exp_id = int(re.search(r"Created test experiment (\d+)", ok.stdout).group(1))
    exp = cluster.get(f"/api/v1/experiments/{exp_id}")
    assert exp["config"]["searcher"]["name"] == "single" and exp["config"]["max_restarts"] == 0
    assert exp["experiment"]["description"] == "[test-mode] test-mode"

    (tmp_path / "train.py").write_text(TEST_MODE_TRAIN.replace("FAIL", "True"))
    failed = cluster.det("experiment", "create", "--test-mode", str(tmp_path / "exp.yaml"), str(tmp_path),
                         check=False)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "ended in state ERROR" in failed.stdout and "the test-mode trial fails here" in failed.stdout, failed.stdout

    (tmp_path / "bad.yaml").write_text("entrypoint: python3 train.py\nsearcher: {name: single, metric: loss}\nmax_restarts: -1\n")
    before = len(cluster.get("/api/v1/experiments")["experiments"])
    refused = cluster.det("experiment", "create", "--test", str(tmp_path / "bad.yaml"), str(tmp_path), check=False)
    assert refused.returncode != 0 and "max_restarts" in refused.stderr, refused.stderr
    assert len(cluster.get("/api/v1/experiments")["experiments"]) == before, "a refused config creates nothing"
