#pragma once
// What ProcessRuntime keeps on disk for one task, in STATE_ROOT/ALLOCATION_ID (mode 0700), so that
// an agent restarted after a crash can adopt the tasks it left running:
//   task          the shim's pid and start time, then the caller's annotation; written at start
//   stdout        the task's standard output, appended by the task itself
//   stderr        the same for standard error
//   exit_status   the program's exit code (or 128+signal), written by the shim when it ends
//   log_position  how many bytes of stdout and stderr were delivered and acknowledged
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::agent {

struct TaskRecord {
  int pid = 0;              // the shim: the task's process group leader
  uint64_t start_time = 0;  // ProcessStartTime(pid) at start, so a reused pid is not taken for it
  std::string annotation;   // opaque to the runtime
};

struct LogPosition {
  uint64_t stdout_offset = 0;
  uint64_t stderr_offset = 0;
};

class TaskState {
 public:
  explicit TaskState(std::filesystem::path dir) : dir_(std::move(dir)) {}

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path stdout_path() const { return dir_ / "stdout"; }
  std::filesystem::path stderr_path() const { return dir_ / "stderr"; }
  std::filesystem::path exit_status_path() const { return dir_ / "exit_status"; }

  // Makes the directory afresh (a stale one of the same name is removed first).
  absl::Status Create() const;
  absl::Status WriteRecord(const TaskRecord& record) const;
  // NotFound when the task was never fully started; DataLoss when the file is corrupt.
  absl::StatusOr<TaskRecord> ReadRecord() const;
  // The exit code the shim recorded, or nullopt while the program runs (or if the shim was killed).
  std::optional<int> ReadExitStatus() const;
  absl::Status WriteLogPosition(const LogPosition& position) const;
  // Zero offsets when nothing was acknowledged yet.
  LogPosition ReadLogPosition() const;
  void Remove() const;

 private:
  std::filesystem::path dir_;
};

// The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat), or
// nullopt when no such process exists.
std::optional<uint64_t> ProcessStartTime(int pid);

}  // namespace det::agent
