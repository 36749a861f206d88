import contextlib
import enum
import json
import logging
import os
import pathlib
import shutil
from typing import Any, Callable, Dict, Iterator, Optional, Tuple, Union

from determined import util
from determined.core._distributed import DistributedContext

logger = logging.getLogger("determined.core")


class DownloadMode(enum.Enum):
    """How workers share checkpoint downloads (one worker per task here: both act the same)."""

    LocalWorkersShareDownload = "LOCAL_WORKERS_SHARE_DOWNLOAD"
    NoSharedDownload = "NO_SHARED_DOWNLOAD"


class CheckpointContext:
    """
    Saves and restores checkpoints in the experiment's checkpoint storage, and reports saved
    checkpoints to the master. Off-cluster, checkpoints are saved in a local directory and
    reported to no one.
    """

    def __init__(self, dist: DistributedContext, native_ctx: Any) -> None:
        self._dist = dist
        self._native = native_ctx

    @contextlib.contextmanager
    def store_path(
        self, metadata: Optional[Dict[str, Any]] = None, *, shard: bool = False
    ) -> Iterator[Tuple[pathlib.Path, str]]:
        """
        Yields ``(path, storage_id)``: an empty directory to save the checkpoint into, and the
        checkpoint's UUID. When the block exits normally, ``metadata`` is written to
        ``metadata.json`` in it and the checkpoint is reported to the master (on a cluster,
        ``metadata`` must contain ``steps_completed``). If the block raises, nothing is reported.

        .. code:: python

           with core_context.checkpoint.store_path({"steps_completed": steps}) as (path, uuid):
               torch.save(model.state_dict(), path / "model.pt")
        """
        if not shard and self._dist.rank != 0:
            raise RuntimeError(
                "cannot call CheckpointContext.store_path(shard=False) from non-chief worker "
                f"(rank={self._dist.rank})"
            )
        if shard:
            with self._store_shard(metadata) as stored:
                yield stored
            return
        md = util.make_jsonable(metadata or {})
        path_str, storage_id = self._native.begin_store()
        yield pathlib.Path(path_str), storage_id
        self._native.commit_store(storage_id, path_str, json.dumps(md))
        logger.info(f"saved checkpoint {storage_id}")

    @contextlib.contextmanager
    def _store_shard(self, metadata: Optional[Dict[str, Any]]) -> Iterator[Tuple[pathlib.Path, str]]:
        """
        A checkpoint written by every worker (collective): the chief picks the storage id, each worker
        writes its own files (on a shared file system, into the same directory), and the chief reports
        the union of their files and metadata (merged by libdetermined: giving a metadata key two
        values is an error, and so is one file from two workers where parts are staged apart, as on
        s3; on a shared file system the workers share one directory and the last writer of a file wins).
        """
        if self._dist.rank == 0:
            path_str, storage_id = self._native.begin_store()
            self._dist.broadcast(storage_id)
        else:
            storage_id = self._dist.broadcast(None)
            path_str = self._native.begin_shard(storage_id)
        yield pathlib.Path(path_str), storage_id
        # Everyone's metadata first, so the chief's metadata.json goes up with its shard.
        all_metadata = self._dist.allgather(util.make_jsonable(metadata or {}))
        merged_md = self._native.merge_shard_metadata(storage_id, json.dumps(all_metadata))
        if self._dist.rank == 0:
            (pathlib.Path(path_str) / "metadata.json").write_text(merged_md)
        resources = self._native.upload_shard(storage_id, path_str)
        gathered = self._dist.gather(resources)
        if gathered is not None:
            merged = self._native.merge_shard_resources(storage_id, "[" + ",".join(gathered) + "]")
            self._native.report_checkpoint(storage_id, merged, merged_md)
            logger.info(f"saved sharded checkpoint {storage_id} ({len(gathered)} shards)")
        # Nobody goes on before the checkpoint is reported.
        self._dist.broadcast(None)

    def upload(
        self,
        ckpt_dir: Optional[Union[str, os.PathLike]],
        metadata: Optional[Dict[str, Any]] = None,
        *,
        shard: bool = False,
    ) -> str:
        """Copies the contents of ``ckpt_dir`` into a new checkpoint; returns its storage_id."""
        if ckpt_dir is None:
            raise RuntimeError("cannot call .upload(ckpt_dir=None), which would do nothing at all")
        src = os.fspath(ckpt_dir)
        with self.store_path(metadata, shard=shard) as (path, storage_id):
            shutil.copytree(src, path, dirs_exist_ok=True)
        return storage_id

    def download(
        self,
        storage_id: str,
        ckpt_dir: Union[str, os.PathLike],
        download_mode: DownloadMode = DownloadMode.LocalWorkersShareDownload,
        *,
        selector: Optional[Callable[[str], bool]] = None,
    ) -> None:
        """Copies checkpoint ``storage_id`` into ``ckpt_dir`` (created if needed)."""
        dst = pathlib.Path(os.fspath(ckpt_dir))
        dst.mkdir(parents=True, exist_ok=True)
        with self.restore_path(storage_id, download_mode) as src:
            for root, _, files in os.walk(src):
                for name in files:
                    file = pathlib.Path(root) / name
                    rel = file.relative_to(src).as_posix()
                    if selector is not None and not selector(rel):
                        continue
                    (dst / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, dst / rel)

    @contextlib.contextmanager
    def restore_path(
        self,
        storage_id: str,
        download_mode: DownloadMode = DownloadMode.LocalWorkersShareDownload,
        *,
        selector: Optional[Callable[[str], bool]] = None,
    ) -> Iterator[pathlib.Path]:
        """
        Yields a local directory holding checkpoint ``storage_id``. Checkpoint storage on a shared
        file system is read in place: do not modify the files. Remote storage (s3) is downloaded to a
        temporary directory, removed when the block exits.
        """
        DownloadMode(download_mode)
        path = self._native.restore_path(storage_id)
        try:
            yield pathlib.Path(path)
        finally:
            self._native.release_restore_path(path)

    def get_metadata(self, storage_id: str) -> Dict[str, Any]:
        """The metadata of checkpoint ``storage_id``."""
        md = json.loads(self._native.get_metadata(storage_id))
        return md if isinstance(md, dict) else {}

    def delete(self, storage_id: str) -> None:
        """Deletes checkpoint ``storage_id`` from checkpoint storage."""
        self._native.delete(storage_id)

    def _describe(self) -> str:
        return self._native.describe()


class DummyCheckpointContext(CheckpointContext):
    """Off-cluster: the same, with checkpoints kept in a local directory and reported to no one."""
