#include "master/rm/task_container.h"

#include "absl/strings/str_cat.h"
#include "config/environment_schema.h"
#include "config/resources_schema.h"

namespace det::master {

using nlohmann::json;

ContainerDefaults ContainerDefaultsOf(const std::string& tcd_json) {
  ContainerDefaults out;
  const json tcd = json::parse(tcd_json, nullptr, false);
  if (!tcd.is_object()) return out;
  if (auto it = tcd.find("shm_size_bytes"); it != tcd.end() && it->is_number_integer()) out.shm_size = it->get<int64_t>();
  if (auto it = tcd.find("network_mode"); it != tcd.end() && it->is_string() && !it->get<std::string>().empty()) {
    out.network_mode = it->get<std::string>();
  }
  return out;
}

absl::StatusOr<std::optional<api::TaskContainer>> TaskContainerOf(const json& environment, const json& resources,
                                                                  const std::string& slot_type,
                                                                  const ContainerDefaults& defaults) {
  if (!environment.is_object() || !environment.contains("image")) return std::nullopt;
  const json& image = environment["image"];
  api::TaskContainer c;
  const std::string key = slot_type == "cuda" || slot_type == "rocm" ? slot_type : "cpu";
  if (image.is_string()) {
    c.image = image.get<std::string>();
  } else if (image.is_object()) {
    if (image.contains(key) && image[key].is_string()) c.image = image[key].get<std::string>();
  }
  // The defaults (upstream's images, which every config gets) are no one's choice: such a task runs on
  // the host, as it always has here.
  const std::string fallback = key == "cuda"   ? config::kDefaultCudaImage
                               : key == "rocm" ? config::kDefaultRocmImage
                                               : config::kDefaultCpuImage;
  if (c.image.empty() || c.image == fallback) return std::nullopt;
  auto strings = [&](const char* key) {
    std::vector<std::string> out;
    if (environment.contains(key) && environment[key].is_array()) {
      for (const json& v : environment[key]) {
        if (v.is_string()) out.push_back(v.get<std::string>());
      }
    }
    return out;
  };
  c.force_pull = environment.value("force_pull_image", false);
  c.shm_size = defaults.shm_size;
  c.network_mode = defaults.network_mode;
  c.add_capabilities = strings("add_capabilities");
  c.drop_capabilities = strings("drop_capabilities");
  if (environment.contains("registry_auth") && environment["registry_auth"].is_object()) {
    for (const auto& [k, v] : environment["registry_auth"].items()) {
      if (v.is_string() && !v.get<std::string>().empty()) c.registry_auth[k] = v.get<std::string>();
    }
  }
  if (resources.is_object()) {
    if (resources.contains("shm_size") && !resources["shm_size"].is_null()) {
      std::optional<int64_t> bytes = config::SizeInBytes(resources["shm_size"]);
      if (!bytes) {
        return absl::InvalidArgumentError(
            absl::StrCat("resources.shm_size: not a size the agent can use: ", resources["shm_size"].dump()));
      }
      c.shm_size = *bytes;
    }
    if (resources.contains("devices") && resources["devices"].is_array()) {
      for (const json& d : resources["devices"]) {
        if (d.is_string()) {
          c.devices.push_back(d.get<std::string>());
        } else if (d.is_object() && d.contains("host_path") && d["host_path"].is_string()) {
          const std::string host = d["host_path"].get<std::string>();
          const std::string in_container = d.value("container_path", host);
          c.devices.push_back(absl::StrCat(host, ":", in_container, ":", d.value("mode", "mrw")));
        }
      }
    }
  }
  return c;
}

}  // namespace det::master
