#pragma once
// The master <-> agent protocol (ours, not upstream's): JSON text messages over the websocket at
// `ws://MASTER/agents?id=AGENT_ID&resource_pool=POOL&hostname=HOST&version=V`.
//
// Agent -> master:
//   AgentHello      first message after connecting: the agent's slots and the allocations it still runs.
//   TaskStarted     the task's process was started.
//   TaskExited      the task's process ended (or could not start: exit_code -1 and `error`).
// Master -> agent:
//   StartTask       run an allocation's process on the given slots.
//   KillTask        stop an allocation: SIGTERM to its process group, SIGKILL after `grace_seconds`.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "common/task_user.h"

namespace det::api {

// One slot an agent offers: a device, as upstream's agent reports it.
struct SlotInfo {
  int id = 0;
  std::string type = "cpu";  // "cpu", "cuda" or "rocm"
  std::string device;        // the brand: "cpu", or the GPU's name ("NVIDIA H200")
  std::string uuid;          // a GPU's uuid ("GPU-...", "MIG-..."); "" for CPU slots

  bool operator==(const SlotInfo&) const = default;
};

struct AgentHello {
  std::vector<SlotInfo> slots;
  std::vector<std::string> running_allocations;
};

struct TaskStarted {
  std::string allocation_id;
  int pid = 0;
};

struct TaskExited {
  std::string allocation_id;
  int exit_code = 0;   // process exit status; 128+N when killed by signal N; -1 when it never started
  std::string error;   // why it could not start, or ""
};

// A host path made visible to the task (bind_mounts): the agent links container_path to host_path,
// a relative container_path inside the task directory.
struct TaskMount {
  std::string host_path;
  std::string container_path;
  bool read_only = false;

  bool operator==(const TaskMount&) const = default;
};

// The OS user and group a task's program runs as (common/task_user.h, shared with the master's
// configuration).
using det::TaskUser;

// The container a task runs in (the task's environment.image and the settings that go with it); absent:
// the task runs as a process on the agent's host.
struct TaskContainer {
  std::string image;  // resolved for the agent's slot type
  bool force_pull = false;
  // environment.registry_auth (username, password, serveraddress; or auth, identitytoken); empty: the
  // registry is pulled from without credentials.
  std::map<std::string, std::string> registry_auth;
  std::vector<std::string> add_capabilities;
  std::vector<std::string> drop_capabilities;
  std::vector<std::string> devices;  // resources.devices, "host[:container[:permissions]]"
  int64_t shm_size = 0;              // bytes; 0: the engine's default
  std::string network_mode = "host";

  bool operator==(const TaskContainer&) const = default;
};

struct StartTask {
  std::string allocation_id;
  std::string task_id;
  std::string task_type = "TRIAL";
  std::vector<std::string> entrypoint;  // argv; a single string entrypoint arrives as {"sh","-c",cmd}
  std::map<std::string, std::string> env;  // master-side contract variables (reference §1c)
  std::vector<int> slot_ids;
  std::string session_token;  // the allocation token, also in env as DET_SESSION_TOKEN
  bool download_context = true;  // fetch GET /api/v1/tasks/{task_id}/context_directory into the workdir
  std::string work_dir;          // where the process starts; "" = the task directory, relative = inside it
  std::vector<TaskMount> mounts;
  std::optional<TaskUser> user;  // none: the agent's own user
  std::optional<TaskContainer> container;
};

struct KillTask {
  std::string allocation_id;
  int grace_seconds = 10;
};

// The master will not use this agent (its slots do not fit its pool): the agent says why and exits.
struct AgentRefused {
  std::string reason;
};

using AgentMessage = std::variant<AgentHello, TaskStarted, TaskExited>;
using MasterMessage = std::variant<StartTask, KillTask, AgentRefused>;

std::string Encode(const AgentMessage& msg);
std::string Encode(const MasterMessage& msg);
absl::StatusOr<AgentMessage> DecodeAgentMessage(const std::string& text);
absl::StatusOr<MasterMessage> DecodeMasterMessage(const std::string& text);

}  // namespace det::api
