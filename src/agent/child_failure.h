#pragma once
// How a process between fork and exec tells its parent that it failed: one record written to a
// close-on-exec pipe. EOF on the pipe without a record means the exec succeeded.
#include <errno.h>
#include <unistd.h>

namespace det::agent {

struct ChildFailure {
  // kExec: the agent's child could not exec the task shim; kProgramExec: the shim could not exec
  // the task's program; kSetUser: the shim could not switch to the task's user and group.
  enum Stage : int { kChdir = 0, kStdio = 1, kExec = 2, kProgramExec = 3, kSetUser = 4 };
  int stage;
  int error;  // errno
};

// Writes the record for `stage` with the current errno and _exit(127)s. Async-signal-safe.
[[noreturn]] inline void ReportChildFailure(int report_fd, ChildFailure::Stage stage) {
  ChildFailure failure{stage, errno};
  ssize_t ignored = ::write(report_fd, &failure, sizeof failure);
  (void)ignored;
  ::_exit(127);
}

// Reads a ChildFailure from `fd` until EOF; true when a whole record arrived.
inline bool ReadChildFailure(int fd, ChildFailure* failure) {
  size_t got = 0;
  while (got < sizeof *failure) {
    ssize_t n = ::read(fd, reinterpret_cast<char*>(failure) + got, sizeof *failure - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return got == sizeof *failure;
}

}  // namespace det::agent
