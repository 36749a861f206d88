#include "agent/task_state.h"

#include <sys/stat.h>

#include <system_error>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/file_util.h"

namespace det::agent {

absl::Status TaskState::Create() const {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", dir_.string(), ": ", ec.message()));
  }
  // The record holds the task's session token.
  ::chmod(dir_.c_str(), 0700);
  return absl::OkStatus();
}

absl::Status TaskState::WriteRecord(const TaskRecord& record) const {
  return WriteFile(dir_ / "task",
                   absl::StrCat(record.pid, " ", record.start_time, "\n", record.annotation));
}

absl::StatusOr<TaskRecord> TaskState::ReadRecord() const {
  absl::StatusOr<std::string> text = ReadFile(dir_ / "task");
  if (!text.ok()) return text.status();
  std::vector<std::string> parts = absl::StrSplit(*text, absl::MaxSplits('\n', 1));
  std::vector<std::string> header = absl::StrSplit(parts[0], ' ');
  TaskRecord record;
  if (parts.size() != 2 || header.size() != 2 || !absl::SimpleAtoi(header[0], &record.pid) ||
      !absl::SimpleAtoi(header[1], &record.start_time) || record.pid <= 0) {
    return absl::DataLossError(absl::StrCat((dir_ / "task").string(), " is corrupt"));
  }
  record.annotation = parts[1];
  return record;
}

std::optional<int> TaskState::ReadExitStatus() const {
  absl::StatusOr<std::string> text = ReadFile(exit_status_path());
  int code;
  if (!text.ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &code)) return std::nullopt;
  return code;
}

absl::Status TaskState::WriteLogPosition(const LogPosition& position) const {
  return WriteFile(dir_ / "log_position",
                   absl::StrCat(position.stdout_offset, " ", position.stderr_offset, "\n"));
}

LogPosition TaskState::ReadLogPosition() const {
  LogPosition position;
  absl::StatusOr<std::string> text = ReadFile(dir_ / "log_position");
  if (!text.ok()) return position;
  std::vector<std::string> parts =
      absl::StrSplit(absl::StripAsciiWhitespace(*text), ' ', absl::SkipEmpty());
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &position.stdout_offset) ||
      !absl::SimpleAtoi(parts[1], &position.stderr_offset)) {
    return LogPosition{};
  }
  return position;
}

void TaskState::Remove() const {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::optional<uint64_t> ProcessStartTime(int pid) {
  absl::StatusOr<std::string> stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  if (!stat.ok()) return std::nullopt;
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  size_t close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string> fields =
      absl::StrSplit(stat->substr(close + 1), ' ', absl::SkipEmpty());
  // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
  uint64_t start_time;
  if (fields.size() < 20 || !absl::SimpleAtoi(fields[19], &start_time)) return std::nullopt;
  return start_time;
}

}  // namespace det::agent
