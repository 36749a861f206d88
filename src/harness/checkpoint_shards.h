#pragma once
// Sharded checkpoints (store_path(shard=True)): every worker writes part of one checkpoint, and the chief
// reports the union of the parts.
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::harness {

// The workers' metadata objects (in rank order) as one object. InvalidArgument when a key has different
// values in two of them, or one is not an object.
absl::StatusOr<nlohmann::json> MergeShardMetadata(const std::string& uuid, const std::vector<nlohmann::json>& metadata);

// The workers' files (in rank order, relative path -> size; directories "name/" -> 0) as one listing. Where
// the workers share one directory (shared_fs, directory) every listing is the whole checkpoint; where each
// worker's part is staged apart (s3), a file in two parts is InvalidArgument.
absl::StatusOr<std::map<std::string, int64_t>> MergeShardResources(
    const std::string& uuid, const std::vector<std::map<std::string, int64_t>>& resources, bool shared_directory);

}  // namespace det::harness
