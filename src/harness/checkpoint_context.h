#pragma once
// Storing, reporting and restoring checkpoints (upstream core.CheckpointContext, single writer).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "common/time_util.h"
#include "storage/storage_manager.h"

namespace det::harness {

class Session;

// The body of POST /api/v1/checkpoints (ReportCheckpoint): {"taskId","allocationId","uuid",
// "resources":{relpath: "size"},"metadata","training":{},"reportTime","state":"STATE_COMPLETED"}.
nlohmann::json BuildCheckpointBody(const std::string& task_id, const std::string& allocation_id,
                                   const std::string& uuid,
                                   const std::map<std::string, int64_t>& resources,
                                   const nlohmann::json& metadata, WallTime report_time);

// A checkpoint being written: files go under `path`; `uuid` is its storage id.
struct PendingCheckpoint {
  std::string uuid;
  std::filesystem::path path;
};

class CheckpointContext {
 public:
  // `session` null means off-cluster: checkpoints are stored but reported to no one, and metadata
  // is read back from the checkpoint's metadata.json.
  CheckpointContext(std::shared_ptr<storage::StorageManager> storage,
                    std::shared_ptr<Session> session, std::string task_id,
                    std::string allocation_id);

  // Chooses a fresh UUID and prepares an empty directory for it.
  absl::StatusOr<PendingCheckpoint> BeginStore();

  // Sharded checkpoints (store_path(shard=True)): the chief begins with BeginStore, every other worker
  // joins with BeginShard(uuid); each uploads its files with UploadShard, and the chief alone reports
  // the union with ReportCheckpoint.
  absl::StatusOr<PendingCheckpoint> BeginShard(const std::string& uuid);
  // Lists the shard's files (metadata.json aside) and uploads them where the storage is remote.
  absl::StatusOr<std::map<std::string, int64_t>> UploadShard(const PendingCheckpoint& shard);
  // Reports a stored checkpoint to the master (nothing off-cluster).
  absl::Status ReportCheckpoint(const std::string& uuid, const std::map<std::string, int64_t>& resources,
                                const nlohmann::json& metadata);
  // Finishes a checkpoint whose files are written: lists its resources, writes `metadata` (a JSON
  // object) to metadata.json in it (not counted among the resources, as upstream), uploads it when
  // the storage is remote, and reports it to the master. On a cluster `metadata` must hold
  // "steps_completed".
  absl::Status CommitStore(const PendingCheckpoint& pending, const nlohmann::json& metadata);
  absl::Status CommitStoreJson(const PendingCheckpoint& pending, const std::string& metadata_json);

  // A local directory with the files of checkpoint `uuid`; hand it back with ReleaseRestorePath when done
  // (remote storage then removes its local copy).
  absl::StatusOr<std::filesystem::path> RestorePath(const std::string& uuid);
  void ReleaseRestorePath(const std::filesystem::path& dir) { storage_->ReleaseRestorePath(dir); }
  // The metadata of checkpoint `uuid` as JSON text: from the master (GET
  // /api/v1/checkpoints/{uuid}) on a cluster, from its metadata.json otherwise.
  absl::StatusOr<std::string> GetMetadataJson(const std::string& uuid);
  // Deletes checkpoint `uuid` from storage; on a cluster the master then marks it DELETED.
  absl::Status Delete(const std::string& uuid);

  storage::StorageManager& storage() { return *storage_; }

 private:
  // On a cluster the master needs "steps_completed" in the metadata.
  absl::Status CheckReportable(const nlohmann::json& metadata) const;

  std::shared_ptr<storage::StorageManager> storage_;
  std::shared_ptr<Session> session_;
  std::string task_id_;
  std::string allocation_id_;
};

}  // namespace det::harness
