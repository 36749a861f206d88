#include "master/rm/kubernetes/pod_spec_merge.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace det::master::kube {
namespace {

using nlohmann::json;

constexpr absl::string_view kContainerLists[] = {"containers", "initContainers",
                                                 "ephemeralContainers"};

absl::Status Bad(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

absl::Status WrongType(absl::string_view field, absl::string_view want, const json& got) {
  return Bad(field, absl::StrCat("must be ", want, ", got ", got.type_name()));
}

// The value at `key` of an object, or null when it is missing or null.
const json* Get(const json& object, absl::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

absl::Status CheckObject(const json& object, absl::string_view key, absl::string_view field,
                         const json** out = nullptr) {
  const json* value = Get(object, key);
  if (out != nullptr) *out = value;
  if (value != nullptr && !value->is_object()) return WrongType(field, "an object", *value);
  return absl::OkStatus();
}

absl::Status CheckStringMap(const json& object, absl::string_view key, absl::string_view field) {
  const json* map = nullptr;
  if (absl::Status s = CheckObject(object, key, field, &map); !s.ok()) return s;
  if (map == nullptr) return absl::OkStatus();
  for (const auto& [name, value] : map->items()) {
    if (!value.is_string()) return WrongType(absl::StrCat(field, ".", name), "a string", value);
  }
  return absl::OkStatus();
}

// A list of objects; with `merge_key`, each must hold it (a string, or for containerPort an
// integer): the strategic merge and Kubernetes both need it.
absl::Status CheckList(const json& object, absl::string_view key, absl::string_view field,
                       absl::string_view merge_key = "", const json** out = nullptr) {
  const json* list = Get(object, key);
  if (out != nullptr) *out = list;
  if (list == nullptr) return absl::OkStatus();
  if (!list->is_array()) return WrongType(field, "a list", *list);
  for (size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    std::string item_field = absl::StrCat(field, "[", i, "]");
    if (!item.is_object()) return WrongType(item_field, "an object", item);
    if (merge_key.empty()) continue;
    const json* value = Get(item, merge_key);
    bool integer_key = merge_key == "containerPort";
    if (value == nullptr) return Bad(item_field, absl::StrCat("has no ", merge_key));
    if (integer_key ? !value->is_number_integer() : !value->is_string()) {
      return WrongType(absl::StrCat(item_field, ".", merge_key),
                       integer_key ? "an integer" : "a string", *value);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckContainer(const json& container, const std::string& field) {
  std::pair<absl::string_view, absl::string_view> keyed[] = {{"env", "name"},
                                                             {"volumeMounts", "mountPath"},
                                                             {"volumeDevices", "devicePath"},
                                                             {"ports", "containerPort"},
                                                             {"envFrom", ""}};
  for (const auto& [key, merge_key] : keyed) {
    if (absl::Status s = CheckList(container, key, absl::StrCat(field, ".", key), merge_key);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = CheckObject(container, "securityContext", field + ".securityContext");
      !s.ok()) {
    return s;
  }
  const json* resources = nullptr;
  if (absl::Status s = CheckObject(container, "resources", field + ".resources", &resources);
      !s.ok() || resources == nullptr) {
    return s;
  }
  for (absl::string_view kind : {"limits", "requests"}) {
    std::string kind_field = absl::StrCat(field, ".resources.", kind);
    const json* quantities = nullptr;
    if (absl::Status s = CheckObject(*resources, kind, kind_field, &quantities);
        !s.ok() || quantities == nullptr) {
      if (!s.ok()) return s;
      continue;
    }
    for (const auto& [name, quantity] : quantities->items()) {
      if (!quantity.is_string() && !quantity.is_number()) {
        return WrongType(absl::StrCat(kind_field, ".", name), "a quantity (string or number)",
                         quantity);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAffinity(const json& spec, const std::string& field) {
  const json* affinity = nullptr;
  if (absl::Status s = CheckObject(spec, "affinity", field + ".affinity", &affinity);
      !s.ok() || affinity == nullptr) {
    return s;
  }
  std::string node_field = field + ".affinity.nodeAffinity";
  const json* node = nullptr;
  if (absl::Status s = CheckObject(*affinity, "nodeAffinity", node_field, &node);
      !s.ok() || node == nullptr) {
    return s;
  }
  std::string required_field = node_field + ".requiredDuringSchedulingIgnoredDuringExecution";
  const json* required = nullptr;
  if (absl::Status s = CheckObject(*node, "requiredDuringSchedulingIgnoredDuringExecution",
                                   required_field, &required);
      !s.ok() || required == nullptr) {
    return s;
  }
  std::string terms_field = required_field + ".nodeSelectorTerms";
  const json* terms = nullptr;
  if (absl::Status s = CheckList(*required, "nodeSelectorTerms", terms_field, "", &terms);
      !s.ok() || terms == nullptr) {
    return s;
  }
  for (size_t i = 0; i < terms->size(); ++i) {
    for (absl::string_view key : {"matchExpressions", "matchFields"}) {
      if (absl::Status s =
              CheckList((*terms)[i], key, absl::StrCat(terms_field, "[", i, "].", key));
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

// The strategic merge key of the list at `path` (dotted, "[]" after a list's name for its items),
// or "" for a list that is replaced whole.
absl::string_view MergeKeyAt(absl::string_view path) {
  static const std::vector<std::pair<std::string, absl::string_view>> kKeys = [] {
    std::vector<std::pair<std::string, absl::string_view>> keys = {
        {"spec.volumes", "name"},         {"spec.imagePullSecrets", "name"},
        {"spec.schedulingGates", "name"}, {"spec.resourceClaims", "name"},
        {"spec.hostAliases", "ip"},       {"spec.topologySpreadConstraints", "topologyKey"},
    };
    for (absl::string_view list : kContainerLists) {
      std::string base = absl::StrCat("spec.", list);
      keys.emplace_back(base, "name");
      keys.emplace_back(base + "[].env", "name");
      keys.emplace_back(base + "[].volumeMounts", "mountPath");
      keys.emplace_back(base + "[].volumeDevices", "devicePath");
      keys.emplace_back(base + "[].ports", "containerPort");
    }
    return keys;
  }();
  for (const auto& [list_path, key] : kKeys) {
    if (list_path == path) return key;
  }
  return "";
}

bool Unset(const json& value) {
  return value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty()) ||
         ((value.is_array() || value.is_object()) && value.empty());
}

absl::StatusOr<json> MergeValue(const json& base, const json& over, const std::string& path,
                                absl::string_view field);

absl::StatusOr<json> MergeObjects(const json& base, const json& over, const std::string& path,
                                  absl::string_view field) {
  json merged = base;
  for (const auto& [key, value] : over.items()) {
    if (Unset(value)) continue;
    std::string child = path.empty() ? key : absl::StrCat(path, ".", key);
    auto it = merged.find(key);
    if (it == merged.end() || it->is_null()) {
      merged[key] = value;
      continue;
    }
    absl::StatusOr<json> value_merged = MergeValue(*it, value, child, field);
    if (!value_merged.ok()) return value_merged.status();
    *it = *std::move(value_merged);
  }
  return merged;
}

// Index of the item whose `key` equals `item`'s in `list`, or -1.
int IndexByKey(const json& list, const json& item, absl::string_view key) {
  const json* wanted = Get(item, key);
  if (wanted == nullptr) return -1;
  for (size_t i = 0; i < list.size(); ++i) {
    const json* value = Get(list[i], key);
    if (value != nullptr && *value == *wanted) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<json> MergeKeyedLists(const json& base, const json& over, absl::string_view key,
                                     const std::string& path, absl::string_view field) {
  for (const json* list : {&base, &over}) {
    for (const json& item : *list) {
      if (Get(item, key) == nullptr) {
        return Bad(absl::StrCat(field, ".", path),
                   absl::StrCat("every item of this list needs a ", key));
      }
    }
  }
  // The task's items in its order, each merged with the pool's item of the same key.
  std::vector<json> task_items;
  for (const json& item : over) {
    int in_base = IndexByKey(base, item, key);
    if (in_base < 0) {
      task_items.push_back(item);
      continue;
    }
    const json& base_item = base[in_base];
    json kept = base_item;
    if (path == "spec.volumes") {
      // retainKeys: the task's volume source replaces the pool's.
      kept = json::object();
      for (const auto& [name, value] : base_item.items()) {
        if (item.contains(name)) kept[name] = value;
      }
    }
    absl::StatusOr<json> merged = MergeObjects(kept, item, path + "[]", field);
    if (!merged.ok()) return merged.status();
    task_items.push_back(*std::move(merged));
  }
  std::vector<json> pool_only;
  for (const json& item : base) {
    if (IndexByKey(over, item, key) < 0) pool_only.push_back(item);
  }
  // Kubernetes' interleaving: a pool-only item goes first only when the next task item also came
  // from the pool's list, after it.
  json merged = json::array();
  size_t i = 0;
  size_t j = 0;
  while (i < pool_only.size() || j < task_items.size()) {
    bool take_pool;
    if (j == task_items.size()) {
      take_pool = true;
    } else if (i == pool_only.size()) {
      take_pool = false;
    } else {
      int pool_index = IndexByKey(base, pool_only[i], key);
      int task_index = IndexByKey(base, task_items[j], key);
      take_pool = task_index >= 0 && pool_index < task_index;
    }
    merged.push_back(take_pool ? pool_only[i++] : task_items[j++]);
  }
  return merged;
}

absl::StatusOr<json> MergeValue(const json& base, const json& over, const std::string& path,
                                absl::string_view field) {
  if (Unset(over)) return base;
  if (base.is_object() && over.is_object()) return MergeObjects(base, over, path, field);
  if (base.is_array() && over.is_array()) {
    absl::string_view key = MergeKeyAt(path);
    if (!key.empty()) return MergeKeyedLists(base, over, key, path, field);
  }
  return over;
}

json DropNulls(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [key, child] : value.items()) {
      if (!child.is_null()) out[key] = DropNulls(child);
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const json& child : value) out.push_back(DropNulls(child));
    return out;
  }
  return value;
}

void Append(json& to, const json* items) {
  if (items == nullptr) return;
  if (!to.is_array()) to = json::array();
  for (const json& item : *items) to.push_back(item);
}

// The user's determined-container into ours (step 3 of the header).
void MergeDeterminedContainer(json& ours, const json& user, bool first) {
  for (absl::string_view key : {"env", "envFrom", "volumeMounts", "volumeDevices"}) {
    const json* items = Get(user, key);
    if (items != nullptr && !items->empty()) Append(ours[std::string(key)], items);
  }
  if (const json* resources = Get(user, "resources")) {
    for (absl::string_view kind : {"limits", "requests"}) {
      const json* quantities = Get(*resources, kind);
      if (quantities == nullptr || quantities->empty()) continue;
      json& our_quantities = ours["resources"][std::string(kind)];
      if (!our_quantities.is_object()) our_quantities = json::object();
      for (const auto& [name, quantity] : quantities->items()) {
        if (!our_quantities.contains(name)) our_quantities[name] = quantity;
      }
    }
  }
  if (!first) return;
  const json* user_context = Get(user, "securityContext");
  json context = user_context != nullptr ? *user_context : json::object();
  const json* our_context = Get(ours, "securityContext");
  for (absl::string_view key : {"runAsUser", "runAsGroup"}) {
    const json* value = our_context != nullptr ? Get(*our_context, key) : nullptr;
    if (value != nullptr) {
      context[std::string(key)] = *value;
    } else {
      context.erase(std::string(key));
    }
  }
  if (context.empty()) {
    ours.erase("securityContext");
  } else {
    ours["securityContext"] = std::move(context);
  }
}

void MergeStringMap(json& into, const json* from) {
  if (from == nullptr) return;
  for (const auto& [key, value] : from->items()) into[key] = value;
}

}  // namespace

absl::Status CheckPodSpec(const json& pod, absl::string_view field) {
  if (pod.is_null()) return absl::OkStatus();
  if (!pod.is_object()) {
    return WrongType(field, "an object (a Pod: {\"metadata\": ..., \"spec\": ...})", pod);
  }
  std::string f(field);
  const json* metadata = nullptr;
  if (absl::Status s = CheckObject(pod, "metadata", f + ".metadata", &metadata); !s.ok()) return s;
  if (metadata != nullptr) {
    for (absl::string_view key : {"labels", "annotations"}) {
      if (absl::Status s = CheckStringMap(*metadata, key, absl::StrCat(f, ".metadata.", key));
          !s.ok()) {
        return s;
      }
    }
  }
  const json* spec = nullptr;
  if (absl::Status s = CheckObject(pod, "spec", f + ".spec", &spec); !s.ok() || spec == nullptr) {
    return s;
  }
  std::string spec_field = f + ".spec";
  for (absl::string_view list : kContainerLists) {
    std::string list_field = absl::StrCat(spec_field, ".", list);
    const json* containers = nullptr;
    if (absl::Status s = CheckList(*spec, list, list_field, "name", &containers); !s.ok()) return s;
    if (containers == nullptr) continue;
    for (size_t i = 0; i < containers->size(); ++i) {
      if (absl::Status s = CheckContainer((*containers)[i], absl::StrCat(list_field, "[", i, "]"));
          !s.ok()) {
        return s;
      }
    }
  }
  std::pair<absl::string_view, absl::string_view> lists[] = {
      {"volumes", "name"},         {"imagePullSecrets", "name"},
      {"schedulingGates", "name"}, {"resourceClaims", "name"},
      {"hostAliases", "ip"},       {"topologySpreadConstraints", "topologyKey"},
      {"tolerations", ""}};
  for (const auto& [list, key] : lists) {
    if (absl::Status s = CheckList(*spec, list, absl::StrCat(spec_field, ".", list), key);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = CheckStringMap(*spec, "nodeSelector", spec_field + ".nodeSelector");
      !s.ok()) {
    return s;
  }
  for (absl::string_view key : {"priorityClassName", "restartPolicy", "schedulerName"}) {
    const json* value = Get(*spec, key);
    if (value != nullptr && !value->is_string()) {
      return WrongType(absl::StrCat(spec_field, ".", key), "a string", *value);
    }
  }
  if (const json* host_network = Get(*spec, "hostNetwork");
      host_network != nullptr && !host_network->is_boolean()) {
    return WrongType(spec_field + ".hostNetwork", "a boolean", *host_network);
  }
  return CheckAffinity(*spec, spec_field);
}

json NormalizePodSpec(const json& pod) {
  if (pod.is_null()) return pod;
  json out = json::object();
  for (absl::string_view key : {"metadata", "spec"}) {
    if (const json* part = Get(pod, key)) out[std::string(key)] = DropNulls(*part);
  }
  return out;
}

absl::StatusOr<json> OverlayPodSpec(const json& pool, const json& task,
                                    absl::string_view task_field) {
  if (task.is_null()) return pool;
  if (pool.is_null()) return task;
  return MergeObjects(pool, task, "", task_field);
}

absl::StatusOr<json> MergePodSpec(const json& user, json ours) {
  json* our_spec = ours.is_object() ? &ours["spec"] : nullptr;
  const json* our_containers = our_spec != nullptr ? Get(*our_spec, "containers") : nullptr;
  json determined;
  json our_sidecars = json::array();
  int determined_count = 0;
  if (our_containers != nullptr && our_containers->is_array()) {
    for (const json& container : *our_containers) {
      if (container.is_object() && container.value("name", "") == kDeterminedContainerName) {
        determined = container;
        ++determined_count;
      } else {
        our_sidecars.push_back(container);
      }
    }
  }
  if (determined_count != 1) {
    return absl::InternalError(absl::StrCat("our pod template must hold one container named ",
                                            kDeterminedContainerName, ", it holds ",
                                            determined_count));
  }

  json metadata = json::object();
  for (absl::string_view key : {"labels", "annotations"}) {
    json map = json::object();
    if (const json* user_metadata = Get(user, "metadata")) {
      MergeStringMap(map, Get(*user_metadata, key));
    }
    if (const json* our_metadata = Get(ours, "metadata")) {
      MergeStringMap(map, Get(*our_metadata, key));
    }
    if (!map.empty()) metadata[std::string(key)] = std::move(map);
  }

  const json* user_spec = Get(user, "spec");
  json spec = user_spec != nullptr ? *user_spec : json::object();
  json containers = json::array();
  bool first = true;
  if (const json* user_containers = Get(spec, "containers")) {
    for (const json& container : *user_containers) {
      if (container.value("name", "") == kDeterminedContainerName) {
        MergeDeterminedContainer(determined, container, first);
        first = false;
      } else {
        containers.push_back(container);
      }
    }
  }
  for (json& sidecar : our_sidecars) containers.push_back(std::move(sidecar));
  containers.push_back(std::move(determined));
  spec["containers"] = std::move(containers);

  for (absl::string_view key : {"initContainers", "volumes"}) {
    const json* our_items = Get(*our_spec, key);
    if (our_items == nullptr || our_items->empty()) continue;
    json& items = spec[std::string(key)];
    Append(items, our_items);
  }
  for (const auto& [key, value] : our_spec->items()) {
    if (key == "containers" || key == "initContainers" || key == "volumes") continue;
    spec[key] = value;
  }

  json pod = json::object();
  if (!metadata.empty()) pod["metadata"] = std::move(metadata);
  pod["spec"] = std::move(spec);
  return pod;
}

void AddRequiredNodeRequirement(json& spec, const json& requirement, bool match_fields) {
  json& terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                    ["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = json::array({json::object()});
  const std::string list_key = match_fields ? "matchFields" : "matchExpressions";
  for (json& term : terms) {
    json& list = term[list_key];
    if (!list.is_array()) list = json::array();
    bool present = false;
    for (const json& existing : list) present = present || existing == requirement;
    if (!present) list.push_back(requirement);
  }
}

}  // namespace det::master::kube
