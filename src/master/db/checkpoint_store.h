#pragma once
// Checkpoint records.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::master {

class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;

  // The id of a checkpoint storage config (JSON text, compared as text: give it canonical), registered
  // the first time it is asked for; a checkpoint's storage_id (upstream's storage backends).
  virtual absl::StatusOr<int64_t> CheckpointStorageId(const std::string& config_json) = 0;
  // Checkpoints: inserting also updates the trial's latest checkpoint, count and total size.
  virtual absl::Status AddCheckpoint(const api::Checkpoint& checkpoint, int64_t size_bytes) = 0;
  virtual absl::StatusOr<api::Checkpoint> GetCheckpoint(const std::string& uuid) = 0;
  virtual absl::StatusOr<std::vector<api::Checkpoint>> ListCheckpoints(int64_t experiment_id) = 0;
  // After storage confirmed the deletion: the checkpoint becomes DELETED and leaves its trial's count and
  // total size (the sum of its resources); if it was the trial's latest, the latest one reported before
  // it that is left takes its place (none: ""). Deleting a DELETED checkpoint changes nothing.
  virtual absl::Status MarkCheckpointDeleted(const std::string& uuid) = 0;
  // After storage confirmed that some of its files are gone: the checkpoint keeps `resources_json` (what
  // is left of its resources, not empty) and becomes PARTIALLY_DELETED; its trial's and experiment's
  // total sizes shrink by what went; a trial no longer resumes from it (as MarkCheckpointDeleted).
  // FailedPrecondition for a DELETED checkpoint, NotFound for an unknown one.
  virtual absl::Status MarkCheckpointPartiallyDeleted(const std::string& uuid, const std::string& resources_json) = 0;
  // Replaces the checkpoint's user metadata (a JSON object's text); NotFound for an unknown uuid.
  virtual absl::Status SetCheckpointMetadata(const std::string& uuid, const std::string& metadata_json) = 0;
  // Terminal experiments whose checkpoint GC has not finished yet.
  virtual absl::Status SetCheckpointGcPending(int64_t experiment_id, bool pending) = 0;
  virtual absl::StatusOr<std::vector<int64_t>> ListCheckpointGcPending() = 0;
};

}  // namespace det::master
