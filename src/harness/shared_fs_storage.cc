#include "harness/shared_fs_storage.h"

#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/status_macros.h"

namespace det::harness {
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

SharedFsStorage::SharedFsStorage(fs::path base, std::string type)
    : base_(std::move(base)), type_(std::move(type)) {}

absl::StatusOr<fs::path> SharedFsStorage::StorePath(const std::string& uuid) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  RETURN_IF_ERROR(MakeDirs(base_));
  fs::path dir = base_ / uuid;
  std::error_code ec;
  if (!fs::create_directory(dir, ec)) {
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot create checkpoint directory ", dir.string(), ": ", ec.message()));
    }
    return absl::AlreadyExistsError(
        absl::StrCat("checkpoint directory ", dir.string(), " already exists"));
  }
  return dir;
}

absl::Status SharedFsStorage::PostStore(const std::string&, const fs::path&) {
  return absl::OkStatus();
}

absl::StatusOr<fs::path> SharedFsStorage::RestorePath(const std::string& uuid) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  fs::path dir = base_ / uuid;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat("checkpoint ", uuid, " not found: no directory ",
                                            dir.string(), " in ", Describe()));
  }
  return dir;
}

absl::Status SharedFsStorage::Delete(const std::string& uuid) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  std::error_code ec;
  fs::remove_all(base_ / uuid, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot delete checkpoint ", uuid, " from ", Describe(), ": ", ec.message()));
  }
  return absl::OkStatus();
}

std::string SharedFsStorage::Describe() const {
  return absl::StrCat(type_, " at ", base_.string());
}

}  // namespace det::harness
