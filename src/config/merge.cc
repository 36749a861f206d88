#include "config/merge.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace det::config {
namespace {

using nlohmann::json;

bool Unset(const json* v) { return v == nullptr || v->is_null(); }

const json* Find(const json& object, const std::string& key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string JoinPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// The container path of a device, given as {host_path, container_path, mode} or as the string
// "host[:container[:mode]]" (container defaults to host, as in upstream's DeviceV0).
std::string DeviceContainerPath(const json& device) {
  if (device.is_object()) {
    const json* c = Find(device, "container_path");
    return c != nullptr && c->is_string() ? c->get<std::string>() : "";
  }
  if (!device.is_string()) return "";
  std::string s = device.get<std::string>();
  size_t first = s.find(':');
  if (first == std::string::npos) return s;
  size_t second = s.find(':', first + 1);
  return s.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
}

// obj's entries, then src's entries whose key (by `key_of`; "" = no key) obj does not have.
template <class KeyOf>
json MergeListByKey(const json& obj, const json& src, KeyOf key_of) {
  json out = obj;
  std::set<std::string> seen;
  for (const json& e : obj) seen.insert(key_of(e));
  for (const json& e : src) {
    std::string k = key_of(e);
    if (k.empty() || !seen.count(k)) out.push_back(e);
  }
  return out;
}

std::string ProxyPortKey(const json& p) {
  const json* port = Find(p, "proxy_port");
  return Unset(port) ? "" : port->dump();
}

// Named policies compare by name; legacy unnamed ones by "action:pattern", where a legacy action
// may be an object {type: ...}.
std::string LogPolicyKey(const json& p) {
  const json* name = Find(p, "name");
  if (!Unset(name))
    return "name\x1f" + (name->is_string() ? name->get<std::string>() : name->dump());
  std::string action;
  if (const json* a = Find(p, "action"); !Unset(a)) {
    const json* type = Find(*a, "type");
    if (a->is_string()) {
      action = a->get<std::string>();
    } else if (!Unset(type) && type->is_string()) {
      action = type->get<std::string>();
    } else {
      action = a->dump();
    }
  }
  std::string pattern;
  if (const json* pt = Find(p, "pattern"); !Unset(pt)) {
    pattern = pt->is_string() ? pt->get<std::string>() : pt->dump();
  }
  return "legacy\x1f" + action + ":" + pattern;
}

json MergeValue(const json& obj, const json& src, const std::string& path);

// {cpu, cuda, rocm} from either form; a plain list applies to all three.
json EnvVarsAsMap(const json& v) {
  if (!v.is_array()) return v;
  return {{"cpu", v}, {"cuda", v}, {"rocm", v}};
}

json MergeEnvironmentVariables(const json& obj, const json& src) {
  if (obj.is_array() && src.is_array()) {
    json out = src;
    for (const json& e : obj) out.push_back(e);
    return out;
  }
  json o = EnvVarsAsMap(obj), s = EnvVarsAsMap(src);
  if (!o.is_object() || !s.is_object()) return obj;  // malformed: obj wins, the parser reports it
  json out = s;
  for (const auto& [key, value] : o.items()) {
    const json* sv = Find(s, key);
    if (!Unset(sv) && sv->is_array() && value.is_array()) {
      json joined = *sv;
      for (const json& e : value) joined.push_back(e);
      out[key] = std::move(joined);
    } else if (!value.is_null()) {
      out[key] = value;
    }
  }
  return out;
}

bool IsNestedHyperparameter(const json& hp) { return hp.is_object() && Unset(Find(hp, "type")); }

// hyperparameters (or a nested hyperparameter): per name, obj wins wholesale unless both are
// nested.
json MergeHyperparameters(const json& obj, const json& src) {
  json out = src;
  for (const auto& [name, hp] : obj.items()) {
    const json* s = Find(src, name);
    if (hp.is_null()) continue;  // unset: src's (if any) stays
    if (!Unset(s) && IsNestedHyperparameter(hp) && IsNestedHyperparameter(*s)) {
      out[name] = MergeHyperparameters(hp, *s);
    } else {
      out[name] = hp;
    }
  }
  return out;
}

struct Union {
  const char* variant_key;
  std::set<std::string> common;
};

const Union* UnionAt(const std::string& path) {
  static const Union kSearcher{
      "name", {"metric", "smaller_is_better", "source_trial_id", "source_checkpoint_uuid"}};
  static const Union kCheckpointStorage{
      "type", {"save_experiment_best", "save_trial_best", "save_trial_latest"}};
  if (path == "searcher") return &kSearcher;
  if (path == "checkpoint_storage") return &kCheckpointStorage;
  return nullptr;
}

json MergeObjects(const json& obj, const json& src, const std::string& path) {
  json out = obj;
  for (const auto& [key, value] : src.items()) {
    const json* o = Find(obj, key);
    out[key] = Unset(o) ? value : MergeValue(*o, value, JoinPath(path, key));
  }
  return out;
}

// Union merge: drop src's variant-specific fields when obj names a different variant.
json MergeUnion(const json& obj, const json& src, const Union& u, const std::string& path) {
  const json* ov = Find(obj, u.variant_key);
  const json* sv = Find(src, u.variant_key);
  if (Unset(ov) || (!Unset(sv) && *ov == *sv)) return MergeObjects(obj, src, path);
  json common = json::object();
  for (const auto& [key, value] : src.items()) {
    if (u.common.count(key)) common[key] = value;
  }
  return MergeObjects(obj, common, path);
}

json MergeValue(const json& obj, const json& src, const std::string& path) {
  if (obj.is_null()) return src;
  if (src.is_null()) return obj;
  if (path == "environment.environment_variables") return MergeEnvironmentVariables(obj, src);
  if (path == "environment.image") {
    if (obj.is_object() && src.is_string()) {
      return MergeObjects(obj, json{{"cpu", src}, {"cuda", src}, {"rocm", src}}, path);
    }
  }
  if (obj.is_array() && src.is_array()) {
    if (path == "bind_mounts" || path == "resources.devices") {
      return MergeListByKey(obj, src, DeviceContainerPath);
    }
    if (path == "environment.proxy_ports") return MergeListByKey(obj, src, ProxyPortKey);
    if (path == "log_policies") return MergeListByKey(obj, src, LogPolicyKey);
    return obj;
  }
  if (obj.is_object() && src.is_object()) {
    if (path == "hyperparameters") return MergeHyperparameters(obj, src);
    if (const Union* u = UnionAt(path)) return MergeUnion(obj, src, *u, path);
    return MergeObjects(obj, src, path);
  }
  return obj;  // scalars, or different kinds: obj wins
}

}  // namespace

json MergeExperimentConfig(const json& obj, const json& src) { return MergeValue(obj, src, ""); }

}  // namespace det::config
