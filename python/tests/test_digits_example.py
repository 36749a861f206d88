"""examples/digits/train.py trains off-cluster, validates and checkpoints every epoch (45 batches
of 32), and resumes."""

import contextlib
import importlib.util
import io
import json
import os
import pathlib
import re
import subprocess
import sys

import determined as det

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "digits" / "train.py"


def test_trains_to_accuracy_off_cluster(tmp_path):
    # The same determined package (and _determined module) this test imported.
    pkg_parent = pathlib.Path(det.__file__).resolve().parents[1]
    paths = [str(pkg_parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
    pythonpath = os.pathsep.join(paths)
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "xdg"), PYTHONPATH=pythonpath)
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        cwd=EXAMPLE.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    validations = re.findall(r"^batch (\d+)/225: .* accuracy=([0-9.]+)$", proc.stdout, re.M)
    assert [int(b) for b, _ in validations] == [45, 90, 135, 180, 225], proc.stdout
    final = re.search(r"final validation accuracy=([0-9.]+)", proc.stdout)
    assert final is not None, proc.stdout
    assert float(final.group(1)) >= 0.9, proc.stdout

    ckpts = sorted((tmp_path / "xdg" / "determined").iterdir())
    assert len(ckpts) == 5
    metadata = [json.loads((c / "metadata.json").read_text()) for c in ckpts]
    assert {"steps_completed": 225} in metadata
    assert all((c / "state.pt").is_file() for c in ckpts)


def _load_example():
    spec = importlib.util.spec_from_file_location("digits_train", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_resumes_from_checkpoint(tmp_path):
    digits = _load_example()
    hparams = dict(digits.DEFAULT_HPARAMS, epochs=2)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
            digits.train(ctx, hparams, 7, None, {})
    uuids = re.findall(r"saved checkpoint (\S+) at batch 90", out.getvalue())
    assert len(uuids) == 1

    hparams["epochs"] = 3
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        with det.core.init(checkpoint_storage=str(tmp_path)) as ctx:
            results = digits.train(ctx, hparams, 7, uuids[0], {})
    text = out.getvalue()
    assert f"resumed from checkpoint {uuids[0]} at step 90" in text
    assert re.search(r"^batch 135/135: ", text, re.M), text
    assert "batch 45/135" not in text and "batch 90/135" not in text
    assert results["accuracy"] >= 0.8
