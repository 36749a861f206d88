#pragma once
// Builds an experiment's model definition (upstream's `[]File`) from a context directory and
// `--include` paths, as `determined.common.context.read_v1_context` does:
//  - context files get paths relative to the context root; a directory is its own entry (type 53);
//  - an included directory appears under its basename (with an entry for itself), an included file
//    under its name;
//  - each walked root honors its own `.detignore` plus upstream's default ignores; `.detignore`
//    files themselves are left out; symlinked directories are listed but not followed;
//  - the decoded total must stay within `limit` bytes (upstream: 96 MiB - 1 MiB); a larger context
//  is
//    refused before anything is read into memory, naming its size and the limit.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

inline constexpr int64_t kMaxContextBytes = 95LL * 1024 * 1024;

// Tar typeflags used as `File.type`.
inline constexpr int kFileTypeRegular = 48;    // '0'
inline constexpr int kFileTypeDirectory = 53;  // '5'

struct ContextFile {
  std::string path;  // relative, '/'-separated
  bool is_dir = false;
  std::string content;  // raw bytes (base64-encoded only in the JSON)
  uint32_t mode = 0;    // st_mode, file-type bits included, as upstream sends it
  int64_t mtime = 0;    // Unix seconds
};

struct ContextResult {
  std::vector<ContextFile> files;
  int64_t total_bytes = 0;
  std::vector<std::string> warnings;  // e.g. unreadable files that were skipped
};

absl::StatusOr<ContextResult> ReadContext(const std::optional<std::filesystem::path>& root,
                                          const std::vector<std::filesystem::path>& includes,
                                          int64_t limit = kMaxContextBytes);

// [{"path","type","content"(base64),"mtime"(string),"mode","uid":0,"gid":0}, ...]
nlohmann::json ContextToJson(const std::vector<ContextFile>& files);

}  // namespace det::cli
