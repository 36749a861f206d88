#include "storage/shared_fs_storage.h"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "config/checkpoint_storage.h"

namespace det::storage {
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

namespace {

// Copies `from` to `to` through a hidden sibling renamed into place, so that a reader of `to` sees
// the old or the new file, never a part.
absl::Status CopyReplacing(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  if (!fs::is_regular_file(from, ec)) {
    return absl::NotFoundError(absl::StrCat("no file ", from.string()));
  }
  RETURN_IF_ERROR(MakeDirs(to.parent_path()));
  fs::path partial = PartialSibling(to);
  fs::copy_file(from, partial, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(partial, to, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return absl::InternalError(
        absl::StrCat("copying ", from.string(), " to ", to.string(), ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SharedFsStorage::DeleteFile(const std::string& prefix, const std::string& name) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  RETURN_IF_ERROR(ValidateRelativeKey(name));
  const fs::path root = base_ / p;
  fs::path file = root / name;
  std::error_code ec;
  fs::remove(file, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("deleting ", p, "/", name, " from ", Describe(), ": ", ec.message()));
  }
  // The directories the file leaves empty, up to (not including) the prefix's own.
  for (fs::path dir = file.parent_path(); dir != root && fs::is_empty(dir, ec) && !ec; dir = dir.parent_path()) {
    fs::remove(dir, ec);
  }
  return absl::OkStatus();
}

absl::Status SharedFsStorage::UploadFile(const fs::path& local_file, const std::string& prefix,
                                         const std::string& name) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  RETURN_IF_ERROR(ValidateRelativeKey(name));
  absl::Status st = CopyReplacing(local_file, base_ / p / name);
  if (!st.ok()) {
    return absl::Status(st.code(), absl::StrCat("uploading ", local_file.string(), " as ", p, "/",
                                                name, " to ", Describe(), ": ", st.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<StoredFile>> SharedFsStorage::ListFiles(const std::string& prefix) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  fs::path dir = base_ / p;
  std::vector<StoredFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  fs::recursive_directory_iterator it(dir, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::error_code e2;
    if (!e.is_regular_file(e2) || IsPartialName(e.path().filename().string())) continue;
    struct stat st;
    if (::stat(e.path().c_str(), &st) != 0) continue;  // removed while listing
    StoredFile f;
    f.path = e.path().lexically_relative(dir).generic_string();
    f.size = static_cast<int64_t>(st.st_size);
    // Every upload renames a fresh copy into place, made while the old file still held its inode:
    // the inode changes with every upload, even when the (coarse) modification time does not.
    f.version = absl::StrCat(st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec, "-", st.st_ino);
    out.push_back(std::move(f));
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("listing ", dir.string(), " in ", Describe(), ": ", ec.message()));
  }
  std::sort(out.begin(), out.end(),
            [](const StoredFile& a, const StoredFile& b) { return a.path < b.path; });
  return out;
}

absl::Status SharedFsStorage::DownloadFile(const std::string& prefix, const std::string& name,
                                           const fs::path& local_file) {
  ASSIGN_OR_RETURN(std::string p, NormalizeKeyPrefix(prefix));
  RETURN_IF_ERROR(ValidateRelativeKey(name));
  absl::Status st = CopyReplacing(base_ / p / name, local_file);
  if (!st.ok()) {
    return absl::Status(st.code(), absl::StrCat("downloading ", p, "/", name, " from ", Describe(),
                                                " to ", local_file.string(), ": ", st.message()));
  }
  return absl::OkStatus();
}

std::string SharedFsStorage::Describe() const {
  return absl::StrCat(type_, " at ", base_.string());
}

}  // namespace det::storage
