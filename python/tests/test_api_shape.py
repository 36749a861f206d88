"""The package has upstream's API shape, so users' scripts run unchanged."""

import inspect

import determined as det
from determined import core


def test_top_level_names():
    assert det.LOG_FORMAT == "%(levelname)s: [%(process)s] %(name)s: %(message)s"
    assert issubclass(det.InvalidHP, Exception)
    assert callable(det.get_cluster_info)
    assert det.ClusterInfo is not None and det.TrialInfo is not None
    assert det.core is core


def test_init_signature_is_keyword_only():
    sig = inspect.signature(core.init)
    params = sig.parameters
    for name in ("distributed", "checkpoint_storage", "preempt_mode", "tensorboard_mode"):
        assert name in params, name
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["preempt_mode"].default is core.PreemptMode.WorkersAskChief
    assert params["tensorboard_mode"].default is core.TensorboardMode.AUTO


def test_enums():
    assert core.PreemptMode.WorkersAskChief.value == "WORKERS_ASK_CHIEF"
    assert core.PreemptMode("CHIEF_ONLY") is core.PreemptMode.ChiefOnly
    assert core.EarlyExitReason.INVALID_HP.value == "EXITED_REASON_INVALID_HP"
    assert core.DownloadMode.NoSharedDownload.value == "NO_SHARED_DOWNLOAD"
    assert core.TensorboardMode.MANUAL.value == "MANUAL"
    assert core.Unit.EPOCHS.value == "EPOCHS"


def test_context_members():
    for cls, methods in [
        (
            core.TrainContext,
            [
                "report_training_metrics",
                "report_validation_metrics",
                "report_metrics",
                "report_progress",
                "report_early_exit",
                "set_status",
                "get_experiment_best_validation",
                "get_tensorboard_path",
                "upload_tensorboard_files",
            ],
        ),
        (
            core.CheckpointContext,
            ["store_path", "restore_path", "upload", "download", "get_metadata", "delete"],
        ),
        (core.PreemptContext, ["should_preempt", "acknowledge_preemption_signal"]),
        (
            core.DistributedContext,
            [
                "get_rank",
                "get_local_rank",
                "get_size",
                "get_num_agents",
                "gather",
                "gather_local",
                "allgather",
                "allgather_local",
                "broadcast",
                "broadcast_local",
                "from_torch_distributed",
            ],
        ),
    ]:
        for m in methods:
            assert callable(getattr(cls, m, None)), f"{cls.__name__}.{m}"


def test_store_path_signature():
    sig = inspect.signature(core.CheckpointContext.store_path)
    assert list(sig.parameters)[:2] == ["self", "metadata"]
    assert sig.parameters["shard"].kind is inspect.Parameter.KEYWORD_ONLY
