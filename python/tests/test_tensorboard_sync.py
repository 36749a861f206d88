"""A trial's TensorBoard files reach its experiment's checkpoint storage.

The trial here is the real harness (``det.core.init()`` in a trial's environment, libdetermined
underneath) against a recording HTTP server standing in for the master; the checkpoint storage is a
real shared_fs directory. The files are written by hand: any file under
``get_tensorboard_path()`` counts, whichever library wrote it (TensorBoard and tensorboardX are not
installed here).
"""

import json
import os
import pathlib
import tempfile

import pytest

import determined as det
from determined import _info, core
from determined._native import native


@pytest.fixture
def trial(stand_in_master, trial_env, monkeypatch, tmp_path):
    """A trial's environment whose master is a local stand-in and whose storage is shared_fs."""
    storage = tmp_path / "storage"
    config = json.loads(trial_env["DET_EXPERIMENT_CONFIG"])
    config["checkpoint_storage"] = {"type": "shared_fs", "host_path": str(storage)}
    monkeypatch.setenv("DET_EXPERIMENT_CONFIG", json.dumps(config))
    # get_tensorboard_path() is under the temp dir: this test's own.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    _info._reset_cluster_info_for_test()
    yield storage / "tensorboard" / "experiment" / "3" / "trial" / "7"


def _stat(path: pathlib.Path):
    st = path.stat()
    return (st.st_ino, st.st_mtime_ns)


def test_reports_upload_new_and_changed_files_and_close_uploads_the_rest(trial, tmp_path):
    with det.core.init() as core_context:
        train = core_context.train
        tb = train.get_tensorboard_path()
        assert tb == tmp_path / "tmp" / "tensorboard-1.1.1-0"
        assert tb.is_dir()
        (tb / "events.out.tfevents.1.host").write_bytes(b"step 1\n")
        (tb / "plugins" / "profile").mkdir(parents=True)
        (tb / "plugins" / "profile" / "trace.json").write_text("{}")

        train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
        train._tb_sync.flush()  # waits for the upload the report asked for (starts none itself)
        assert (trial / "events.out.tfevents.1.host").read_bytes() == b"step 1\n"
        assert (trial / "plugins" / "profile" / "trace.json").read_text() == "{}"
        trace_before = _stat(trial / "plugins" / "profile" / "trace.json")
        assert train._tb_sync.stats()["files_uploaded"] == 2

        with (tb / "events.out.tfevents.1.host").open("ab") as f:
            f.write(b"step 2\n")
        train.report_validation_metrics(steps_completed=2, metrics={"accuracy": 0.5})
        train._tb_sync.flush()
        assert (trial / "events.out.tfevents.1.host").read_bytes() == b"step 1\nstep 2\n"
        assert _stat(trial / "plugins" / "profile" / "trace.json") == trace_before, (
            "an unchanged file is not uploaded again"
        )
        assert train._tb_sync.stats()["files_uploaded"] == 3

        # Reports with nothing new upload nothing.
        train.report_metrics("inference", 3, {"latency": 0.1})
        train._tb_sync.flush()
        assert train._tb_sync.stats()["files_uploaded"] == 3

        (tb / "late.txt").write_text("written after the last report")
    # Leaving the block uploads what changed since.
    assert (trial / "late.txt").read_text() == "written after the last report"
    assert sorted(str(p.relative_to(trial)) for p in trial.rglob("*") if p.is_file()) == [
        "events.out.tfevents.1.host",
        "late.txt",
        "plugins/profile/trace.json",
    ]


def test_upload_tensorboard_files_uploads_at_once_with_selector_and_mangler(trial):
    with det.core.init(tensorboard_mode=core.TensorboardMode.MANUAL) as core_context:
        train = core_context.train
        tb = train.get_tensorboard_path()
        (tb / "events.1").write_text("e")
        (tb / "skip.tmp").write_text("t")
        train.report_training_metrics(steps_completed=1, metrics={"loss": 1.0})
        train._tb_sync.flush()
        assert not trial.exists(), "MANUAL: reports upload nothing"

        train.upload_tensorboard_files(
            selector=lambda p: p.suffix != ".tmp",
            mangler=lambda p, rank: pathlib.Path(f"rank{rank}") / p,
        )
        assert (trial / "rank0" / "events.1").read_text() == "e"
        assert not (trial / "rank0" / "skip.tmp").exists()

        train.upload_tensorboard_files()
        assert (trial / "events.1").read_text() == "e"
        assert (trial / "skip.tmp").read_text() == "t"

        (tb / "after.txt").write_text("a")
    assert not (trial / "after.txt").exists(), "MANUAL: closing uploads nothing"


def test_a_mangled_name_must_stay_under_the_trials_directory(trial):
    with det.core.init() as core_context:
        tb = core_context.train.get_tensorboard_path()
        (tb / "events.1").write_text("e")
        with pytest.raises(ValueError, match="stored file path"):
            core_context.train.upload_tensorboard_files(mangler=lambda p, rank: pathlib.Path("..") / p)


def test_an_unusable_storage_warns_and_training_goes_on(trial_env, monkeypatch, tmp_path, caplog):
    config = json.loads(trial_env["DET_EXPERIMENT_CONFIG"])
    config["checkpoint_storage"] = {"type": "gcs", "bucket": "b"}
    monkeypatch.setenv("DET_EXPERIMENT_CONFIG", json.dumps(config))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _info._reset_cluster_info_for_test()
    info = det.get_cluster_info()
    from determined.core._context import _tensorboard_sync

    assert _tensorboard_sync(info, tmp_path / "tb") is None
    assert "TensorBoard files will not be uploaded" in caplog.text
    assert "gcs" in caplog.text


def test_off_cluster_files_stay_local(tmp_path, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="determined.core"):
        with det.core._dummy_init(checkpoint_storage=str(tmp_path / "ckpt"),
                                  tensorboard_path=tmp_path / "tb") as core_context:
            assert core_context.train.get_tensorboard_path() == tmp_path / "tb"
            core_context.train.upload_tensorboard_files()
    assert "TensorBoard files stay in" in caplog.text


def test_native_storage_files_under_a_prefix(tmp_path):
    """The storage calls the TensorBoard runner uses, through the Python binding."""
    storage = native().StorageManager(json.dumps({"type": "shared_fs", "host_path": str(tmp_path / "s")}))
    (tmp_path / "src" / "d").mkdir(parents=True)
    (tmp_path / "src" / "d" / "f").write_text("x")
    assert storage.upload_directory(str(tmp_path / "src"), "tensorboard/experiment/1/trial/2/") == 1
    files = storage.list_files("tensorboard/experiment/1/trial/2")
    assert [(f["path"], f["size"]) for f in files] == [("d/f", 1)]
    assert storage.download_prefix("tensorboard/experiment/1/trial/2", str(tmp_path / "out")) == 1
    assert (tmp_path / "out" / "d" / "f").read_text() == "x"
    with pytest.raises(ValueError, match="must be a relative path"):
        storage.list_files("../x")
    assert native().tensorboard_key_prefix(1, 2) == "tensorboard/experiment/1/trial/2"
    assert os.path.exists(tmp_path / "s" / "tensorboard" / "experiment" / "1" / "trial" / "2" / "d" / "f")
