"""Off-cluster ("dummy") mode: what `python3 train.py` on a laptop gets."""

import json
import logging
import math

import numpy as np
import pytest
import torch

import determined as det
from determined import core


def test_no_cluster_info_off_cluster(monkeypatch):
    assert det.get_cluster_info() is None
    # DET_MASTER alone (exported for the CLI) is not a cluster.
    monkeypatch.setenv("DET_MASTER", "http://localhost:8080")
    det._info._reset_cluster_info_for_test()
    assert det.get_cluster_info() is None


def test_context_manager_and_components(tmp_path):
    with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
        assert isinstance(ctx, core.Context)
        assert ctx.info is None
        assert ctx.preempt.should_preempt() is False
        assert ctx.preempt.should_preempt(auto_ack=False) is False
        d = ctx.distributed
        assert (d.rank, d.size, d.local_rank, d.local_size, d.cross_rank, d.cross_size) == (
            0, 1, 0, 1, 0, 1,
        )
        assert d.get_rank() == 0 and d.get_size() == 1 and d.get_num_agents() == 1
        assert d.allgather("x") == ["x"] and d.gather(1) == [1] and d.broadcast(5) == 5
        assert ctx.train.get_experiment_best_validation() is None


def test_metrics_are_logged_and_made_jsonable(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="determined")
    with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
        ctx.train.report_training_metrics(
            steps_completed=10,
            metrics={"loss": torch.tensor(0.25), "n": np.int64(3), "lr": np.float32(0.5)},
            batch_metrics=[{"loss": 0.3}],
        )
        ctx.train.report_validation_metrics(
            steps_completed=10, metrics={"accuracy": np.float64(0.9)}
        )
        ctx.train.report_metrics("custom", 10, {"x": float("nan")})
        ctx.train.report_progress(0.5)
        ctx.train.set_status("training")
        with pytest.raises(ValueError):
            ctx.train.report_progress(1.5)
        with pytest.raises(RuntimeError):
            ctx.train.report_validation_metrics(steps_completed=10, metrics={"accuracy": None})
    text = caplog.text
    assert "report_training_metrics(steps_completed=10" in text
    assert "'loss': 0.25" in text and "'n': 3" in text
    assert "report_validation_metrics(steps_completed=10, metrics={'accuracy': 0.9})" in text


def test_make_jsonable():
    from determined.util import make_jsonable

    out = make_jsonable(
        {
            "a": np.float32(1.5),
            "b": torch.tensor([1, 2]),
            "c": (np.bool_(True), None),
            "d": float("inf"),
            "e": -math.inf,
            "f": float("nan"),
            1: "k",
        }
    )
    assert out == {
        "a": 1.5,
        "b": [1, 2],
        "c": [True, None],
        "d": "Infinity",
        "e": "-Infinity",
        "f": "NaN",
        "1": "k",
    }
    json.dumps(out, allow_nan=False)


def test_checkpoint_store_restore_metadata(tmp_path):
    with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
        with ctx.checkpoint.store_path({"steps_completed": 5, "epoch": np.int64(1)}) as (
            path,
            uuid,
        ):
            assert path.is_dir() and not any(path.iterdir())
            assert isinstance(uuid, str) and len(uuid) == 36
            (path / "model.pt").write_bytes(b"1234")
            (path / "sub").mkdir()
            (path / "sub" / "opt.pt").write_bytes(b"56")
        assert path == tmp_path / uuid
        assert json.loads((path / "metadata.json").read_text()) == {
            "steps_completed": 5,
            "epoch": 1,
        }
        assert ctx.checkpoint.get_metadata(uuid) == {"steps_completed": 5, "epoch": 1}
        with ctx.checkpoint.restore_path(uuid) as restored:
            assert restored == path
            assert (restored / "sub" / "opt.pt").read_bytes() == b"56"

        out = tmp_path / "downloaded"
        ctx.checkpoint.download(uuid, out, selector=lambda p: p.startswith("sub/"))
        assert (out / "sub" / "opt.pt").exists() and not (out / "model.pt").exists()

        uuid2 = ctx.checkpoint.upload(out, {"steps_completed": 6})
        assert (tmp_path / uuid2 / "sub" / "opt.pt").read_bytes() == b"56"
        ctx.checkpoint.delete(uuid2)
        assert not (tmp_path / uuid2).exists()


def test_restore_missing_checkpoint_raises(tmp_path):
    with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
        with pytest.raises(RuntimeError, match="not found"):
            with ctx.checkpoint.restore_path("00000000-0000-4000-8000-000000000000"):
                pass
        with pytest.raises(ValueError):
            with ctx.checkpoint.restore_path("../etc"):
                pass


def test_failed_store_is_not_committed(tmp_path):
    with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
        with pytest.raises(KeyError):
            with ctx.checkpoint.store_path({"steps_completed": 1}) as (path, uuid):
                (path / "partial").write_text("x")
                raise KeyError("boom")
        assert not (path / "metadata.json").exists()


def test_default_checkpoint_dir_is_user_data_dir(tmp_path):
    # conftest points XDG_DATA_HOME at tmp_path / "xdg".
    with det.core.init() as ctx:
        with ctx.checkpoint.store_path({"steps_completed": 1}) as (path, uuid):
            pass
    assert path == tmp_path / "xdg" / "determined" / uuid


def test_checkpoint_storage_arguments(tmp_path):
    with pytest.raises(ValueError, match="shared_fs"):
        det.core.init(checkpoint_storage={"type": "shared_fs", "host_path": str(tmp_path)})
    with pytest.raises(ValueError, match="not supported"):
        det.core.init(checkpoint_storage="gs://bucket/prefix")
    with pytest.raises(ValueError, match="no bucket"):
        det.core.init(checkpoint_storage="s3:///prefix")
    with pytest.raises(TypeError):
        det.core.init(checkpoint_storage=3)
    ctx = det.core.init(checkpoint_storage={"type": "directory", "container_path": str(tmp_path)})
    with ctx:
        with ctx.checkpoint.store_path() as (path, _):
            pass
    assert path.parent == tmp_path


def test_an_s3_url_names_the_bucket_and_prefix(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    with det.core.init(checkpoint_storage="s3://my-bucket/runs/7/") as ctx:
        described = ctx.checkpoint._describe()
    assert "s3" in described and "my-bucket" in described and "runs/7" in described, described


def test_should_preempt_requires_start(tmp_path):
    ctx = det.core.init(checkpoint_storage=str(tmp_path))
    with pytest.raises(RuntimeError, match="before PreemptContext.start"):
        ctx.preempt.should_preempt()
    ctx.close()


def test_invalid_hp_exits_zero(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="determined")
    with pytest.raises(SystemExit) as e:
        with det.core.init(checkpoint_storage=str(tmp_path)):
            raise det.InvalidHP("bad learning rate")
    assert e.value.code == 0
    assert "EarlyExitReason.INVALID_HP" in caplog.text


def test_other_exceptions_propagate(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with det.core.init(checkpoint_storage=str(tmp_path)):
            1 / 0


def test_dummy_searcher(tmp_path):
    with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
        with pytest.warns(FutureWarning):
            ops = list(_complete(ctx.searcher.operations()))
        assert [op.length for op in ops] == [1]


def _complete(ops):
    for op in ops:
        op.report_progress(1)
        op.report_completed(0.5)
        yield op


def test_distributed_ranks_come_all_or_none():
    with pytest.raises(ValueError):
        core.DistributedContext(
            rank=0, size=None, local_rank=0, local_size=1, cross_rank=0, cross_size=1
        )
