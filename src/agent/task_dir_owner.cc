#include "agent/task_dir_owner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace det::agent {

namespace {

// Whether `uid`:`gid` may pass through directory `st` (search permission; supplementary groups, which
// the task drops, do not count).
bool Searchable(const struct stat& st, uint32_t uid, uint32_t gid) {
  if (uid == 0) return true;
  if (st.st_uid == uid) return (st.st_mode & S_IXUSR) != 0;
  if (st.st_gid == gid) return (st.st_mode & S_IXGRP) != 0;
  return (st.st_mode & S_IXOTH) != 0;
}

}  // namespace

absl::Status GiveTaskDir(const std::filesystem::path& dir, uint32_t uid, uint32_t gid) {
  const std::filesystem::path absolute = std::filesystem::absolute(dir);
  for (std::filesystem::path above = absolute.parent_path(); ; above = above.parent_path()) {
    struct stat st {};
    if (::stat(above.c_str(), &st) == 0 && !Searchable(st, uid, gid)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the task runs as uid ", uid, " gid ", gid, ", which cannot reach its directory: ", above.string(),
          " (mode ", absl::StrFormat("%04o", st.st_mode & 07777), ") lets it through only with search permission"));
    }
    if (above == above.root_path()) break;
  }
  auto give = [&](const std::filesystem::path& path) -> absl::Status {
    if (::lchown(path.c_str(), uid, gid) == 0) return absl::OkStatus();
    return absl::PermissionDeniedError(
        absl::StrCat("cannot give ", path.string(), " to uid ", uid, " gid ", gid, ": ", std::strerror(errno)));
  };
  if (absl::Status st = give(dir); !st.ok()) return st;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (absl::Status st = give(it->path()); !st.ok()) return st;
  }
  if (ec) return absl::InternalError(absl::StrCat("cannot list ", dir.string(), ": ", ec.message()));
  return absl::OkStatus();
}

}  // namespace det::agent
