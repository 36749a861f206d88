#pragma once
// Process helpers for `det deploy local`: starting detached daemons and stopping them by pid.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace det::cli {

// The directory of the running executable (/proc/self/exe).
absl::StatusOr<std::filesystem::path> ExecutableDir();

// Starts `argv` (argv[0] is a path) in its own session, with stdin from /dev/null and stdout and
// stderr appended to `log_file`. The process stays this process's child until either exits, and
// outlives it. Fails, naming the program, if it cannot be executed.
absl::StatusOr<pid_t> SpawnDaemon(const std::vector<std::string>& argv,
                                  const std::filesystem::path& log_file);

// Whether `pid` is a running process (zombies count as gone).
bool ProcessAlive(pid_t pid);
// Whether a running process's command line contains `needle` (a guard against reused pids).
bool ProcessCommandContains(pid_t pid, std::string_view needle);
// For a child of this process: if it has exited, reaps it and says how ("exited with status 1",
// "killed by signal 9"); nullopt while it runs.
std::optional<std::string> ReapIfExited(pid_t pid);

// Sends `sig` to each pid, then waits up to `timeout` for them to exit (reaping our own children).
// Returns the pids still running.
std::vector<pid_t> SignalAndWait(const std::vector<pid_t>& pids, int sig,
                                 std::chrono::milliseconds timeout);

// The last `lines` lines of a text file ("" if unreadable).
std::string TailOfFile(const std::filesystem::path& path, int lines);

}  // namespace det::cli
