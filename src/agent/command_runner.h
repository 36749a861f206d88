#pragma once
// Runs a short-lived tool (nvidia-smi, rocm-smi) and captures what it prints: an interface, so that
// the agent's device detection is tested with captured outputs instead of real tools.
#include <chrono>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace det::agent {

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // The standard output of argv (argv[0] looked up on PATH) when it exits 0. NotFound when the
  // program is not on PATH; Internal (with its exit status and the start of its stderr) when it
  // fails; DeadlineExceeded when it runs longer than the runner's limit (it is killed).
  virtual absl::StatusOr<std::string> Run(const std::vector<std::string>& argv) = 0;
};

// Runs programs as child processes of this one. Safe for concurrent use.
class ProcessCommandRunner : public CommandRunner {
 public:
  explicit ProcessCommandRunner(std::chrono::milliseconds limit = std::chrono::seconds(30))
      : limit_(limit) {}
  absl::StatusOr<std::string> Run(const std::vector<std::string>& argv) override;

 private:
  std::chrono::milliseconds limit_;
};

}  // namespace det::agent
