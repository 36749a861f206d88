#include "api/agent_protocol.h"

#include <climits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::api {
namespace {

using nlohmann::json;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
// clang 14 (the fuzz build) lacks C++20's aggregate deduction.
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// An int field must be a JSON integer that fits: nlohmann's get<int>() would truncate 2^32 + 1 to 1
// and cast 1e300 (undefined behavior).
bool FitsInt(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= uint64_t{INT_MAX};
  if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    return i >= INT_MIN && i <= INT_MAX;
  }
  return false;
}

template <class T>
absl::StatusOr<T> Get(const json& j, const char* key) {
  if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::vector<int>>) {
    const json* v = j.is_object() && j.contains(key) ? &j[key] : nullptr;
    bool ok = v != nullptr && (std::is_same_v<T, int> ? FitsInt(*v) : v->is_array());
    if (ok && v->is_array()) {
      for (const json& item : *v) ok = ok && FitsInt(item);
    }
    if (v != nullptr && !ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "agent protocol: field ", key, ": expected a 32-bit integer, got ", DumpJson(*v)));
    }
  }
  try {
    return j.at(key).get<T>();
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("agent protocol: field ", key, ": ", e.what()));
  }
}

json MountsJson(const std::vector<TaskMount>& mounts) {
  json out = json::array();
  for (const TaskMount& m : mounts) {
    out.push_back({{"host_path", m.host_path}, {"container_path", m.container_path}, {"read_only", m.read_only}});
  }
  return out;
}

absl::StatusOr<std::vector<TaskMount>> MountsFromJson(const json& mounts) {
  if (!mounts.is_array()) return absl::InvalidArgumentError("agent protocol: field mounts: expected a list");
  std::vector<TaskMount> out;
  for (const json& m : mounts) {
    TaskMount mount;
    ASSIGN_OR_RETURN(mount.host_path, Get<std::string>(m, "host_path"));
    ASSIGN_OR_RETURN(mount.container_path, Get<std::string>(m, "container_path"));
    ASSIGN_OR_RETURN(mount.read_only, Get<bool>(m, "read_only"));
    out.push_back(std::move(mount));
  }
  return out;
}

}  // namespace

std::string Encode(const AgentMessage& msg) {
  json j = std::visit(
      Overloaded{
          [](const AgentHello& m) {
            json slots = json::array();
            for (const SlotInfo& s : m.slots) {
              slots.push_back({{"id", s.id}, {"type", s.type}, {"device", s.device}, {"uuid", s.uuid}});
            }
            return json{{"type", "agent_hello"}, {"slots", slots}, {"running_allocations", m.running_allocations}};
          },
          [](const TaskStarted& m) {
            return json{{"type", "task_started"}, {"allocation_id", m.allocation_id}, {"pid", m.pid}};
          },
          [](const TaskExited& m) {
            return json{{"type", "task_exited"},
                        {"allocation_id", m.allocation_id},
                        {"exit_code", m.exit_code},
                        {"error", m.error}};
          },
      },
      msg);
  return j.dump();
}

std::string Encode(const MasterMessage& msg) {
  json j = std::visit(Overloaded{
                          [](const StartTask& m) {
                            json start = {{"type", "start_task"},
                                        {"allocation_id", m.allocation_id},
                                        {"task_id", m.task_id},
                                        {"task_type", m.task_type},
                                        {"entrypoint", m.entrypoint},
                                        {"env", m.env},
                                        {"slot_ids", m.slot_ids},
                                        {"session_token", m.session_token},
                                        {"download_context", m.download_context},
                                        {"work_dir", m.work_dir},
                                        {"mounts", MountsJson(m.mounts)}};
                            if (m.container) {
                              const TaskContainer& c = *m.container;
                              start["container"] = {{"image", c.image},
                                                    {"force_pull", c.force_pull},
                                                    {"registry_auth", c.registry_auth},
                                                    {"add_capabilities", c.add_capabilities},
                                                    {"drop_capabilities", c.drop_capabilities},
                                                    {"devices", c.devices},
                                                    {"shm_size", c.shm_size},
                                                    {"network_mode", c.network_mode}};
                            }
                            if (m.user) {
                              start["user"] = {{"uid", m.user->uid},
                                               {"gid", m.user->gid},
                                               {"user", m.user->user},
                                               {"group", m.user->group}};
                            }
                            return start;
                          },
                          [](const KillTask& m) {
                            return json{{"type", "kill_task"},
                                        {"allocation_id", m.allocation_id},
                                        {"grace_seconds", m.grace_seconds}};
                          },
                          [](const AgentRefused& m) { return json{{"type", "agent_refused"}, {"reason", m.reason}}; },
                      },
                      msg);
  return j.dump();
}

absl::StatusOr<AgentMessage> DecodeAgentMessage(const std::string& text) {
  ASSIGN_OR_RETURN(json j, ParseJson(text));
  ASSIGN_OR_RETURN(std::string type, Get<std::string>(j, "type"));
  if (type == "agent_hello") {
    AgentHello m;
    ASSIGN_OR_RETURN(json slots, Get<json>(j, "slots"));
    for (const json& s : slots) {
      SlotInfo info;
      ASSIGN_OR_RETURN(info.id, Get<int>(s, "id"));
      ASSIGN_OR_RETURN(info.type, Get<std::string>(s, "type"));
      ASSIGN_OR_RETURN(info.device, Get<std::string>(s, "device"));
      if (s.contains("uuid")) {  // agents from before GPUs send none
        ASSIGN_OR_RETURN(info.uuid, Get<std::string>(s, "uuid"));
      }
      m.slots.push_back(info);
    }
    ASSIGN_OR_RETURN(m.running_allocations, Get<std::vector<std::string>>(j, "running_allocations"));
    return m;
  }
  if (type == "task_started") {
    TaskStarted m;
    ASSIGN_OR_RETURN(m.allocation_id, Get<std::string>(j, "allocation_id"));
    ASSIGN_OR_RETURN(m.pid, Get<int>(j, "pid"));
    return m;
  }
  if (type == "task_exited") {
    TaskExited m;
    ASSIGN_OR_RETURN(m.allocation_id, Get<std::string>(j, "allocation_id"));
    ASSIGN_OR_RETURN(m.exit_code, Get<int>(j, "exit_code"));
    ASSIGN_OR_RETURN(m.error, Get<std::string>(j, "error"));
    return m;
  }
  return absl::InvalidArgumentError(absl::StrCat("agent protocol: unknown agent message type \"", type, "\""));
}

absl::StatusOr<MasterMessage> DecodeMasterMessage(const std::string& text) {
  ASSIGN_OR_RETURN(json j, ParseJson(text));
  ASSIGN_OR_RETURN(std::string type, Get<std::string>(j, "type"));
  if (type == "start_task") {
    StartTask m;
    ASSIGN_OR_RETURN(m.allocation_id, Get<std::string>(j, "allocation_id"));
    ASSIGN_OR_RETURN(m.task_id, Get<std::string>(j, "task_id"));
    ASSIGN_OR_RETURN(m.task_type, Get<std::string>(j, "task_type"));
    ASSIGN_OR_RETURN(m.entrypoint, Get<std::vector<std::string>>(j, "entrypoint"));
    ASSIGN_OR_RETURN(m.env, (Get<std::map<std::string, std::string>>(j, "env")));
    ASSIGN_OR_RETURN(m.slot_ids, Get<std::vector<int>>(j, "slot_ids"));
    ASSIGN_OR_RETURN(m.session_token, Get<std::string>(j, "session_token"));
    ASSIGN_OR_RETURN(m.download_context, Get<bool>(j, "download_context"));
    // Absent from masters that predate commands.
    if (j.contains("work_dir")) {
      ASSIGN_OR_RETURN(m.work_dir, Get<std::string>(j, "work_dir"));
    }
    if (j.contains("mounts")) {
      ASSIGN_OR_RETURN(m.mounts, MountsFromJson(j["mounts"]));
    }
    if (j.contains("container")) {
      const json& c = j["container"];
      TaskContainer container;
      ASSIGN_OR_RETURN(container.image, Get<std::string>(c, "image"));
      ASSIGN_OR_RETURN(container.force_pull, Get<bool>(c, "force_pull"));
      ASSIGN_OR_RETURN(container.registry_auth, (Get<std::map<std::string, std::string>>(c, "registry_auth")));
      ASSIGN_OR_RETURN(container.add_capabilities, Get<std::vector<std::string>>(c, "add_capabilities"));
      ASSIGN_OR_RETURN(container.drop_capabilities, Get<std::vector<std::string>>(c, "drop_capabilities"));
      ASSIGN_OR_RETURN(container.devices, Get<std::vector<std::string>>(c, "devices"));
      ASSIGN_OR_RETURN(container.shm_size, Get<int64_t>(c, "shm_size"));
      ASSIGN_OR_RETURN(container.network_mode, Get<std::string>(c, "network_mode"));
      m.container = std::move(container);
    }
    if (j.contains("user")) {
      const json& u = j["user"];
      TaskUser user;
      ASSIGN_OR_RETURN(user.uid, Get<uint32_t>(u, "uid"));
      ASSIGN_OR_RETURN(user.gid, Get<uint32_t>(u, "gid"));
      ASSIGN_OR_RETURN(user.user, Get<std::string>(u, "user"));
      ASSIGN_OR_RETURN(user.group, Get<std::string>(u, "group"));
      m.user = std::move(user);
    }
    return m;
  }
  if (type == "kill_task") {
    KillTask m;
    ASSIGN_OR_RETURN(m.allocation_id, Get<std::string>(j, "allocation_id"));
    ASSIGN_OR_RETURN(m.grace_seconds, Get<int>(j, "grace_seconds"));
    return m;
  }
  if (type == "agent_refused") {
    AgentRefused m;
    ASSIGN_OR_RETURN(m.reason, Get<std::string>(j, "reason"));
    return m;
  }
  return absl::InvalidArgumentError(absl::StrCat("agent protocol: unknown master message type \"", type, "\""));
}

}  // namespace det::api
