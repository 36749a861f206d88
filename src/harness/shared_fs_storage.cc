#include "harness/shared_fs_storage.h"

#include "config/checkpoint_storage.h"

#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/status_macros.h"

namespace det::harness {
namespace fs = std::filesystem;

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

absl::StatusOr<fs::path> SharedFsStorage::ShardPath(const std::string& uuid) {
  RETURN_IF_ERROR(ValidateStorageId(uuid));
  fs::path dir = base_ / uuid;
  RETURN_IF_ERROR(MakeDirs(dir));
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
