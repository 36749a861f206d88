#include "agent/command_runner.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/subprocess.h"

namespace det::agent {

absl::StatusOr<std::string> ProcessCommandRunner::Run(const std::vector<std::string>& argv) {
  absl::StatusOr<CommandResult> r = RunCommand(argv, "", {}, limit_);
  if (!r.ok()) return r.status();
  if (r->exit_status != 0) {
    std::string err = r->err.substr(0, 500);
    return absl::InternalError(absl::StrCat(absl::StrJoin(argv, " "), " exited with status ", r->exit_status,
                                            err.empty() ? "" : ": ", err));
  }
  return std::move(r->out);
}

}  // namespace det::agent
