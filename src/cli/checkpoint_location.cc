#include "cli/checkpoint_location.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/format.h"
#include "config/checkpoint_storage.h"

namespace det::cli {
namespace {

std::string JoinUrl(const std::string& scheme, const std::string& bucket, std::string prefix,
                    const std::string& uuid) {
  while (!prefix.empty() && prefix.front() == '/') prefix.erase(0, 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  std::string out = scheme + bucket + "/";
  if (!prefix.empty()) out += prefix + "/";
  return out + uuid;
}

}  // namespace

std::string CheckpointLocation(const nlohmann::json& storage, const std::string& uuid) {
  if (!storage.is_object() || uuid.empty()) return "";
  const std::string type = Str(storage, "type");
  if (type == "shared_fs") {
    absl::StatusOr<std::filesystem::path> base =
        config::ResolveSharedFsBase(Str(storage, "host_path"), Str(storage, "storage_path"));
    return base.ok() ? (*base / uuid).string() : "";
  }
  if (type == "directory") {
    std::string dir = Str(storage, "container_path");
    if (dir.empty()) return "";
    return (std::filesystem::path(dir) / uuid).lexically_normal().string();
  }
  if (type == "s3") return JoinUrl("s3://", Str(storage, "bucket"), Str(storage, "prefix"), uuid);
  if (type == "gcs") return JoinUrl("gs://", Str(storage, "bucket"), Str(storage, "prefix"), uuid);
  if (type == "azure") {
    return JoinUrl("azure://", Str(storage, "container"), Str(storage, "prefix"), uuid);
  }
  return "";
}

}  // namespace det::cli
