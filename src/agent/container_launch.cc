#include "agent/container_launch.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "agent/docker_streams.h"

namespace det::agent {

std::optional<RegistryAuth> RegistryAuthOf(const std::map<std::string, std::string>& registry_auth) {
  if (registry_auth.empty()) return std::nullopt;
  auto get = [&](const char* key) {
    auto it = registry_auth.find(key);
    return it == registry_auth.end() ? std::string() : it->second;
  };
  return RegistryAuth{.username = get("username"),
                      .password = get("password"),
                      .server_address = get("serveraddress"),
                      .auth = get("auth"),
                      .identity_token = get("identitytoken")};
}

absl::StatusOr<ContainerSettings> PrepareContainer(ContainerEngine& engine, const api::StartTask& start,
                                                   const std::filesystem::path& task_dir,
                                                   const std::vector<api::SlotInfo>& slots,
                                                   const std::function<void(std::string)>& say) {
  const api::TaskContainer& c = *start.container;
  absl::StatusOr<bool> present = c.force_pull ? absl::StatusOr<bool>(false) : engine.HasImage(c.image);
  if (!present.ok()) return present.status();
  if (!*present) {
    say(absl::StrCat("Pulling image ", c.image, c.force_pull ? " (force_pull_image)" : ""));
    PullReporter reporter(say, std::chrono::seconds(2));
    absl::Status pulled = engine.Pull(c.image, RegistryAuthOf(c.registry_auth), [&](const PullMessage& m) {
      if (m.error.empty()) reporter.Add(m, std::chrono::steady_clock::now());
    });
    if (!pulled.ok()) return pulled;
    say(absl::StrCat("Pulled image ", c.image));
  }
  ContainerSettings settings{.image = c.image,
                             .network_mode = c.network_mode,
                             .shm_size = c.shm_size,
                             .cap_add = c.add_capabilities,
                             .cap_drop = c.drop_capabilities,
                             .devices = c.devices};
  settings.binds.push_back(absl::StrCat(task_dir.string(), ":", task_dir.string()));
  for (const api::TaskMount& m : start.mounts) {
    std::filesystem::path inside = m.container_path;
    if (inside.is_relative()) inside = task_dir / inside;
    settings.binds.push_back(absl::StrCat(m.host_path, ":", inside.string(), m.read_only ? ":ro" : ""));
  }
  for (const api::SlotInfo& slot : slots) {
    const bool ours = std::find(start.slot_ids.begin(), start.slot_ids.end(), slot.id) != start.slot_ids.end();
    if (ours && slot.type == "cuda" && !slot.uuid.empty()) settings.gpus.push_back(slot.uuid);
  }
  return settings;
}

}  // namespace det::agent
