#pragma once
// Runs a short-lived program to its end: argv, text on its stdin, extra environment, a time limit; its
// exit status, stdout and stderr. The agent's device probes (agent/command_runner.h) and the Slurm
// client's commands (master/rm/slurm) run through it.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det {

struct CommandResult {
  int exit_status = 0;  // 128+N when killed by signal N
  std::string out;
  std::string err;
};

// Runs argv (argv[0] a path, or a name looked up on PATH) with `input` on its stdin and `env` added to
// (and overriding) this process's environment. NotFound when the program cannot be found; Internal
// when it cannot be started; DeadlineExceeded (it is killed) when it runs longer than `limit`.
// A non-zero exit is not an error here: the caller reads the result. Safe for concurrent use.
absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv, const std::string& input,
                                         const std::map<std::string, std::string>& env,
                                         std::chrono::milliseconds limit);

}  // namespace det
