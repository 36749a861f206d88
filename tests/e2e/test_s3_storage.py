"""s3 checkpoint storage end to end: a real s3rver, a real local cluster. One experiment stores a
checkpoint (nested files, one of a few MB) through core_context.checkpoint.store_path; the objects are
in s3rver's bucket; a second experiment restores it through restore_path and checks every byte; and
`det checkpoint download UUID -o DIR` fetches the same files.

s3rver comes from tests/s3 (scripts/install-deps.sh runs `npm ci` there); S3RVER=/path/to/s3rver
overrides. Without it this suite fails: it does not skip."""
import hashlib
import os
import pathlib
import re
import subprocess
import time
import xml.etree.ElementTree as ET

import pytest
import requests

from conftest import REPO, wait_for

BUCKET = "ckpts"
PREFIX = "e2e/run"

# The checkpoint's files: relative path -> bytes (the trial script builds the same ones).
BIG = b"".join(hashlib.sha256(str(i).encode()).digest() for i in range(100_000))  # 3.2 MB


def expected_files():
    return {
        "model/weights.bin": BIG,
        "model/deeper/state.txt": b"step 5\n",
        "notes with space.txt": b"hello s3\n",
    }


STORE = """
import hashlib
import determined as det

BIG = b"".join(hashlib.sha256(str(i).encode()).digest() for i in range(100_000))
with det.core.init() as ctx:
    with ctx.checkpoint.store_path({"steps_completed": 5}) as (path, uuid):
        (path / "model" / "deeper").mkdir(parents=True)
        (path / "model" / "weights.bin").write_bytes(BIG)
        (path / "model" / "deeper" / "state.txt").write_text("step 5\\n")
        (path / "notes with space.txt").write_text("hello s3\\n")
        (path / "empty_dir").mkdir()
    ctx.train.report_validation_metrics(steps_completed=5, metrics={"loss": 0.5})
    print("stored checkpoint", uuid, flush=True)
"""

RESTORE = """
import hashlib
import determined as det

BIG = b"".join(hashlib.sha256(str(i).encode()).digest() for i in range(100_000))
with det.core.init() as ctx:
    with ctx.checkpoint.restore_path("UUID") as path:
        assert (path / "model" / "weights.bin").read_bytes() == BIG, "weights.bin differs"
        assert (path / "model" / "deeper" / "state.txt").read_text() == "step 5\\n"
        assert (path / "notes with space.txt").read_text() == "hello s3\\n"
        assert (path / "empty_dir").is_dir()
        files = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())
        print("restored files", files, flush=True)
    assert not path.exists(), "the downloaded copy outlives restore_path"
    ctx.train.report_validation_metrics(steps_completed=5, metrics={"loss": 0.25})
    print("restore OK", flush=True)
"""


@pytest.fixture(scope="module")
def s3rver(tmp_path_factory):
    """A running s3rver with bucket `ckpts`; yields its endpoint URL."""
    binary = pathlib.Path(os.environ.get("S3RVER") or REPO / "tests/s3/node_modules/.bin/s3rver")
    if not os.access(binary, os.X_OK):
        pytest.fail(f"s3rver is not installed (looked for {binary}): run scripts/install-deps.sh, or "
                    "`npm ci --prefix tests/s3` from the repository root, or set S3RVER", pytrace=False)
    data = tmp_path_factory.mktemp("s3rver")
    log_path = data / "s3rver.log"
    # s3rver's continuation tokens use DES, which Node 17+ has only in OpenSSL's legacy provider.
    env = dict(os.environ, NODE_OPTIONS="--openssl-legacy-provider")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([str(binary), "-d", str(data / "data"), "-p", "0", "-a", "127.0.0.1",
                                 "--configure-bucket", BUCKET], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.time() + 60
        while True:
            m = re.search(r"S3rver listening on 127\.0\.0\.1:(\d+)", log_path.read_text())
            if m:
                break
            if proc.poll() is not None or time.time() > deadline:
                pytest.fail(f"s3rver did not start:\n{log_path.read_text()}", pytrace=False)
            time.sleep(0.1)
        yield f"http://127.0.0.1:{m.group(1)}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def storage_yaml(endpoint):
    return (f"checkpoint_storage: {{type: s3, bucket: {BUCKET}, prefix: {PREFIX}, endpoint_url: '{endpoint}', "
            "access_key: S3RVER, secret_key: S3RVER}\n")


def run_experiment(cluster, model_dir, name, script, endpoint):
    (model_dir / f"{name}.py").write_text(script)
    (model_dir / f"{name}.yaml").write_text(
        f"name: {name}\nentrypoint: python3 {name}.py\nsearcher: {{name: single, metric: loss}}\n"
        f"max_restarts: 0\n" + storage_yaml(endpoint))
    exp_id = cluster.create_experiment(model_dir / f"{name}.yaml", model_dir)
    state = cluster.wait_for_experiment(exp_id, timeout=300)
    [trial] = cluster.trials(exp_id)
    logs = cluster.trial_logs(trial["id"])
    assert state == "STATE_COMPLETED", logs[-3000:]
    return exp_id, logs


def bucket_keys(endpoint, prefix):
    """The keys under `prefix`, read back from s3rver (which serves anonymous requests)."""
    resp = requests.get(f"{endpoint}/{BUCKET}", params={"list-type": "2", "prefix": prefix}, timeout=30)
    resp.raise_for_status()
    ns = {"s3": "http://doc.s3.amazonaws.com/2006-03-01/"}
    return sorted(k.text for k in ET.fromstring(resp.content).findall("s3:Contents/s3:Key", ns))


def test_store_restore_and_download_through_s3(cluster, s3rver, tmp_path):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    exp_id, logs = run_experiment(cluster, model_dir, "s3_store", STORE, s3rver)
    [ckpt] = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
    uuid = ckpt["uuid"]
    assert f"stored checkpoint {uuid}" in logs
    assert ckpt["state"] == "STATE_COMPLETED"
    files = expected_files()
    for rel, data in files.items():
        assert ckpt["resources"][rel] == str(len(data)), ckpt["resources"]

    # The objects are in the bucket: prefix/UUID/relative/path, directories as empty "dir/" objects.
    keys = bucket_keys(s3rver, f"{PREFIX}/{uuid}/")
    rels = [k[len(f"{PREFIX}/{uuid}/"):] for k in keys]
    assert rels == sorted([*files, "metadata.json", "model/", "model/deeper/", "empty_dir/"]), keys
    big = requests.get(f"{s3rver}/{BUCKET}/{PREFIX}/{uuid}/model/weights.bin", timeout=60)
    assert big.status_code == 200 and big.content == BIG

    # A second experiment restores it through restore_path and checks every byte.
    _, logs = run_experiment(cluster, model_dir, "s3_restore", RESTORE.replace("UUID", uuid), s3rver)
    assert "restore OK" in logs, logs[-3000:]

    # det checkpoint describe names the s3 location; download fetches the same files.
    described = cluster.det("checkpoint", "describe", uuid).stdout
    assert f"s3://{BUCKET}/{PREFIX}/{uuid}" in described, described
    out = tmp_path / "downloaded"
    result = cluster.det("checkpoint", "download", uuid, "-o", str(out))
    assert f"Local checkpoint path: {out}" in result.stdout
    got = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert set(got) == {*files, "metadata.json"}
    for rel, data in files.items():
        assert got[rel] == data, rel
    assert (out / "empty_dir").is_dir()


def test_missing_checkpoint_is_a_clear_error(cluster, s3rver, tmp_path):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    script = RESTORE.replace("UUID", "00000000-0000-0000-0000-000000000000")
    (model_dir / "missing.py").write_text(script)
    (model_dir / "missing.yaml").write_text(
        "name: missing\nentrypoint: python3 missing.py\nsearcher: {name: single, metric: loss}\n"
        "max_restarts: 0\n" + storage_yaml(s3rver))
    exp_id = cluster.create_experiment(model_dir / "missing.yaml", model_dir)
    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_ERROR"
    [trial] = cluster.trials(exp_id)
    logs = cluster.trial_logs(trial["id"])
    assert "00000000-0000-0000-0000-000000000000 not found" in logs, logs[-3000:]
    assert f"s3://{BUCKET}/{PREFIX}/00000000-0000-0000-0000-000000000000/" in logs, logs[-3000:]


GC_SCRIPT = """
import determined as det

with det.core.init() as ctx:
    for step in (1, 2, 3):
        ctx.train.report_validation_metrics(steps_completed=step, metrics={"loss": float(step)})
        with ctx.checkpoint.store_path({"steps_completed": step}) as (path, uuid):
            (path / "state").write_text(str(step))
"""


def test_checkpoint_gc_deletes_the_objects_of_what_the_policy_lets_go(cluster, s3rver, tmp_path):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "gc.py").write_text(GC_SCRIPT)
    # Keep the best (step 1, the lowest loss) and the latest (step 3); step 2 goes.
    (model_dir / "gc.yaml").write_text(
        "name: s3-gc\nentrypoint: python3 gc.py\nsearcher: {name: single, metric: loss}\nmax_restarts: 0\n"
        + storage_yaml(s3rver).rstrip().rstrip("}") + ", save_trial_best: 1, save_trial_latest: 1}\n")
    exp_id = cluster.create_experiment(model_dir / "gc.yaml", model_dir)
    assert cluster.wait_for_experiment(exp_id, timeout=300) == "STATE_COMPLETED"

    def states():
        listed = cluster.get(f"/api/v1/experiments/{exp_id}/checkpoints")["checkpoints"]
        return {c["metadata"]["steps_completed"]: (c["uuid"], c["state"]) for c in listed}
    final = wait_for(lambda: (lambda s: s if s[2][1] == "STATE_DELETED" else None)(states()), "checkpoint GC")
    assert {step: state for step, (_, state) in final.items()} == {
        1: "STATE_COMPLETED", 2: "STATE_DELETED", 3: "STATE_COMPLETED"}, final
    assert bucket_keys(s3rver, f"{PREFIX}/{final[2][0]}/") == []
    assert bucket_keys(s3rver, f"{PREFIX}/{final[1][0]}/") == [f"{PREFIX}/{final[1][0]}/{n}" for n in ("metadata.json", "state")]
