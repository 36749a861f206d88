#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace det::storage {

// Everything under `dir`, as upstream's StorageManager._list_directory reports it: each file's
// '/'-separated path relative to `dir` -> its size in bytes, and each subdirectory as "name/" -> 0.
absl::StatusOr<std::map<std::string, int64_t>> ListResources(const std::filesystem::path& dir);

}  // namespace det::storage
