#include "agent/task_mounts.h"

#include <system_error>

#include "absl/strings/str_cat.h"

namespace det::agent {

namespace fs = std::filesystem;

absl::Status ApplyMounts(const std::vector<api::TaskMount>& mounts, const fs::path& task_dir) {
  for (const api::TaskMount& m : mounts) {
    std::string what = absl::StrCat("bind_mounts: ", m.host_path, " -> ", m.container_path, ": ");
    std::error_code ec;
    if (m.host_path.empty() || m.container_path.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(what, "host_path and container_path are both required"));
    }
    if (!fs::exists(m.host_path, ec)) {
      return absl::FailedPreconditionError(absl::StrCat(what, "the host path does not exist on this agent"));
    }
    fs::path link = fs::path(m.container_path).is_absolute() ? fs::path(m.container_path) : task_dir / m.container_path;
    if (fs::is_symlink(fs::symlink_status(link, ec))) {
      if (fs::read_symlink(link, ec) == fs::path(m.host_path)) continue;  // linked by an earlier run
      return absl::FailedPreconditionError(absl::StrCat(what, link.string(), " already links elsewhere"));
    }
    if (fs::exists(fs::symlink_status(link, ec))) {
      return absl::FailedPreconditionError(
          absl::StrCat(what, link.string(), " already exists on this agent; a process task needs it free"));
    }
    fs::create_directories(link.parent_path(), ec);
    fs::create_symlink(m.host_path, link, ec);
    if (ec) return absl::InternalError(absl::StrCat(what, "cannot link ", link.string(), ": ", ec.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<fs::path> TaskWorkDir(const std::string& work_dir, const fs::path& task_dir) {
  if (work_dir.empty()) return task_dir;
  fs::path dir = fs::path(work_dir).is_absolute() ? fs::path(work_dir) : task_dir / work_dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::FailedPreconditionError(absl::StrCat("work_dir: ", dir.string(), " is not a directory on this agent"));
  }
  return dir;
}

}  // namespace det::agent
