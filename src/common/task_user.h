#pragma once
// The OS user and group a task's program runs as (upstream's agent user group). A plain value shared
// by the master's configuration (security.default_task, config/) and the master <-> agent protocol
// (StartTask.user, api/), which is why it lives below both.
#include <cstdint>
#include <string>

namespace det {

// The agent, running as root, switches to these before the program starts. The names are for
// display; the ids are used.
struct TaskUser {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;
  std::string group;

  bool operator==(const TaskUser&) const = default;
};

}  // namespace det
