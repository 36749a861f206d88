#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det {

// One entry of a model-definition archive (mirrors upstream's `File` message).
struct ArchiveEntry {
  std::string path;  // relative, '/'-separated
  std::string content;
  bool is_directory = false;
  uint32_t mode = 0644;
  int64_t mtime = 0;  // Unix seconds
};

// Packs entries into an in-memory tar.gz.
absl::StatusOr<std::string> CreateTarGz(const std::vector<ArchiveEntry>& entries);
// Reads every entry of an in-memory tar.gz. Refuses absolute paths and paths with "..".
absl::StatusOr<std::vector<ArchiveEntry>> ReadTarGz(const std::string& tgz);
// Extracts an in-memory tar.gz under `dest` (created if needed), with the same path checks.
absl::Status ExtractTarGz(const std::string& tgz, const std::filesystem::path& dest);

}  // namespace det
