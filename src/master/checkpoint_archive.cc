#include "master/checkpoint_archive.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/archive.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "storage/storage_manager.h"

namespace det::master {

absl::StatusOr<std::string> CheckpointTarGz(const std::filesystem::path& dir, const std::string& uuid,
                                            uint64_t max_bytes) {
  std::vector<std::filesystem::path> files;
  uint64_t total = 0;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file() || storage::IsPartialName(it->path().filename().string())) continue;
    total += it->file_size();
    files.push_back(it->path());
  }
  if (ec) return absl::InternalError(absl::StrCat("listing checkpoint files in ", dir.string(), ": ", ec.message()));
  if (total > max_bytes) {
    return absl::FailedPreconditionError(absl::StrCat(
        "checkpoint ", uuid, " holds ", total, " bytes, more than the ", max_bytes,
        " the master serves: download it from its checkpoint storage (det checkpoint download, or the SDK's "
        "download() without mode=MASTER)"));
  }
  std::vector<ArchiveEntry> entries;
  for (const std::filesystem::path& file : files) {
    ArchiveEntry e;
    e.path = file.lexically_relative(dir).generic_string();
    ASSIGN_OR_RETURN(e.content, ReadFile(file));
    entries.push_back(std::move(e));
  }
  return CreateTarGz(entries);
}

}  // namespace det::master
