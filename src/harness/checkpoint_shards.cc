#include "harness/checkpoint_shards.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace det::harness {

absl::StatusOr<nlohmann::json> MergeShardMetadata(const std::string& uuid, const std::vector<nlohmann::json>& metadata) {
  nlohmann::json merged = nlohmann::json::object();
  for (size_t rank = 0; rank < metadata.size(); ++rank) {
    if (!metadata[rank].is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("sharded checkpoint ", uuid, ": rank ", rank,
                                                     "'s metadata is not an object: ", metadata[rank].dump()));
    }
    for (const auto& [key, value] : metadata[rank].items()) {
      auto it = merged.find(key);
      if (it != merged.end() && *it != value) {
        return absl::InvalidArgumentError(absl::StrCat("sharded checkpoint ", uuid, ": metadata key \"", key,
                                                       "\" differs between workers (", it->dump(), ", and ",
                                                       value.dump(), " from rank ", rank, ")"));
      }
      merged[key] = value;
    }
  }
  return merged;
}

absl::StatusOr<std::map<std::string, int64_t>> MergeShardResources(
    const std::string& uuid, const std::vector<std::map<std::string, int64_t>>& resources, bool shared_directory) {
  std::map<std::string, int64_t> merged;
  std::map<std::string, size_t> writer;
  for (size_t rank = 0; rank < resources.size(); ++rank) {
    for (const auto& [path, size] : resources[rank]) {
      bool directory = !path.empty() && path.back() == '/';
      auto [it, inserted] = writer.try_emplace(path, rank);
      if (!inserted && !directory && !shared_directory) {
        return absl::InvalidArgumentError(absl::StrCat("sharded checkpoint ", uuid, ": ", path,
                                                       " was written by more than one worker (ranks ", it->second,
                                                       " and ", rank, ")"));
      }
      merged[path] = size;
    }
  }
  return merged;
}

}  // namespace det::harness
