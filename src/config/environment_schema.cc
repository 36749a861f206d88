#include "config/environment_schema.h"

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"

namespace det::config {
namespace {

using nlohmann::json;

const std::vector<Field>& EnvironmentFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "image"},
      {.name = "environment_variables"},
      {.name = "proxy_ports", .default_value = json::array()},
      {.name = "ports", .kind = Kind::kObject, .default_value = json::object()},
      {.name = "force_pull_image", .kind = Kind::kBool, .default_value = false},
      {.name = "registry_auth"},
      {.name = "add_capabilities", .kind = Kind::kStringList, .default_value = json::array()},
      {.name = "drop_capabilities", .kind = Kind::kStringList, .default_value = json::array()},
      {.name = "pod_spec", .kind = Kind::kObject},
  };
  return *f;
}

const std::vector<Field>& PerTypeFields(Kind kind) {
  static const auto* strings = new std::vector<Field>{{.name = "cpu", .kind = Kind::kString},
                                                      {.name = "cuda", .kind = Kind::kString},
                                                      {.name = "rocm", .kind = Kind::kString},
                                                      {.name = "gpu", .kind = Kind::kString}};
  static const auto* lists = new std::vector<Field>{{.name = "cpu", .kind = Kind::kStringList},
                                                    {.name = "cuda", .kind = Kind::kStringList},
                                                    {.name = "rocm", .kind = Kind::kStringList},
                                                    {.name = "gpu", .kind = Kind::kStringList}};
  return kind == Kind::kString ? *strings : *lists;
}

const std::vector<Field>& ProxyPortFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "proxy_port", .kind = Kind::kInt, .min = 1, .max = 65535},
      {.name = "proxy_tcp", .kind = Kind::kBool, .default_value = false},
      {.name = "unauthenticated", .kind = Kind::kBool, .default_value = false},
      {.name = "default_service_id", .kind = Kind::kBool, .default_value = false},
  };
  return *f;
}

const std::vector<Field>& RegistryAuthFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "username", .kind = Kind::kString},
      {.name = "password", .kind = Kind::kString},
      {.name = "auth", .kind = Kind::kString},
      {.name = "email", .kind = Kind::kString},
      {.name = "serveraddress", .kind = Kind::kString},
      {.name = "identitytoken", .kind = Kind::kString},
      {.name = "registrytoken", .kind = Kind::kString},
  };
  return *f;
}

const std::vector<Field>& BindMountFields() {
  static const auto* f = new std::vector<Field>{
      {.name = "host_path", .kind = Kind::kString},
      {.name = "container_path", .kind = Kind::kString},
      {.name = "read_only", .kind = Kind::kBool, .default_value = false},
      {.name = "propagation", .kind = Kind::kString, .default_value = "rprivate"},
  };
  return *f;
}

// A value given for every device type (`kind` string or list) or per type; returns {cpu, cuda,
// rocm} with `defaults` filling gaps, or null after a problem.
json PerDeviceType(json& v, const std::string& path, Kind kind, const json& defaults, Problems& p) {
  json out = defaults;
  if (v.is_null()) return out;
  if (!v.is_object()) {
    Field all{.name = "", .kind = kind};
    if (!CheckValue(v, path, all, p)) return nullptr;
    for (const char* t : {"cpu", "cuda", "rocm"}) out[t] = v;
    return out;
  }
  if (!CheckObject(v, path, PerTypeFields(kind), p, {.fill_null_defaults = false})) return nullptr;
  if (IsSet(v, "gpu") && !IsSet(v, "cuda")) v["cuda"] = v["gpu"];
  for (const char* t : {"cpu", "cuda", "rocm"}) {
    if (IsSet(v, t)) out[t] = v[t];
  }
  return out;
}

}  // namespace

std::string UnusedImageNote(const json& environment) {
  const json* images = environment.is_object() && environment.contains("image") ? &environment["image"] : nullptr;
  if (images == nullptr || !images->is_object()) return "";
  for (const auto& [type, fallback] : {std::pair{"cpu", kDefaultCpuImage}, std::pair{"cuda", kDefaultCudaImage},
                                       std::pair{"rocm", kDefaultRocmImage}}) {
    auto it = images->find(type);
    if (it == images->end() || !it->is_string() || *it == fallback) continue;
    return absl::StrCat("environment.image (", it->get<std::string>(),
                        ") is used only where tasks run in containers: on agents with a container engine "
                        "(container_socket) and on Kubernetes; elsewhere the task runs as a process on its host, "
                        "with the host's Python and packages");
  }
  return "";
}

void CheckEnvironment(json& env, Problems& p) {
  if (!CheckObject(env, "environment", EnvironmentFields(), p)) return;
  static const json kImages = {
      {"cpu", kDefaultCpuImage}, {"cuda", kDefaultCudaImage}, {"rocm", kDefaultRocmImage}};
  static const json kNoVariables = {
      {"cpu", json::array()}, {"cuda", json::array()}, {"rocm", json::array()}};
  json image = PerDeviceType(env["image"], "environment.image", Kind::kString, kImages, p);
  if (!image.is_null()) env["image"] = std::move(image);
  if (std::string note = UnusedImageNote(env); !note.empty()) p.Warn(std::move(note));
  json vars = PerDeviceType(env["environment_variables"], "environment.environment_variables",
                            Kind::kStringList, kNoVariables, p);
  if (!vars.is_null()) env["environment_variables"] = std::move(vars);

  json& proxy_ports = env["proxy_ports"];
  if (!proxy_ports.is_array()) {
    p.Add("environment.proxy_ports", absl::StrCat("must be a list, got ", Describe(proxy_ports)));
  } else {
    for (size_t i = 0; i < proxy_ports.size(); ++i) {
      std::string item = IndexPath("environment.proxy_ports", i);
      if (CheckObject(proxy_ports[i], item, ProxyPortFields(), p)) {
        Require(proxy_ports[i], item, "proxy_port", "", p);
      }
    }
  }
  const json& ports = env["ports"];
  if (ports.is_object()) {
    Field port{.name = "", .kind = Kind::kInt, .min = 1, .max = 65535};
    for (const auto& [name, value] : ports.items()) {
      CheckValue(value, JoinPath("environment.ports", name), port, p);
    }
  }
  if (!env["registry_auth"].is_null()) {
    CheckObject(env["registry_auth"], "environment.registry_auth", RegistryAuthFields(), p,
                {.fill_null_defaults = false});
  }
}

void CheckBindMounts(json& mounts, Problems& p) {
  if (mounts.is_null()) mounts = json::array();
  if (!mounts.is_array()) {
    p.Add("bind_mounts", absl::StrCat("must be a list of bind mounts, got ", Describe(mounts)));
    return;
  }
  for (size_t i = 0; i < mounts.size(); ++i) {
    std::string item = IndexPath("bind_mounts", i);
    if (!CheckObject(mounts[i], item, BindMountFields(), p)) continue;
    Require(mounts[i], item, "host_path", "", p);
    Require(mounts[i], item, "container_path", "", p);
  }
}

}  // namespace det::config
