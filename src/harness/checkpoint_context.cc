#include "harness/checkpoint_context.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "client/rest_client.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "harness/session.h"
#include "spdlog/spdlog.h"
#include "storage/checkpoint_resources.h"

namespace det::harness {

nlohmann::json BuildCheckpointBody(const std::string& task_id, const std::string& allocation_id,
                                   const std::string& uuid,
                                   const std::map<std::string, int64_t>& resources,
                                   const nlohmann::json& metadata, WallTime report_time) {
  nlohmann::json res = nlohmann::json::object();
  for (const auto& [path, size] : resources) res[path] = std::to_string(size);
  return {{"taskId", task_id},
          {"allocationId", allocation_id},
          {"uuid", uuid},
          {"resources", std::move(res)},
          {"metadata", metadata},
          {"training", nlohmann::json::object()},
          {"reportTime", FormatRfc3339(report_time)},
          {"state", "STATE_COMPLETED"}};
}

CheckpointContext::CheckpointContext(std::shared_ptr<storage::StorageManager> storage,
                                     std::shared_ptr<Session> session, std::string task_id,
                                     std::string allocation_id)
    : storage_(std::move(storage)),
      session_(std::move(session)),
      task_id_(std::move(task_id)),
      allocation_id_(std::move(allocation_id)) {}

absl::StatusOr<PendingCheckpoint> CheckpointContext::BeginStore() {
  PendingCheckpoint p;
  p.uuid = NewUuid();
  ASSIGN_OR_RETURN(p.path, storage_->StorePath(p.uuid));
  return p;
}

absl::Status CheckpointContext::CheckReportable(const nlohmann::json& metadata) const {
  if (session_ != nullptr && !(metadata.is_object() && metadata.contains("steps_completed"))) {
    return absl::InvalidArgumentError(
        "checkpoint metadata: must contain \"steps_completed\" (the number of batches trained), "
        "e.g. store_path({\"steps_completed\": steps})");
  }
  return absl::OkStatus();
}

absl::StatusOr<PendingCheckpoint> CheckpointContext::BeginShard(const std::string& uuid) {
  RETURN_IF_ERROR(storage::ValidateStorageId(uuid));
  PendingCheckpoint p;
  p.uuid = uuid;
  ASSIGN_OR_RETURN(p.path, storage_->ShardPath(uuid));
  return p;
}

absl::StatusOr<std::map<std::string, int64_t>> CheckpointContext::UploadShard(const PendingCheckpoint& shard) {
  ASSIGN_OR_RETURN(auto resources, storage::ListResources(shard.path));
  resources.erase("metadata.json");
  RETURN_IF_ERROR(storage_->PostStore(shard.uuid, shard.path));
  return resources;
}

absl::Status CheckpointContext::CommitStore(const PendingCheckpoint& pending,
                                            const nlohmann::json& metadata) {
  if (!metadata.is_null() && !metadata.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint metadata: must be a JSON object, got ", metadata.type_name()));
  }
  nlohmann::json md = metadata.is_null() ? nlohmann::json::object() : metadata;
  RETURN_IF_ERROR(CheckReportable(md));
  RETURN_IF_ERROR(WriteFile(pending.path / "metadata.json", md.dump(2)));
  ASSIGN_OR_RETURN(auto resources, UploadShard(pending));
  return ReportCheckpoint(pending.uuid, resources, md);
}

absl::Status CheckpointContext::ReportCheckpoint(const std::string& uuid,
                                                 const std::map<std::string, int64_t>& resources,
                                                 const nlohmann::json& metadata) {
  RETURN_IF_ERROR(CheckReportable(metadata));
  if (session_ == nullptr) {
    spdlog::debug("saved checkpoint {}", uuid);
    return absl::OkStatus();
  }
  nlohmann::json body =
      BuildCheckpointBody(task_id_, allocation_id_, uuid, resources, metadata, std::chrono::system_clock::now());
  auto r = session_->Post("/api/v1/checkpoints", body);
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        absl::StrCat("reporting checkpoint ", uuid, ": ", r.status().message()));
  }
  spdlog::debug("reported checkpoint {} to the master", uuid);
  return absl::OkStatus();
}

absl::Status CheckpointContext::CommitStoreJson(const PendingCheckpoint& pending,
                                                const std::string& metadata_json) {
  nlohmann::json md;
  if (!metadata_json.empty()) {
    auto parsed = ParseJson(metadata_json);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("checkpoint metadata: not valid JSON: ", parsed.status().message()));
    }
    md = std::move(*parsed);
  }
  return CommitStore(pending, md);
}

absl::StatusOr<std::filesystem::path> CheckpointContext::RestorePath(const std::string& uuid) {
  return storage_->RestorePath(uuid);
}

absl::StatusOr<std::string> CheckpointContext::GetMetadataJson(const std::string& uuid) {
  RETURN_IF_ERROR(storage::ValidateStorageId(uuid));
  if (session_ != nullptr) {
    ASSIGN_OR_RETURN(nlohmann::json resp,
                     session_->Get(absl::StrCat("/api/v1/checkpoints/", client::UrlEncode(uuid))));
    const nlohmann::json* ckpt = resp.contains("checkpoint") ? &resp["checkpoint"] : nullptr;
    if (ckpt == nullptr || !ckpt->is_object() || !ckpt->contains("metadata") ||
        !(*ckpt)["metadata"].is_object()) {
      return std::string("{}");
    }
    return (*ckpt)["metadata"].dump();
  }
  ASSIGN_OR_RETURN(std::filesystem::path dir, storage_->RestorePath(uuid));
  auto text = ReadFile(dir / "metadata.json");
  storage_->ReleaseRestorePath(dir);
  if (!text.ok()) return std::string("{}");
  ASSIGN_OR_RETURN(nlohmann::json md, ParseJson(*text));
  return md.dump();
}

absl::Status CheckpointContext::Delete(const std::string& uuid) {
  RETURN_IF_ERROR(storage::ValidateStorageId(uuid));
  RETURN_IF_ERROR(storage_->Delete(uuid));
  if (session_ == nullptr) return absl::OkStatus();
  // Empty resources: the whole checkpoint is gone (PatchCheckpoints), so the master marks it DELETED.
  nlohmann::json body = {{"checkpoints", {{{"uuid", uuid}, {"resources", {{"resources", nlohmann::json::object()}}}}}}};
  if (absl::StatusOr<nlohmann::json> r = session_->Patch("/api/v1/checkpoints", body); !r.ok()) {
    return absl::Status(r.status().code(), absl::StrCat("checkpoint ", uuid,
                                                        " is deleted from storage, but telling the master failed: ",
                                                        r.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace det::harness
