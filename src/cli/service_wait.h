#pragma once
// Waiting for the service of a notebook, shell or TensorBoard to be ready (upstream's
// api.wait_for_ntsc_state / `isReady` polling in cli/ntsc.py): the task's runner tells the master
// once Jupyter, sshd or TensorBoard listens, and GET /api/v1/tasks/{id} then shows an allocation
// with `isReady: true`.
#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cli/task_id_prefix.h"

namespace det::cli {

class Session;

struct ServiceWaitOptions {
  std::chrono::milliseconds poll_interval{1000};
  int log_lines = 25;  // how many of the task's last log lines to show when it ended
};

struct ServiceWait {
  bool ready = false;     // false: the task ended before its service was ready
  nlohmann::json object;  // the kind's object from GET kind/{id} (serviceAddress, privateKey...)
};

// Polls GET /api/v1/tasks/{id} and GET kind/{id} until an allocation of the task is ready, or the
// task ended (its `endTime` is set, or the object's state is STATE_TERMINATED; ended wins over
// ready). While it waits, prints one line on `err` whenever the object's state changes ("Notebook
// ID is queued...", "... is running; waiting for it to be ready..."); nothing when it is ready at
// the first poll. When the task ended, prints "<Title> ID ended before it was ready: <exitStatus>"
// and its last log lines on `err`. Errors are the master's (network, not found).
absl::StatusOr<ServiceWait> WaitForService(Session& session, const TaskListing& kind,
                                           const std::string& id, const ServiceWaitOptions& options,
                                           std::ostream& err);

// The word upstream's messages use for a kind: "Notebook", "Shell", "TensorBoard", "Command".
std::string KindTitle(const TaskListing& kind);

}  // namespace det::cli
