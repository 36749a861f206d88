#include "cli/service_wait.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/experiment_view.h"
#include "cli/format.h"
#include "cli/log_printer.h"
#include "cli/ntsc_ops.h"
#include "cli/session.h"
#include "cli/trial_ops.h"
#include "client/rest_client.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

bool HasEnded(const json& task, const json& object) {
  const json& end = Field(task, "endTime");
  if (end.is_string() && !end.get<std::string>().empty()) return true;
  return Str(object, "state") == "STATE_TERMINATED";
}

bool AnyAllocationReady(const json& task) {
  const json& allocations = Field(task, "allocations");
  if (!allocations.is_array()) return false;
  return std::any_of(allocations.begin(), allocations.end(), [](const json& a) {
    const json& ready = Field(a, "isReady");
    return ready.is_boolean() && ready.get<bool>();
  });
}

std::string Progress(const std::string& state) {
  if (state == "STATE_RUNNING") return "is running; waiting for it to be ready...";
  if (state == "STATE_PULLING") return "is pulling its image...";
  if (state.empty() || state == "STATE_UNSPECIFIED") return "is waiting to be scheduled...";
  return absl::StrCat("is ", absl::AsciiStrToLower(StripStatePrefix(state)), "...");
}

// The task's last `n` log lines, oldest first ("" when there are none or they cannot be read: the
// reason the task ended is more important than a log error).
std::string LastLogLines(Session& session, const std::string& id, int n) {
  TrialLogsArgs tail;
  tail.tail = n;
  absl::StatusOr<std::string> path =
      LogsPath(absl::StrCat("/api/v1/tasks/", client::UrlEncode(id), "/logs"), tail);
  if (!path.ok()) return "";
  std::vector<std::string> lines;
  absl::Status s = session.Stream(*path, [&](const json& entry) {
    lines.push_back(LogEntryText(entry));
    return true;
  });
  std::reverse(lines.begin(), lines.end());  // the master answers newest first
  std::string text;
  for (const std::string& l : lines) text += l;
  return text;
}

}  // namespace

std::string KindTitle(const TaskListing& kind) {
  if (kind.noun == "tensorboard") return "TensorBoard";
  std::string title = kind.noun;
  if (!title.empty()) title[0] = absl::ascii_toupper(static_cast<unsigned char>(title[0]));
  return title;
}

absl::StatusOr<ServiceWait> WaitForService(Session& session, const TaskListing& kind,
                                           const std::string& id, const ServiceWaitOptions& options,
                                           std::ostream& err) {
  const std::string task_path = absl::StrCat("/api/v1/tasks/", client::UrlEncode(id));
  std::string shown_state;
  bool first = true;
  while (true) {
    ASSIGN_OR_RETURN(json task_resp, session.Get(task_path));
    ASSIGN_OR_RETURN(json object_resp, session.Get(NtscPath(kind, id)));
    const json& task = Field(task_resp, "task");
    json object = Field(object_resp, kind.noun.c_str());
    if (HasEnded(task, object)) {
      std::string status = Str(object, "exitStatus");
      if (status.empty()) status = Str(task, "exitStatus");
      if (status.empty()) status = "no exit status reported";
      err << KindTitle(kind) << " " << id << " ended before it was ready: " << status << "\n";
      std::string logs = LastLogLines(session, id, options.log_lines);
      if (logs.empty()) {
        // The last lines may reach the master just after the task's end; look once more.
        std::this_thread::sleep_for(options.poll_interval);
        logs = LastLogLines(session, id, options.log_lines);
      }
      if (!logs.empty()) err << "Its last log lines:\n" << logs;
      err.flush();
      return ServiceWait{false, std::move(object)};
    }
    if (AnyAllocationReady(task)) return ServiceWait{true, std::move(object)};
    std::string state = Str(object, "state");
    if (first || state != shown_state) {
      err << KindTitle(kind) << " " << id << " " << Progress(state) << "\n";
      err.flush();
      shown_state = state;
      first = false;
    }
    std::this_thread::sleep_for(options.poll_interval);
  }
}

}  // namespace det::cli
