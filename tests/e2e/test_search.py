"""Hyperparameter search end to end on the digits example (real master, agent, PyTorch trials):
adaptive ASHA stops weak trials early, grid creates its grid, random search is reproducible from the
experiment seed, and a validation without the searcher metric errors a halving search (single, grid and
random go on without it, as upstream's)."""
import json

from conftest import REPO

DIGITS = REPO / "examples/digits"


def best_accuracy(trial):
    best = trial["bestValidation"]
    return best["metrics"]["avgMetrics"]["accuracy"] if best else 0.0


def test_adaptive_asha_stops_weak_trials_early_and_finds_a_good_model(cluster):
    exp_id = cluster.create_experiment(DIGITS / "adaptive.yaml", DIGITS)
    assert cluster.wait_for_experiment(exp_id, timeout=900) == "STATE_COMPLETED"

    trials = cluster.trials(exp_id)
    assert len(trials) == 16
    assert {t["state"] for t in trials} == {"STATE_COMPLETED"}
    batches = [t["totalBatchesProcessed"] for t in trials]
    max_time = 800
    # Weak trials were stopped at a lower rung, so far less was trained than 16 full trials.
    assert max(batches) == max_time, batches
    assert sum(batches) < len(trials) * max_time / 2, batches
    assert sum(b < max_time for b in batches) >= 8, batches
    assert max(best_accuracy(t) for t in trials) >= 0.95
    # Every trial got its own sampled hyperparameters within the configured ranges.
    for t in trials:
        hp = t["hparams"]
        assert 10 ** -2.5 <= hp["learning_rate"] <= 10 ** -0.5
        assert 16 <= hp["hidden_size"] <= 256
        assert hp["global_batch_size"] in (16, 32, 64)
    experiment = cluster.get(f"/api/v1/experiments/{exp_id}")["experiment"]
    assert experiment["progress"] == 1.0


def test_grid_creates_every_grid_point_once(cluster):
    exp_id = cluster.create_experiment(DIGITS / "grid.yaml", DIGITS)
    assert cluster.wait_for_experiment(exp_id, timeout=600) == "STATE_COMPLETED"
    points = sorted((round(t["hparams"]["learning_rate"], 6), t["hparams"]["hidden_size"])
                    for t in cluster.trials(exp_id))
    assert points == [(0.01, 32), (0.01, 128), (0.1, 32), (0.1, 128)]
    described = cluster.det("trial", "describe", str(cluster.trials(exp_id)[0]["id"]), "--metrics").stdout
    assert "Workloads:" in described and "accuracy=" in described and "Workload Metrics" in described, described

    # Warm start: a new experiment's trial begins from a grid trial's latest checkpoint.
    source = cluster.trials(exp_id)[0]
    warm_id = cluster.create_experiment(DIGITS / "const.yaml", DIGITS, "--config", f"searcher.source_trial_id={source['id']}")
    assert cluster.wait_for_experiment(warm_id, timeout=300) == "STATE_COMPLETED"
    warm_trial = cluster.trials(warm_id)[0]
    logs = cluster.trial_logs(warm_trial["id"])
    checkpoints = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    latest = [c["uuid"] for c in checkpoints if c["training"]["trialId"] == source["id"]][-1]
    assert f"resumed from checkpoint {latest} at step 90" in logs, logs[-2000:]


def test_random_search_is_reproducible_from_the_experiment_seed(cluster):
    def sampled(seed):
        exp_id = cluster.create_experiment(DIGITS / "random.yaml", DIGITS, "--paused",
                        "--config", f"reproducibility.experiment_seed={seed}")
        trials = cluster.trials(exp_id)
        cluster.det("experiment", "kill", str(exp_id))
        return [t["hparams"] for t in trials]

    first, again, other = sampled(42), sampled(42), sampled(43)
    assert len(first) == 2  # max_concurrent_trials of the 4
    assert first == again
    assert first != other


MISSING_METRIC = """
import determined as det

with det.core.init() as ctx:
    ctx.train.report_validation_metrics(steps_completed=1, metrics={"loss": 0.5})
"""


def test_validation_without_the_searcher_metric(cluster, tmp_path):
    (tmp_path / "report.py").write_text(MISSING_METRIC)
    searchers = {"single": "{name: single, metric: accuracy}",
                 "asha": "{name: adaptive_asha, metric: accuracy, max_trials: 1, time_metric: batches, max_time: 10}"}
    ended = {}
    for name, searcher in searchers.items():
        (tmp_path / f"{name}.yaml").write_text(
            f"name: missing-metric-{name}\nentrypoint: python3 report.py\nsearcher: {searcher}\nmax_restarts: 0\n")
        exp_id = cluster.create_experiment(tmp_path / f"{name}.yaml", tmp_path)
        state = cluster.wait_for_experiment(exp_id, timeout=300)
        trial = cluster.trials(exp_id)[0]
        ended[name] = (state, trial["id"], cluster.trial_logs(trial["id"]))
    # single does not rank by the metric: it goes on, and the trial's log says what was missing.
    state, trial_id, logs = ended["single"]
    assert state == "STATE_COMPLETED", logs[-2000:]
    assert f'Trial {trial_id}: its validation metrics do not include the searcher metric "accuracy"' in logs
    # adaptive_asha cannot rank the trial without it: the experiment errors, naming it.
    state, trial_id, logs = ended["asha"]
    assert state == "STATE_ERROR", logs[-2000:]
    assert f"Trial {trial_id}" in logs and '"accuracy"' in logs, logs[-2000:]


def test_preview_search_shows_the_plan_without_running_anything(cluster):
    before = cluster.get("/api/v1/experiments")["pagination"]["total"]
    text = cluster.det("preview-search", str(DIGITS / "adaptive.yaml")).stdout
    assert "adaptive_asha" in text and "800" in text, text
    answer = json.loads(cluster.det("preview-search", str(DIGITS / "adaptive.yaml"), "--json").stdout)
    assert sum(t["count"] for t in answer["summary"]["trials"]) == 16
    assert max(t["unit"]["value"] for t in answer["summary"]["trials"]) == 800
    grid = json.loads(cluster.det("preview-search", str(DIGITS / "grid.yaml"), "--json").stdout)
    assert grid["summary"]["trials"][0]["count"] == 4
    assert cluster.get("/api/v1/experiments")["pagination"]["total"] == before


INVALID_HP = """
import determined as det

info = det.get_cluster_info()
with det.core.init() as ctx:
    if info.trial.hparams["x"] > 3:
        raise det.InvalidHP("x must be at most 3")
    ctx.train.report_validation_metrics(steps_completed=1, metrics={"loss": info.trial.hparams["x"]})
"""


def test_random_search_replaces_trials_that_exit_with_invalid_hp(cluster, tmp_path):
    (tmp_path / "invalid.py").write_text(INVALID_HP)
    (tmp_path / "exp.yaml").write_text(
        "name: invalid-hp\nentrypoint: python3 invalid.py\nmax_restarts: 0\n"
        "hyperparameters: {x: {type: int, minval: 1, maxval: 6}}\n"
        "reproducibility: {experiment_seed: 5}\n"
        "searcher: {name: random, metric: loss, max_trials: 3, max_concurrent_trials: 2}\n")
    exp_id = cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"
    trials = cluster.trials(exp_id)
    valid = [t for t in trials if t["hparams"]["x"] <= 3]
    invalid = [t for t in trials if t["hparams"]["x"] > 3]
    assert len(valid) == 3, [t["hparams"] for t in trials]  # every invalid trial was replaced
    assert invalid, "seed 5 samples some x > 3"
    assert all(t["bestValidation"] is None for t in invalid)
    assert {t["state"] for t in trials} == {"STATE_COMPLETED"}
