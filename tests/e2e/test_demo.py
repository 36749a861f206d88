"""The README's main job, `make demo` (scripts/demo.sh): a local cluster runs the adaptive ASHA search of
examples/digits/adaptive.yaml to completion and the best trial is shown."""
import os
import re
import subprocess

from conftest import BIN, REPO


def test_the_demo_runs_the_asha_search_to_completion_and_shows_the_best_trial(tmp_path):
    data = tmp_path / "demo"
    env = dict(os.environ, DET_DEMO_DIR=str(data), DET_BIN_DIR=str(BIN))
    try:
        proc = subprocess.run(["bash", str(REPO / "scripts" / "demo.sh")], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=600)
    finally:
        subprocess.run([str(BIN / "det"), "deploy", "local", "cluster-down", "--data-dir", str(data)],
                       capture_output=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert re.search(r"Experiment \d+ terminated with state COMPLETED", out), out[-4000:]
    best = re.search(r"trial \d+: accuracy = (0\.\d+) after (\d+) batches", out)
    assert best and float(best.group(1)) > 0.9, out[-4000:]
    assert re.search(r"16 trials trained \d+ batches in all", out), out[-4000:]
