#include "master/handlers/task_json.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/time_util.h"
#include "master/handlers/agent_json.h"

namespace det::master {

using nlohmann::json;

std::string TaskDisplayState(const Task& task, const std::optional<Allocation>& latest) {
  if (IsTerminal(task.state)) return "STATE_TERMINATED";
  bool stopping = task.state == TaskState::kStoppingCanceled || task.state == TaskState::kStoppingPaused;
  if (!latest || IsTerminal(latest->state)) return task.state == TaskState::kPaused ? "STATE_TERMINATED" : "STATE_QUEUED";
  switch (latest->state) {
    case AllocationState::kQueued:
    case AllocationState::kAssigned:
      return stopping ? "STATE_TERMINATING" : "STATE_QUEUED";
    case AllocationState::kRunning:
    case AllocationState::kTerminating:
      return stopping || latest->state == AllocationState::kTerminating ? "STATE_TERMINATING" : "STATE_RUNNING";
    case AllocationState::kTerminated:
      break;
  }
  return "STATE_TERMINATED";
}

namespace {

// upstream's containerv1State of an allocation's process: placed but not started is ASSIGNED; a
// process that runs (also while it is being stopped) is RUNNING; an ended one is TERMINATED.
const char* ContainerState(AllocationState state) {
  switch (state) {
    case AllocationState::kQueued:
    case AllocationState::kAssigned:
      return "STATE_ASSIGNED";
    case AllocationState::kRunning:
    case AllocationState::kTerminating:
      return "STATE_RUNNING";
    case AllocationState::kTerminated:
      return "STATE_TERMINATED";
  }
  return "STATE_UNSPECIFIED";
}

json ContainerJson(const Allocation* latest) {
  if (latest == nullptr || latest->placements.empty()) return nullptr;
  json devices = json::array();
  for (const AgentSlots& p : latest->placements) {
    for (const api::SlotInfo& d : p.devices) devices.push_back(DeviceJson(d));
  }
  return {{"parent", latest->placements.front().agent_id},
          {"id", latest->allocation_id},
          {"state", ContainerState(latest->state)},
          {"devices", devices},
          {"permissionDenied", false}};
}

// Whether the task's process says when it is ready (it serves something), rather than being ready
// as soon as it runs.
bool ReportsReadiness(TaskType type) {
  return type == TaskType::kNotebook || type == TaskType::kShell || type == TaskType::kTensorboard;
}

// upstream's taskv1State of an allocation (its AllocationState.Proto()): waiting for or holding
// slots but not started is QUEUED.
const char* AllocationTaskState(AllocationState state) {
  switch (state) {
    case AllocationState::kQueued:
    case AllocationState::kAssigned:
      return "STATE_QUEUED";
    case AllocationState::kRunning:
      return "STATE_RUNNING";
    case AllocationState::kTerminating:
      return "STATE_TERMINATING";
    case AllocationState::kTerminated:
      return "STATE_TERMINATED";
  }
  return "STATE_UNSPECIFIED";
}

json AllocationJson(const Allocation& a, TaskType type) {
  const bool running = a.state == AllocationState::kRunning;
  json out = {{"taskId", a.task_id},
              {"allocationId", a.allocation_id},
              {"state", AllocationTaskState(a.state)},
              {"slots", a.slots},
              {"isReady", running && (a.ready || !ReportsReadiness(type))},
              {"startTime", FormatRfc3339(a.start_time)},
              {"endTime", a.end_time ? json(FormatRfc3339(*a.end_time)) : json(nullptr)},
              {"resourcePool", a.resource_pool},
              {"exitCode", a.exit_code ? json(*a.exit_code) : json(nullptr)}};
  if (a.exit_code) out["statusCode"] = *a.exit_code;  // a proto3 optional: absent until it exits
  return out;
}

}  // namespace

json CommandJson(const Task& task, const std::optional<Allocation>& latest) {
  json config = json::parse(task.config_json, nullptr, false);
  std::string pool;
  if (config.is_object() && config.contains("resources") && config["resources"].is_object()) {
    pool = config["resources"].value("resource_pool", "");
  }
  return {{"id", task.task_id},
          {"description", task.description},
          {"state", TaskDisplayState(task, latest)},
          {"startTime", FormatRfc3339(task.start_time)},
          {"container", ContainerJson(latest ? &*latest : nullptr)},
          {"displayName", task.username},
          {"userId", task.owner_id},
          {"username", task.username},
          {"resourcePool", pool},
          {"exitStatus", task.exit_status},
          {"jobId", task.job_id},
          {"workspaceId", task.workspace_id},
          {"exitCode", task.exit_code ? json(*task.exit_code) : json(nullptr)}};
}

json TaskJson(const Task& task, const std::vector<Allocation>& allocations) {
  json allocs = json::array();
  for (const Allocation& a : allocations) allocs.push_back(AllocationJson(a, task.type));
  return {{"taskId", task.task_id},
          {"taskType", absl::StrCat("TASK_TYPE_", Name(task.type))},
          {"allocations", allocs},
          {"startTime", FormatRfc3339(task.start_time)},
          {"endTime", task.end_time ? json(FormatRfc3339(*task.end_time)) : json(nullptr)},
          {"taskState", absl::StrCat("GENERIC_TASK_STATE_", Name(task.state))},
          {"config", task.config_json},
          {"forkedFrom", task.forked_from.empty() ? json(nullptr) : json(task.forked_from)},
          {"parentId", nullptr},
          {"noPause", task.type != TaskType::kGeneric},
          {"description", task.description},
          {"exitStatus", task.exit_status},
          {"exitCode", task.exit_code ? json(*task.exit_code) : json(nullptr)}};
}

json ServiceTaskJson(const Task& task, const std::optional<Allocation>& latest) {
  json out = CommandJson(task, latest);
  json extra = json::parse(task.service_json, nullptr, false);
  if (!extra.is_object()) extra = json::object();
  const std::string address = absl::StrCat("/proxy/", task.task_id, "/");
  switch (task.type) {
    case TaskType::kNotebook:
      out["serviceAddress"] = absl::StrCat(address, "?token=", extra.value("token", ""));
      break;
    case TaskType::kTensorboard:
      out["serviceAddress"] = address;
      out["experimentIds"] = extra.value("experiment_ids", json::array());
      out["trialIds"] = extra.value("trial_ids", json::array());
      break;
    case TaskType::kShell: {
      out["privateKey"] = extra.value("private_key", "");
      out["publicKey"] = extra.value("public_key", "");
      json addresses = json::array();
      if (latest && latest->ready && !IsTerminal(latest->state)) {
        if (auto address = SplitServiceAddress(latest->service_address)) {
          addresses.push_back({{"host", address->first}, {"port", address->second}});
        }
      }
      out["addresses"] = addresses;
      const std::string user = latest && !latest->service_user.empty() ? latest->service_user : "root";
      out["agentUserGroup"] = {{"user", user}, {"group", user}};
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace det::master
