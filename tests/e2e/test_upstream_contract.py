"""Every endpoint the master serves, decoded by Determined 0.38.1's own client (issue 39).

A real cluster is seeded with experiments in several states (a completed one with metrics, checkpoints and
logs, a running one, a paused one, killed and canceled ones), trials, checkpoints, commands, notebooks,
shells, TensorBoards, a generic task, workspaces, projects, models and versions, templates, users, agents,
slots, jobs and pools. Then each endpoint is called once, in the order of the table below, and its reply is
decoded with the class of upstream's generated `bindings.py` that the stock client decodes it with
(`upstream.check_reply`): a failure names the endpoint, the field and the value.

The table is the list of what the master serves: `determined-master --print-routes` must list exactly its
routes (plus NOT_UPSTREAM's, which no upstream client calls), so a new endpoint without a row fails
`test_every_route_has_a_row`. Each row's binding must be the class upstream's own function for that method
and path decodes with (`test_each_row_names_upstreams_binding`), so the table cannot drift from the contract.
"""
import datetime
import json
import os
import pathlib
import re
import subprocess
import time
import uuid as uuidlib

import pytest
import requests

import upstream
from conftest import BIN, local_cluster, login, wait_for

upstream.require_client()

# Routes of ours that no upstream client calls, and why they are not checked against a binding.
NOT_UPSTREAM = {
    "GET ": "the web UI's entry (a redirect to /det/)",
    "GET /det/*": "the web UI's files",
    "GET /info": "upstream's unversioned master info, read by old clients; same body as GET /api/v1/master",
    "GET /tasks": "upstream's unversioned task map, read by old clients and the web UI",
    "GET /experiments/{experiment_id}/preview_gc": "upstream's unversioned checkpoint GC preview",
    "POST /api/v1/trials/{trial_id}/metrics/batch": "ours: our harness's batched metric reports",
    "GET /api/v1/checkpoints/{checkpoint_uuid}/model-versions": "ours: the web UI's checkpoint page",
    "GET /checkpoints/{checkpoint_uuid}": "upstream's unversioned checkpoint download (a tar.gz, not JSON)",
    "GET /debug/prom/metrics": "upstream's Prometheus exposition, read by Prometheus (tests/e2e/test_prometheus.py)",
    "GET /prom/det-state-metrics": "upstream's Prometheus join gauges, read by Prometheus (test_prometheus.py)",
    "GET /prom/det-http-sd-config": "upstream's Prometheus service discovery, read by Prometheus (test_prometheus.py)",
}


def _utc_day(offset):
    """Today's date in UTC (YYYY-MM-DD), moved by `offset` days."""
    return (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=offset)).strftime("%Y-%m-%d")


class Row:
    """One endpoint: how to call it on the seeded world and which binding its reply decodes as (None: the
    stock client reads nothing of the reply, so only its status is checked).

    p: the path parameters, each a world attribute name or a function of the world (default DEFAULT_PARAMS);
    query, body: a value or a function of the world; who: "admin", "user" (determined), "anon", or
    "task:NAME" (the allocation token of the world's `NAME` task); then(world, reply): saves what later rows
    need; stream: the reply is NDJSON `{"result": ...}` lines, each decoded as the binding ("first": only the
    first line is read, for streams that never end)."""

    def __init__(self, route, binding, p=None, query=None, body=None, who="admin", then=None, stream=False,
                 again=None):
        self.route, self.binding, self.p, self.query, self.body = route, binding, p or {}, query, body
        self.who, self.then, self.stream = who, then, stream
        # again="...": the same endpoint once more, in another state of the world (its test id says which).
        self.again = again
        self.id = f"{route} ({again})" if again else route


class Step:
    """Seeding between rows (wait for a state, release a trial, ...)."""

    def __init__(self, fn):
        self.fn = fn


DEFAULT_PARAMS = {
    "experiment_id": "main_exp", "trial_id": "main_trial", "task_id": "main_task", "allocation_id": "main_alloc",
    "checkpoint_uuid": "checkpoint", "agent_id": "agent", "slot_id": "slot", "user_id": "new_user_id",
    "username": "new_username", "model_name": "model", "model_version_num": "model_version", "label": "label",
    "resource_pool_name": "bound_pool", "workspace_id": "workspace", "key": "project_key",
}


def _value(w, v):
    return v(w) if callable(v) else v


# ---------------------------------------------------------------------------------------------
# Seeding.

TRIAL = r'''
import json, os, pathlib, sys, time
import determined as det

info = det.get_cluster_info()
here = pathlib.Path(info.trial.hparams["dir"])
name = info.trial.hparams["name"]
with det.core.init() as ctx:
    print("contract stdout line", flush=True)
    print("contract stderr line", file=sys.stderr, flush=True)
    ctx.train.report_training_metrics(steps_completed=1, metrics={"loss": 0.5})
    ctx.train.report_validation_metrics(steps_completed=2, metrics={"loss": 0.25})
    with ctx.checkpoint.store_path({"steps_completed": 2}) as (path, uuid):
        (path / "weights").write_text("w" * 100)
    (here / f"{name}.json").write_text(json.dumps({
        "token": os.environ["DET_SESSION_TOKEN"], "allocation": os.environ["DET_ALLOCATION_ID"],
        "task": os.environ["DET_TASK_ID"], "trial": info.trial.trial_id}))
    deadline = time.time() + 300
    while not (here / f"release-{name}").exists() and time.time() < deadline:
        time.sleep(0.1)
'''

STEPPER_YAML = "name: {name}\nentrypoint: python3 trial.py\nsearcher: {{name: single, metric: loss}}\n" \
               "hyperparameters: {{dir: {dir}, name: {name}}}\nmax_restarts: 0\n"


def _create(w, name):
    (w.dir / f"{name}.yaml").write_text(STEPPER_YAML.format(name=name, dir=json.dumps(str(w.dir))))
    return w.cluster.create_experiment(w.dir / f"{name}.yaml", w.dir)


def _task_facts(w, name):
    path = w.dir / f"{name}.json"
    return json.loads(wait_for(lambda: path.exists() and path.read_text(), f"the {name} task's facts", timeout=180))


def seed_running(w):
    """A completed-to-be experiment (main) and one to be killed (side), both running; a command that holds
    its own allocation token."""
    w.main_exp, w.side_exp = _create(w, "main"), _create(w, "side")
    main, side = _task_facts(w, "main"), _task_facts(w, "side")
    w.main_trial, w.main_task, w.main_alloc = main["trial"], main["task"], main["allocation"]
    w.side_trial, w.side_alloc = side["trial"], side["allocation"]
    w.tokens = {"main": main["token"], "side": side["token"]}
    w.checkpoint = w.get(f"/api/v1/experiments/{w.main_exp}/checkpoints")["checkpoints"][0]["uuid"]
    w.agent = w.get("/api/v1/agents")["agents"][0]["id"]
    w.slot = w.get(f"/api/v1/agents/{w.agent}/slots")["slots"][0]["id"]
    w.main_job = w.get(f"/api/v1/experiments/{w.main_exp}")["experiment"]["jobId"]


def wait_command_running(w):
    facts = w.dir / "command.txt"
    alloc, token = wait_for(lambda: facts.exists() and facts.read_text().split(), "the command's token", 120)
    w.command_alloc, w.tokens["command"] = alloc, token


def release_main(w):
    (w.dir / "release-main").touch()
    for exp, states in ((w.main_exp, ("STATE_COMPLETED",)), (w.side_exp, ("STATE_CANCELED", "STATE_COMPLETED"))):
        try:
            state = w.cluster.wait_for_experiment(exp, timeout=120)
        except AssertionError as e:
            state = str(e)
        assert state in states, f"experiment {exp}: {state}; the master's log ends:\n" + \
            "".join((w.cluster.data_dir / "master.log").read_text().splitlines(True)[-40:])


def create_bulk_experiment(w):
    resp = w.admin.post(f"{w.url}/api/v1/experiments", timeout=60,
                        json={"config": EXPERIMENT_CONFIG, "modelDefinition": [], "activate": False})
    resp.raise_for_status()
    w.bulk_exp = resp.json()["experiment"]["id"]


BULK_PROJECT = {"project_id": lambda w: 1}


def BULK_BODY(w):
    return {"experimentIds": [w.bulk_exp], "projectId": 1}


def create_second_workspace(w):
    resp = w.admin.post(f"{w.url}/api/v1/workspaces", json={"name": "contract-ws-dest"}, timeout=60)
    resp.raise_for_status()
    w.second_workspace = resp.json()["workspace"]["id"]


def wait_terminal(attr):
    def fn(w):
        w.cluster.wait_for_experiment(getattr(w, attr), timeout=180)
    return fn


def wait_task(attr, what, predicate):
    """A step: waits until predicate(the task's GET /api/v1/tasks/{id} reply) holds."""
    def fn(w):
        seen = []

        def check():
            seen[:] = [w.get(f"/api/v1/tasks/{getattr(w, attr)}")["task"]]
            return predicate(seen[0])
        try:
            wait_for(check, f"task {attr} {what}", 120)
        except AssertionError as e:
            raise AssertionError(f"{e}; last seen: {json.dumps(seen)[:1000]}") from None
    fn.__name__ = f"wait for {attr} {what}"
    return fn


def save(attr, *keys):
    """then=: stores reply[keys...] as world.attr."""
    def fn(w, reply):
        v = reply
        for k in keys:
            v = v[k]
        setattr(w, attr, v)
    return fn


# Its trial waits (until killed, at most a second after a pause asks it to stop) so that its pause, activate,
# cancel and kill never race an experiment that already ended.
EXPERIMENT_CONFIG = "name: created\nentrypoint: sleep 600\nsearcher: {name: single, metric: loss}\n" \
                    "preemption_timeout: 1\nhyperparameters: {dir: /nonexistent, name: created}\nmax_restarts: 0\n"
# A generic task that pauses when asked: it checks the preemption signal through the Core API.
GENERIC_TASK_SCRIPT = """import time, determined as det
with det.core.init() as ctx:
    while not ctx.preempt.should_preempt():
        time.sleep(0.2)
"""
GENERIC_TASK_CONFIG = f"entrypoint: {json.dumps(['python3', '-c', GENERIC_TASK_SCRIPT])}\nresources: {{slots: 0}}\n"
TEMPLATE_CONFIG = {"description": "contract", "resources": {"slots": 0}}

# ---------------------------------------------------------------------------------------------
# The table, in the order it runs.

TABLE = [
    # The master.
    Row("GET /api/v1/master", "v1GetMasterResponse", who="anon"),
    Row("GET /api/v1/master/config", "v1GetMasterConfigResponse"),
    Row("GET /health", "HealthCheck", who="anon"),
    Row("GET /api/v1/master/logs", "v1MasterLogsResponse", query={"limit": 5, "follow": "false"}, stream=True),
    Row("POST /api/v1/auth/login", "v1LoginResponse", who="anon",
        body={"username": "determined", "password": ""}),
    Row("GET /api/v1/me", "v1GetMeResponse", who="user"),
    Row("GET /api/v1/auth/user", "v1CurrentUserResponse", who="user"),
    # Access tokens (determined's own; user 2).
    Row("POST /api/v1/tokens", "v1PostAccessTokenResponse", who="user",
        body={"userId": 2, "lifespan": "720h", "description": "contract"},
        then=lambda w, r: setattr(w, "access_token_id", r["tokenId"])),
    Row("GET /api/v1/tokens", "v1GetAccessTokensResponse", who="user", query={"showInactive": "true"}),
    Row("PATCH /api/v1/tokens/{token_id}", "v1PatchAccessTokenResponse", who="user",
        p={"token_id": "access_token_id"}, body={"description": "contract edited", "setRevoked": True}),
    # Users.
    Row("POST /api/v1/users", "v1PostUserResponse",
        body={"user": {"username": "contract-user", "active": True, "admin": False}, "password": ""},
        then=lambda w, r: (setattr(w, "new_user_id", r["user"]["id"]), setattr(w, "new_username", "contract-user"))),
    Row("GET /api/v1/users", "v1GetUsersResponse"),
    Row("GET /api/v1/users/{user_id}", "v1GetUserResponse"),
    Row("GET /api/v1/users/{username}/by-username", "v1GetUserByUsernameResponse"),
    Row("PATCH /api/v1/users/{user_id}", "v1PatchUserResponse", body={"displayName": "Contract User"}),
    Row("POST /api/v1/users/{user_id}/password", "v1SetUserPasswordResponse", body="s3cret-Passw0rd"),

    # The running world: two trials, a command, a notebook, a shell, a TensorBoard, a generic task.
    Step(seed_running),
    Row("POST /api/v1/commands", "v1LaunchCommandResponse",
        body=lambda w: {"config": {"entrypoint": ["sh", "-c", f"echo $DET_ALLOCATION_ID $DET_SESSION_TOKEN > "
                                                              f"{w.dir}/command.txt; sleep 600"],
                                   "resources": {"slots": 0}}},
        then=save("command", "command", "id")),
    Step(wait_command_running),
    Row("GET /api/v1/commands", "v1GetCommandsResponse"),
    Row("GET /api/v1/commands/{id}", "v1GetCommandResponse", p={"id": "command"}),
    Row("POST /api/v1/commands/{id}/set_priority", "v1SetCommandPriorityResponse", p={"id": "command"},
        body={"priority": 30}),
    Row("POST /api/v1/notebooks", "v1LaunchNotebookResponse", body={"config": {"resources": {"slots": 0}}},
        then=save("notebook", "notebook", "id")),
    Row("GET /api/v1/notebooks", "v1GetNotebooksResponse"),
    Row("GET /api/v1/notebooks/{id}", "v1GetNotebookResponse", p={"id": "notebook"}),
    Row("POST /api/v1/notebooks/{id}/set_priority", "v1SetNotebookPriorityResponse", p={"id": "notebook"},
        body={"priority": 30}),
    Row("PUT /api/v1/notebooks/{id}/report_idle", None, p={"id": "notebook"}, body={"idle": False}),
    Row("POST /api/v1/shells", "v1LaunchShellResponse", body={"config": {"resources": {"slots": 0}}},
        then=save("shell", "shell", "id")),
    Row("GET /api/v1/shells", "v1GetShellsResponse"),
    Row("GET /api/v1/shells/{id}", "v1GetShellResponse", p={"id": "shell"}),
    Row("POST /api/v1/shells/{id}/set_priority", "v1SetShellPriorityResponse", p={"id": "shell"},
        body={"priority": 30}),
    # set_priority first: where tensorboard is not installed the TensorBoard ends within a tenth of a second.
    Row("POST /api/v1/tensorboards", "v1LaunchTensorboardResponse", body=lambda w: {"experimentIds": [w.main_exp]},
        then=save("tensorboard", "tensorboard", "id")),
    Row("POST /api/v1/tensorboards/{id}/set_priority", "v1SetTensorboardPriorityResponse", p={"id": "tensorboard"},
        body={"priority": 30}),
    Row("GET /api/v1/tensorboards", "v1GetTensorboardsResponse"),
    Row("GET /api/v1/tensorboards/{id}", "v1GetTensorboardResponse", p={"id": "tensorboard"}),
    Row("POST /api/v1/generic-tasks", "v1CreateGenericTaskResponse",
        body={"config": GENERIC_TASK_CONFIG, "contextDirectory": []}, then=save("generic_task", "taskId")),
    Row("GET /api/v1/tasks/{task_id}/config", "v1GetGenericTaskConfigResponse", p={"task_id": "generic_task"}),
    Step(wait_task("generic_task", "running",
                   lambda t: t["allocations"] and t["allocations"][-1]["state"] == "STATE_RUNNING")),
    Row("POST /api/v1/tasks/{task_id}/pause", None, p={"task_id": "generic_task"}),
    Step(wait_task("generic_task", "paused", lambda t: t["taskState"] == "GENERIC_TASK_STATE_PAUSED")),
    Row("POST /api/v1/tasks/{task_id}/unpause", None, p={"task_id": "generic_task"}),
    Row("GET /api/v1/tasks", "v1GetTasksResponse"),
    Row("GET /api/v1/tasks/count", "v1GetActiveTasksCountResponse"),
    Row("GET /api/v1/tasks/{task_id}", "v1GetTaskResponse"),
    Row("GET /api/v1/agents", "v1GetAgentsResponse"),
    Row("GET /api/v1/agents/{agent_id}", "v1GetAgentResponse"),
    Row("GET /api/v1/agents/{agent_id}/slots", "v1GetSlotsResponse"),
    Row("GET /api/v1/agents/{agent_id}/slots/{slot_id}", "v1GetSlotResponse"),
    Row("GET /api/v1/job-queues", "v1GetJobsResponse"),
    Row("GET /api/v1/job-queues-v2", "v1GetJobsV2Response"),
    Row("POST /api/v1/job-queues", None, body=lambda w: {"updates": [{"jobId": w.main_job, "priority": 42}]}),
    Row("GET /api/v1/resource-pools", "v1GetResourcePoolsResponse"),
    # Usage history over the seeded world (its allocations all started today or yesterday, UTC).
    Row("GET /api/v1/resources/allocation/raw", "v1ResourceAllocationRawResponse",
        query={"timestampAfter": "2000-01-01T00:00:00Z", "timestampBefore": "2100-01-01T00:00:00Z"}),
    Row("GET /api/v1/resources/allocation/aggregated", "v1ResourceAllocationAggregatedResponse",
        query=lambda w: {"startDate": _utc_day(-1), "endDate": _utc_day(0),
                         "period": "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY"}),
    Row("GET /api/v1/experiments/{experiment_id}", "v1GetExperimentResponse", p={"experiment_id": "side_exp"}),
    Row("GET /api/v1/trials/{trial_id}", "v1GetTrialResponse", p={"trial_id": "side_trial"}),
    Row("GET /api/v1/experiments", "v1GetExperimentsResponse", again="running"),
    Row("GET /api/v1/experiments/{experiment_id}/trials", "v1GetExperimentTrialsResponse", again="running"),
    # What a task calls with its allocation token.
    Row("GET /api/v1/allocations/{allocation_id}/signals/preemption", "v1AllocationPreemptionSignalResponse",
        who="task:main", query={"timeoutSeconds": 0}),
    Row("GET /api/v1/allocations/{allocation_id}/resources/{resources_id}/rendezvous",
        "v1AllocationRendezvousInfoResponse", who="task:main", p={"resources_id": "main_alloc"}),
    Row("GET /api/v1/tasks/{task_id}/context_directory", "v1GetTaskContextDirectoryResponse", who="task:main"),
    Row("POST /api/v1/runs/start", "v1RunPrepareForReportingResponse", who="task:main",
        body=lambda w: {"runId": w.main_trial}),
    Row("POST /api/v1/trials/{trial_id}/progress", None, who="task:main", body={"progress": 0.5, "isRaw": True}),
    Row("POST /api/v1/trials/{trial_id}/runner/metadata", None, who="task:main",
        body={"metadata": {"state": "contract"}}),
    Row("POST /api/v1/trials/{trial_id}/metrics", None, who="task:main",
        body=lambda w: {"metrics": {"trialId": w.main_trial, "trialRunId": 1, "stepsCompleted": 3,
                                    "metrics": {"avgMetrics": {"loss": 0.4}}}, "group": "training"}),
    Row("POST /api/v1/checkpoints", None, who="task:main",
        body=lambda w: {"checkpoint": {"uuid": str(uuidlib.uuid4()), "taskId": w.main_task,
                                       "allocationId": w.main_alloc, "reportTime": "2026-01-02T03:04:05Z",
                                       "resources": {"weights": "100"}, "metadata": {"steps_completed": 3},
                                       "state": "STATE_COMPLETED", "training": {}}}),
    Row("POST /api/v1/task/logs", None, who="task:main",
        body=lambda w: {"logs": [{"taskId": w.main_task, "allocationId": w.main_alloc, "log": "posted line\n",
                                  "stdtype": "stdout", "source": "task"}]}),
    Row("POST /api/v1/trials/{trial_id}/early_exit", None, who="task:side", p={"trial_id": "side_trial"},
        body=lambda w: {"earlyExit": {"reason": "EXITED_REASON_INVALID_HP"}}),
    Row("POST /api/v1/allocations/{allocation_id}/ready", None, who="task:command", p={"allocation_id": "command_alloc"}),
    Row("POST /api/v1/allocations/{allocation_id}/signals/ack_preemption", None, who="task:command",
        p={"allocation_id": "command_alloc"}),
    Row("POST /api/v1/trials/{trial_id}/kill", None, p={"trial_id": "side_trial"}),
    Row("POST /api/v1/experiments/{experiment_id}/kill", None, p={"experiment_id": "side_exp"}),
    Row("POST /api/v1/commands/{id}/kill", "v1KillCommandResponse", p={"id": "command"}),
    Row("POST /api/v1/notebooks/{id}/kill", "v1KillNotebookResponse", p={"id": "notebook"}),
    Row("POST /api/v1/shells/{id}/kill", "v1KillShellResponse", p={"id": "shell"}),
    Row("POST /api/v1/tensorboards/{id}/kill", "v1KillTensorboardResponse", p={"id": "tensorboard"}),
    Row("POST /api/v1/tasks/{task_id}/kill", None, p={"task_id": "generic_task"}),
    Step(release_main),
    Row("GET /api/v1/commands/{id}", "v1GetCommandResponse", p={"id": "command"}, again="killed"),
    Row("GET /api/v1/notebooks/{id}", "v1GetNotebookResponse", p={"id": "notebook"}, again="killed"),
    Row("GET /api/v1/shells/{id}", "v1GetShellResponse", p={"id": "shell"}, again="killed"),
    Row("GET /api/v1/tensorboards/{id}", "v1GetTensorboardResponse", p={"id": "tensorboard"}, again="killed"),
    Row("GET /api/v1/tasks/{task_id}", "v1GetTaskResponse", p={"task_id": "generic_task"}, again="killed"),
    Row("GET /api/v1/tasks", "v1GetTasksResponse", again="idle"),
    Row("GET /api/v1/agents", "v1GetAgentsResponse", again="idle"),
    Row("GET /api/v1/job-queues-v2", "v1GetJobsV2Response", again="idle"),

    # A completed experiment and its trial, metrics, checkpoints and logs.
    Row("GET /api/v1/experiments", "v1GetExperimentsResponse"),
    Row("GET /api/v1/experiments/{experiment_id}/checkpoints", "v1GetExperimentCheckpointsResponse"),
    Row("GET /api/v1/experiments/{experiment_id}/trials", "v1GetExperimentTrialsResponse"),
    Row("GET /api/v1/experiments/{experiment_id}/model_def", "v1GetModelDefResponse"),
    Row("GET /api/v1/experiments/{experiment_id}/searcher/best_searcher_validation_metric",
        "v1GetBestSearcherValidationMetricResponse"),
    Row("GET /api/v1/experiments/metrics-stream/metric-names", "v1ExpMetricNamesResponse",
        query=lambda w: {"ids": w.main_exp}, stream=True),
    Row("PATCH /api/v1/experiments/{experiment_id}", "v1PatchExperimentResponse",
        body={"notes": "contract notes", "description": "contract"}),
    Row("PUT /api/v1/experiments/{experiment_id}/labels/{label}", "v1PutExperimentLabelResponse",
        p={"label": lambda w: "contract-label"}),
    Row("DELETE /api/v1/experiments/{experiment_id}/labels/{label}", "v1DeleteExperimentLabelResponse",
        p={"label": lambda w: "contract-label"}),
    Row("POST /api/v1/experiments/{experiment_id}/archive", None),
    Row("POST /api/v1/experiments/{experiment_id}/unarchive", None),
    Row("GET /api/v1/trials/{trial_id}/checkpoints", "v1GetTrialCheckpointsResponse"),
    Row("GET /api/v1/trials/{trial_id}/workloads", "v1GetTrialWorkloadsResponse"),
    Row("GET /api/v1/trials/{trial_id}/logs", "v1TrialLogsResponse", stream=True),
    Row("GET /api/v1/trials/{trial_id}/logs/fields", "v1TrialLogsFieldsResponse", stream=True),
    Row("GET /api/v1/tasks/{task_id}/logs", "v1TaskLogsResponse", stream=True),
    Row("GET /api/v1/tasks/{task_id}/logs/fields", "v1TaskLogsFieldsResponse", stream=True),
    Row("GET /api/v1/trials/time-series", "v1CompareTrialsResponse",
        query=lambda w: {"trialIds": w.main_trial, "metricNames": "loss"}),
    Row("GET /api/v1/trials/metrics/trial_metrics", "v1GetMetricsResponse",
        query=lambda w: {"trialIds": w.main_trial, "group": "training"}, stream=True),
    Row("GET /api/v1/trials/metrics/training_metrics", "v1GetTrainingMetricsResponse",
        query=lambda w: {"trialIds": w.main_trial}, stream=True),
    Row("GET /api/v1/trials/metrics/validation_metrics", "v1GetValidationMetricsResponse",
        query=lambda w: {"trialIds": w.main_trial}, stream=True),
    Row("PUT /api/v1/experiments/{experiment_id}/retain_logs", None, body={"numDays": 30}),
    Row("PUT /api/v1/trials/{trial_id}/retain_logs", None, body={"numDays": 30}),
    Row("GET /api/v1/trials/{trial_id}/remaining_log_retention_days", "v1GetTrialRemainingLogRetentionDaysResponse"),
    Row("GET /api/v1/checkpoints/{checkpoint_uuid}", "v1GetCheckpointResponse"),
    Row("POST /api/v1/checkpoints/{checkpoint_uuid}/metadata", "v1PostCheckpointMetadataResponse",
        body=lambda w: {"checkpoint": {"uuid": w.checkpoint, "metadata": {"contract": "yes"}}}),
    Row("GET /api/v1/checkpoints/{checkpoint_uuid}/metrics", "v1GetTrialMetricsByCheckpointResponse"),
    Row("POST /api/v1/preview-hp-search", "v1PreviewHPSearchResponse",
        body={"config": {"entrypoint": "python3 train.py", "searcher": {"name": "grid", "metric": "loss", "max_length": {"batches": 10}},
                         "hyperparameters": {"lr": {"type": "categorical", "vals": [0.1, 0.2]}}}}),

    # An experiment created over REST, paused, activated, canceled, deleted; one continued.
    Row("POST /api/v1/experiments", "v1CreateExperimentResponse",
        body=lambda w: {"config": EXPERIMENT_CONFIG, "modelDefinition": [], "activate": False},
        then=save("created_exp", "experiment", "id")),
    Row("POST /api/v1/experiments/{experiment_id}/activate", None, p={"experiment_id": "created_exp"}),
    Row("POST /api/v1/experiments/{experiment_id}/pause", None, p={"experiment_id": "created_exp"}),
    Row("POST /api/v1/experiments/{experiment_id}/cancel", None, p={"experiment_id": "created_exp"}),
    Row("GET /api/v1/experiments/{experiment_id}", "v1GetExperimentResponse", p={"experiment_id": "created_exp"},
        again="stopping or canceled"),
    Step(wait_terminal("created_exp")),
    Row("GET /api/v1/experiments", "v1GetExperimentsResponse", again="paused, canceled, completed",
        query={"showTrialData": "true"}),
    Step(create_bulk_experiment),
    Row("POST /api/v1/projects/{project_id}/experiments/pause", "v1PauseExperimentsResponse", p=BULK_PROJECT,
        body=BULK_BODY),
    Row("POST /api/v1/projects/{project_id}/experiments/activate", "v1ActivateExperimentsResponse",
        p=BULK_PROJECT, body=BULK_BODY),
    Row("POST /api/v1/projects/{project_id}/experiments/cancel", "v1CancelExperimentsResponse", p=BULK_PROJECT,
        body=BULK_BODY),
    Row("POST /api/v1/projects/{project_id}/experiments/kill", "v1KillExperimentsResponse", p=BULK_PROJECT,
        body=BULK_BODY),
    Step(wait_terminal("bulk_exp")),
    Row("POST /api/v1/projects/{project_id}/experiments/archive", "v1ArchiveExperimentsResponse", p=BULK_PROJECT,
        body=BULK_BODY),
    Row("POST /api/v1/projects/{project_id}/experiments/unarchive", "v1UnarchiveExperimentsResponse",
        p=BULK_PROJECT, body=BULK_BODY),
    Row("GET /api/v1/projects/{id}/columns", "v1GetProjectColumnsResponse", p={"id": lambda w: 1}),
    Row("GET /api/v1/projects/{id}/experiments/metric-ranges", "v1GetProjectNumericMetricsRangeResponse",
        p={"id": lambda w: 1}),
    # Upstream's chart streams poll for ever (every periodSeconds): their first line is checked.
    Row("GET /api/v1/experiments/{experiment_id}/metrics-stream/batches", "v1MetricBatchesResponse",
        query={"metricName": "loss", "metricType": "METRIC_TYPE_VALIDATION", "periodSeconds": 1}, stream="first"),
    Row("GET /api/v1/experiments/{experiment_id}/metrics-stream/trials-snapshot", "v1TrialsSnapshotResponse",
        query={"metricName": "loss", "metricType": "METRIC_TYPE_VALIDATION", "batchesProcessed": 2,
               "periodSeconds": 1}, stream="first"),
    Row("GET /api/v1/experiments/{experiment_id}/metrics-stream/trials-sample", "v1TrialsSampleResponse",
        query={"metricName": "loss", "metricType": "METRIC_TYPE_VALIDATION", "periodSeconds": 1}, stream="first"),
    Step(lambda w: (w.dir / "release-side").touch()),
    Row("POST /api/v1/experiments/continue", "v1ContinueExperimentResponse",
        body=lambda w: {"id": w.side_exp, "overrideConfig": "max_restarts: 0\n"}),
    Step(wait_terminal("side_exp")),

    # Workspaces, projects, templates, models.
    Row("POST /api/v1/workspaces", "v1PostWorkspaceResponse", body={"name": "contract-ws"},
        then=save("workspace", "workspace", "id")),
    Row("GET /api/v1/workspaces", "v1GetWorkspacesResponse"),
    Row("GET /api/v1/workspaces/{id}", "v1GetWorkspaceResponse", p={"id": "workspace"}),
    Row("PATCH /api/v1/workspaces/{id}", "v1PatchWorkspaceResponse", p={"id": "workspace"},
        body={"name": "contract-ws-2"}),
    Row("POST /api/v1/workspaces/{id}/pin", None, p={"id": "workspace"}),
    Row("POST /api/v1/workspaces/{id}/unpin", None, p={"id": "workspace"}),
    Row("POST /api/v1/workspaces/{id}/projects", "v1PostProjectResponse", p={"id": "workspace"},
        body=lambda w: {"name": "contract-project", "workspaceId": w.workspace},
        then=lambda w, r: (setattr(w, "project", r["project"]["id"]), setattr(w, "project_key", r["project"]["key"]))),
    Row("GET /api/v1/workspaces/{id}/projects", "v1GetWorkspaceProjectsResponse", p={"id": "workspace"}),
    Row("GET /api/v1/workspaces/{workspace_id}/available-resource-pools", "v1ListRPsBoundToWorkspaceResponse"),
    Row("POST /api/v1/resource-pools/{resource_pool_name}/workspace-bindings", None,
        body=lambda w: {"workspaceIds": [w.workspace]}),
    Row("GET /api/v1/resource-pools/{resource_pool_name}/workspace-bindings", "v1ListWorkspacesBoundToRPResponse"),
    Row("PUT /api/v1/resource-pools/{resource_pool_name}/workspace-bindings", None,
        body=lambda w: {"workspaceIds": [w.workspace]}),
    Row("DELETE /api/v1/resource-pools/{resource_pool_name}/workspace-bindings", None,
        body=lambda w: {"workspaceIds": [w.workspace]}),
    # Groups and roles (RBAC's, served in basic mode too).
    Row("POST /api/v1/groups", "v1CreateGroupResponse", body=lambda w: {"name": "contract-group", "addUsers": [w.new_user_id]},
        then=save("group", "group", "groupId")),
    Row("POST /api/v1/groups/search", "v1GetGroupsResponse", body={"offset": 0, "limit": 10}),
    Row("GET /api/v1/groups/{group_id}", "v1GetGroupResponse", p={"group_id": "group"}),
    Row("PUT /api/v1/groups/{group_id}", "v1UpdateGroupResponse", p={"group_id": "group"},
        body={"name": "contract-group-2"}),
    Row("PATCH /api/v1/users/assignments", None,
        body=lambda w: {"userIds": [w.new_user_id], "addGroups": [w.group], "removeGroups": []}),
    Row("POST /api/v1/roles/add-assignments", None,
        body=lambda w: {"groupRoleAssignments": [{"groupId": w.group, "roleAssignment": {
            "role": {"roleId": 4}, "scopeWorkspaceId": w.workspace}}],
                        "userRoleAssignments": [{"userId": w.new_user_id, "roleAssignment": {
                            "role": {"roleId": 5}, "scopeCluster": True}}]}),
    Row("GET /api/v1/permissions/summary", "v1GetPermissionsSummaryResponse"),
    Row("POST /api/v1/roles/search", "v1ListRolesResponse", body={"offset": 0, "limit": 20}),
    Row("POST /api/v1/roles/search/by-assignability", "v1SearchRolesAssignableToScopeResponse",
        body=lambda w: {"offset": 0, "limit": 20, "workspaceId": w.workspace}),
    Row("POST /api/v1/roles/search/by-ids", "v1GetRolesByIDResponse", body={"roleIds": [4, 5]}),
    Row("GET /api/v1/roles/search/by-user/{user_id}", "v1GetRolesAssignedToUserResponse"),
    Row("GET /api/v1/roles/search/by-group/{group_id}", "v1GetRolesAssignedToGroupResponse", p={"group_id": "group"}),
    Row("GET /api/v1/roles/workspace/{workspace_id}", "v1GetGroupsAndUsersAssignedToWorkspaceResponse"),
    Row("POST /api/v1/roles/remove-assignments", None,
        body=lambda w: {"groupRoleAssignments": [{"groupId": w.group, "roleAssignment": {
            "role": {"roleId": 4}, "scopeWorkspaceId": w.workspace}}]}),
    Row("DELETE /api/v1/groups/{group_id}", None, p={"group_id": "group"}),
    Row("GET /api/v1/projects/{id}", "v1GetProjectResponse", p={"id": "project"}),
    Row("GET /api/v1/projects/key/{key}", "v1GetProjectByKeyResponse"),
    Row("PATCH /api/v1/projects/{id}", "v1PatchProjectResponse", p={"id": "project"},
        body={"description": "contract project"}),
    Row("POST /api/v1/projects/{project_id}/notes", "v1AddProjectNoteResponse", p={"project_id": "project"},
        body={"name": "note", "contents": "text"}),
    Row("PUT /api/v1/projects/{project_id}/notes", "v1PutProjectNotesResponse", p={"project_id": "project"},
        body=lambda w: {"notes": [{"name": "note", "contents": "text 2"}], "projectId": w.project}),
    Row("POST /api/v1/experiments/{experiment_id}/move", None,
        body=lambda w: {"destinationProjectId": w.project, "experimentId": w.main_exp}),
    Row("POST /api/v1/projects/{project_id}/experiments/move", "v1MoveExperimentsResponse", p={"project_id": "project"},
        body=lambda w: {"experimentIds": [w.main_exp], "destinationProjectId": 1, "projectId": w.project}),
    Row("PUT /api/v1/projects/{project_id}/experiments/retain_logs", "v1PutExperimentsRetainLogsResponse",
        p={"project_id": lambda w: 1}, body=lambda w: {"experimentIds": [w.main_exp], "numDays": 30, "projectId": 1}),
    Row("POST /api/v1/projects/{id}/archive", None, p={"id": "project"}),
    Row("POST /api/v1/projects/{id}/unarchive", None, p={"id": "project"}),
    Step(create_second_workspace),
    Row("POST /api/v1/projects/{project_id}/move", None, p={"project_id": "project"},
        body=lambda w: {"destinationWorkspaceId": w.second_workspace, "projectId": w.project}),
    Row("POST /api/v1/templates/{name}", "v1PostTemplateResponse", p={"name": lambda w: "contract-tpl"},
        body={"config": TEMPLATE_CONFIG, "workspaceId": 1}),
    Row("GET /api/v1/templates", "v1GetTemplatesResponse"),
    Row("GET /api/v1/templates/{name}", "v1GetTemplateResponse", p={"name": lambda w: "contract-tpl"}),
    Row("PUT /api/v1/templates/{name}", "v1PutTemplateResponse", p={"name": lambda w: "contract-tpl"},
        body={"config": TEMPLATE_CONFIG, "workspaceId": 1}),
    Row("PATCH /api/v1/templates/{name}", "v1PatchTemplateConfigResponse", p={"name": lambda w: "contract-tpl"},
        body=TEMPLATE_CONFIG),
    Row("PATCH /api/v1/template/rename", "v1PatchTemplateNameResponse",
        body={"oldName": "contract-tpl", "newName": "contract-tpl-2"}),
    Row("DELETE /api/v1/templates/{name}", None, p={"name": lambda w: "contract-tpl-2"}),
    Row("POST /api/v1/models", "v1PostModelResponse", body={"name": "contract-model", "labels": ["a"]},
        then=lambda w, r: setattr(w, "model", "contract-model")),
    Row("GET /api/v1/models", "v1GetModelsResponse"),
    Row("GET /api/v1/model/labels", "v1GetModelLabelsResponse"),
    Row("GET /api/v1/models/{model_name}", "v1GetModelResponse"),
    Row("PATCH /api/v1/models/{model_name}", "v1PatchModelResponse", body={"description": "contract model"}),
    Row("POST /api/v1/models/{model_name}/versions", "v1PostModelVersionResponse",
        body=lambda w: {"checkpointUuid": w.checkpoint, "modelName": w.model},
        then=save("model_version", "modelVersion", "version")),
    Row("GET /api/v1/models/{model_name}/versions", "v1GetModelVersionsResponse"),
    Row("GET /api/v1/models/{model_name}/versions/{model_version_num}", "v1GetModelVersionResponse"),
    Row("PATCH /api/v1/models/{model_name}/versions/{model_version_num}", "v1PatchModelVersionResponse",
        body={"comment": "contract version"}),
    Row("POST /api/v1/trial-source-info", "v1ReportTrialSourceInfoResponse",
        body=lambda w: {"trialSourceInfo": {"trialId": w.main_trial, "checkpointUuid": w.checkpoint,
                                            "trialSourceInfoType": "TRIAL_SOURCE_INFO_TYPE_INFERENCE"}}),
    Row("GET /api/v1/models/{model_name}/versions/{model_version_num}/metrics",
        "v1GetTrialMetricsByModelVersionResponse"),
    Row("POST /api/v1/models/{model_name}/archive", None),
    Row("POST /api/v1/models/{model_name}/unarchive", None),
    Row("POST /api/v1/models/{model_name}/move", None,
        body=lambda w: {"destinationWorkspaceId": w.workspace, "modelName": w.model}),
    Row("DELETE /api/v1/models/{model_name}/versions/{model_version_num}", None),
    Row("DELETE /api/v1/models/{model_name}", None),

    # Agents and slots, switched off and on.
    Row("POST /api/v1/agents/{agent_id}/slots/{slot_id}/disable", "v1DisableSlotResponse"),
    Row("POST /api/v1/agents/{agent_id}/slots/{slot_id}/enable", "v1EnableSlotResponse"),
    Row("POST /api/v1/agents/{agent_id}/disable", "v1DisableAgentResponse"),
    Row("POST /api/v1/agents/{agent_id}/enable", "v1EnableAgentResponse"),

    # What deletes comes last.
    Row("PATCH /api/v1/checkpoints", None,
        body=lambda w: {"checkpoints": [{"uuid": w.checkpoint, "resources": {"resources": {"weights": "100"}}}]}),
    Row("POST /api/v1/checkpoints/rm", None,
        body=lambda w: {"checkpointUuids": [w.checkpoint], "checkpointGlobs": ["nothing-matches-*"]}),
    Row("DELETE /api/v1/checkpoints", None, body=lambda w: {"checkpointUuids": [w.checkpoint]}),
    Row("DELETE /api/v1/experiments/{experiment_id}/tensorboard-files", None, p={"experiment_id": "created_exp"}),
    Row("DELETE /api/v1/experiments/{experiment_id}", None, p={"experiment_id": "created_exp"}),
    Row("DELETE /api/v1/projects/{project_id}/experiments/delete", "v1DeleteExperimentsResponse", p=BULK_PROJECT,
        body=BULK_BODY),
    Row("DELETE /api/v1/projects/{id}", "v1DeleteProjectResponse", p={"id": "project"}),
    Row("POST /api/v1/workspaces/{id}/archive", None, p={"id": "workspace"}),
    Row("POST /api/v1/workspaces/{id}/unarchive", None, p={"id": "workspace"}),
    Row("DELETE /api/v1/workspaces/{id}", "v1DeleteWorkspaceResponse", p={"id": "workspace"}),
    Row("POST /api/v1/cleanup_logs", "v1CleanupLogsResponse"),
    Row("POST /api/v1/auth/logout", None, who="user"),
]

ROWS = [r for r in TABLE if isinstance(r, Row)]


# ---------------------------------------------------------------------------------------------
# Running the table.

class World:
    def get(self, path, **kw):
        resp = self.admin.get(self.url + path, timeout=60, **kw)
        resp.raise_for_status()
        return resp.json()


def _call(w, row):
    method, pattern = row.route.split(" ", 1)
    params = {**DEFAULT_PARAMS, **row.p}

    def fill(m):
        v = params[m.group(1)]
        return str(v(w) if callable(v) else getattr(w, v))
    path = re.sub(r"\{(\w+)\}", fill, pattern)
    headers = {}
    if row.who.startswith("task:"):
        session = requests
        headers["Grpc-Metadata-x-allocation-token"] = "Bearer " + w.tokens[row.who[5:]]
    else:
        session = {"admin": w.admin, "user": w.user, "anon": requests}[row.who]
    body = _value(w, row.body)
    resp = session.request(method, w.url + path, params=_value(w, row.query), headers=headers, timeout=60,
                           json=body, stream=row.stream)
    return f"{method} {path}", resp


def _reply(w, row):
    """(where, status, text, decoded body or the stream's decoded lines)."""
    where, resp = _call(w, row)
    if row.stream:
        lines = None
        if resp.ok:
            lines = []
            for line in resp.iter_lines():
                if line:
                    lines.append(json.loads(line))
                    if row.stream == "first":
                        break
        resp.close()
        return where, resp.status_code, None if resp.ok else resp.text, lines
    body = resp.json() if resp.headers.get("Content-Type", "").startswith("application/json") else None
    if row.then and resp.ok:
        row.then(w, body)
    return where, resp.status_code, resp.text, body


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    data = tmp_path_factory.mktemp("contract")
    config = "resource_pools: [{pool_name: default}, {pool_name: bound}]\n"
    with local_cluster(data, agents=1, slots=2, master_config=config) as cluster:
        w = World()
        w.cluster, w.url = cluster, cluster.master_url
        w.admin, w.user = login(cluster, "admin"), login(cluster, "determined")
        w.dir = tmp_path_factory.mktemp("contract-model")
        (w.dir / "trial.py").write_text(TRIAL)
        w.bound_pool = "bound"
        w.replies, w.step_errors = {}, []
        try:
            for entry in TABLE:
                # A step or call that fails is recorded, and the table goes on: each row's test then says
                # what it got, rather than one seeding problem hiding every other reply.
                try:
                    if isinstance(entry, Step):
                        entry.fn(w)
                    else:
                        w.replies[entry.id] = _reply(w, entry)
                except Exception as e:  # noqa: BLE001
                    what = entry.fn.__name__ if isinstance(entry, Step) else entry.id
                    w.step_errors.append(f"{what}: {type(e).__name__}: {e}")
                    if isinstance(entry, Row):
                        w.replies[entry.id] = (entry.id, None, f"{type(e).__name__}: {e}", None)
        finally:
            for name in ("main", "side"):
                (w.dir / f"release-{name}").touch()
        yield w


def _served_routes(tmp_path):
    out = subprocess.run([str(BIN / "determined-master"), "--data-dir", str(tmp_path), "--port", "0",
                          "--print-routes"], capture_output=True, text=True, timeout=60, check=True).stdout
    return [line for line in out.splitlines()]


def _upstream_operations():
    """{(METHOD, path with {} for each parameter): (function name, class its reply decodes as or None)}, read
    from the client's bindings.py."""
    source = pathlib.Path(upstream.bindings().__file__).read_text()
    ops = {}
    for m in re.finditer(r"^def ([a-z]+_\w+)\(\n(.*?)(?=^def |\Z)", source, re.S | re.M):
        body = m.group(2)
        method, path = re.search(r'method="(\w+)"', body), re.search(r'path=f?"([^"]+)"', body)
        if not method or not path:
            continue
        decoded = re.search(r'(\w+)\.from_json\(_(?:resp\.json\(\)|j\["result"\])\)', body)
        key = (method.group(1), re.sub(r"\{[^}]*\}", "{}", path.group(1)))
        ops[key] = (m.group(1), decoded.group(1) if decoded else None, '_j["result"]' in body)
    return ops


def _key(route):
    method, pattern = route.split(" ", 1)
    return method, re.sub(r"\{[^}]*\}", "{}", pattern)


def test_every_route_has_a_row(tmp_path):
    served = _served_routes(tmp_path)
    rows = [r.route for r in ROWS if not r.again]
    assert len(rows) == len(set(rows)), "a route has two rows (a second call of it says again=...)"
    missing = [r for r in served if r not in rows and r not in NOT_UPSTREAM]
    stale = [r for r in rows + list(NOT_UPSTREAM) if r not in served]
    assert not missing, "routes the master serves without a row in TABLE (say which binding decodes them):\n" + \
        "\n".join(missing)
    assert not stale, "rows for routes the master does not serve:\n" + "\n".join(stale)


def test_each_row_names_upstreams_binding():
    ops = _upstream_operations()
    wrong = []
    for row in ROWS:
        op = ops.get(_key(row.route))
        if op is None:
            wrong.append(f"{row.route}: upstream's client has no such call (move it to NOT_UPSTREAM?)")
        elif (op[1], op[2]) != (row.binding, bool(row.stream)):
            wrong.append(f"{row.route}: upstream's {op[0]} decodes {op[1]} (stream={op[2]}); "
                         f"the row says {row.binding} (stream={row.stream})")
    for route in NOT_UPSTREAM:
        if _key(route) in ops:
            wrong.append(f"{route}: upstream's client calls it ({ops[_key(route)][0]}); it needs a row")
    assert not wrong, "\n".join(wrong)


def test_the_world_was_seeded(world):
    assert not world.step_errors, "\n".join(world.step_errors)


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_reply_decodes_with_upstreams_binding(world, row):
    where, status, text, body = world.replies[row.id]
    assert status == 200, f"{where}: HTTP {status}: {text[:2000] if text else ''}"
    if row.binding is None:
        return
    if row.stream:
        assert body, f"{where}: the stream sent no line"
        problems = []
        for i, line in enumerate(body):
            if "result" not in line:
                problems.append(f"{where} line {i}: not {{\"result\": ...}}: {json.dumps(line)[:500]}")
            else:
                problems += upstream.reply_problems(row.binding, line["result"], f"{where} line {i}")
        assert not problems, "\n".join(problems[:30])
    else:
        upstream.check_reply(row.binding, body, where)


def test_the_checker_catches_what_the_stock_client_trips_on(world):
    """Real replies, each spoiled in one way the stock client (or a user of its objects) would trip on."""
    import copy

    def spoiled(route, change):
        _, _, _, body = world.replies[route]
        body = copy.deepcopy(body)
        change(body)
        return body

    cases = {
        "a task state as a container state": (
            "GET /api/v1/commands/{id}", "v1GetCommandResponse",
            lambda b: b["command"]["container"].update(state="STATE_QUEUED"), "is not a value of containerv1State"),
        "a missing map": (
            "POST /api/v1/workspaces", "v1PostWorkspaceResponse",
            lambda b: b.pop("namespaceBindings"), "namespaceBindings: missing"),
        "a null list": (
            "GET /api/v1/experiments/{experiment_id}/trials", "v1GetExperimentTrialsResponse",
            lambda b: b.update(trials=None), "trials: null"),
        "a missing required field": (
            "GET /api/v1/experiments/{experiment_id}", "v1GetExperimentResponse",
            lambda b: b["experiment"].pop("state"), "state: missing"),
        "an int64 as a number": (
            "GET /api/v1/checkpoints/{checkpoint_uuid}", "v1GetCheckpointResponse",
            lambda b: b["checkpoint"]["resources"].update(weights=100), "is not a JSON string"),
        "a timestamp that is not RFC 3339": (
            "GET /api/v1/trials/{trial_id}", "v1GetTrialResponse",
            lambda b: b["trial"].update(startTime="2026-11-28 08:00:00"), "is not an RFC 3339 timestamp"),
    }
    for what, (route, binding, change, expected) in cases.items():
        assert not upstream.reply_problems(binding, world.replies[route][3], route), f"{route} is not good to start"
        problems = upstream.reply_problems(binding, spoiled(route, change), route)
        assert any(expected in p for p in problems), f"{what}: the checker said {problems}"
