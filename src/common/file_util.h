#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det {

absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path);
// Writes atomically: a temporary file in the same directory, then rename.
absl::Status WriteFile(const std::filesystem::path& path, std::string_view content);
absl::Status MakeDirs(const std::filesystem::path& path);

}  // namespace det
