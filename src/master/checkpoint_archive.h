#pragma once
// A checkpoint's files as one tar.gz, for the download through the master (GET /checkpoints/{uuid}). The
// archive is built in memory, so it has a size limit: a larger checkpoint is refused with a message saying to
// download it from its storage instead.
#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace det::master {

// The master serves checkpoints up to this many bytes of files.
inline constexpr uint64_t kMaxCheckpointArchiveBytes = uint64_t{2} << 30;

// The regular files under `dir` (partially written ones left out) as a tar.gz with paths relative to `dir`.
// FailedPrecondition, before anything is read, when they add up to more than `max_bytes`.
absl::StatusOr<std::string> CheckpointTarGz(const std::filesystem::path& dir, const std::string& uuid,
                                            uint64_t max_bytes = kMaxCheckpointArchiveBytes);

}  // namespace det::master
