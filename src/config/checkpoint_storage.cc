#include "config/checkpoint_storage.h"

#include "absl/strings/str_cat.h"

namespace det::config {
namespace fs = std::filesystem;

namespace {

// True when normalized `path` equals `base` or lies under it.
bool IsWithin(const fs::path& base, const fs::path& path) {
  auto b = base.begin();
  auto p = path.begin();
  for (; b != base.end(); ++b, ++p) {
    if (b->empty() && std::next(b) == base.end()) return true;  // trailing separator of base
    if (p == path.end() || *p != *b) return false;
  }
  return true;
}

fs::path Normalize(const fs::path& p) {
  fs::path n = p.lexically_normal();
  // "/a/b/" -> "/a/b"
  if (n.has_relative_path() && !n.has_filename()) n = n.parent_path();
  return n;
}

}  // namespace

absl::StatusOr<fs::path> ResolveSharedFsBase(const std::string& host_path,
                                             const std::string& storage_path) {
  if (host_path.empty()) {
    return absl::InvalidArgumentError("checkpoint_storage.host_path: required for type shared_fs");
  }
  fs::path host(host_path);
  if (!host.is_absolute()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "checkpoint_storage.host_path: must be an absolute path, got \"", host_path, "\""));
  }
  host = Normalize(host);
  if (storage_path.empty()) return host;
  fs::path storage(storage_path);
  fs::path resolved = Normalize(storage.is_absolute() ? storage : host / storage);
  if (!IsWithin(host, resolved)) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint_storage.storage_path: \"", storage_path,
                     "\" must be a subdirectory of host_path \"", host.string(), "\""));
  }
  return resolved;
}

}  // namespace det::config
