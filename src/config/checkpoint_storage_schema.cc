#include "config/checkpoint_storage_schema.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "common/json_yaml.h"
#include "config/checkpoint_storage.h"

namespace det::config {
namespace {

using nlohmann::json;

constexpr char kTypes[] = "shared_fs, s3, gcs, azure, directory";
constexpr const char* kSaveKeys[] = {"save_experiment_best", "save_trial_best",
                                     "save_trial_latest"};

Field Str(const char* name) { return {.name = name, .kind = Kind::kString}; }

const std::map<std::string, std::vector<Field>>& Variants() {
  static const auto* variants = [] {
    auto* m = new std::map<std::string, std::vector<Field>>{
        {"shared_fs",
         {Str("host_path"),
          Str("storage_path"),
          {.name = "propagation", .kind = Kind::kString, .default_value = "rprivate"},
          Str("container_path"),
          Str("checkpoint_path"),
          Str("tensorboard_path")}},
        {"s3",
         {Str("bucket"), Str("access_key"), Str("secret_key"), Str("endpoint_url"), Str("prefix")}},
        {"gcs", {Str("bucket"), Str("prefix")}},
        {"azure",
         {Str("container"), Str("connection_string"), Str("account_url"), Str("credential")}},
        {"directory", {Str("container_path")}},
    };
    for (auto& [type, fields] : *m) {
      fields.insert(
          fields.begin(),
          {{.name = "type", .kind = Kind::kString},
           {.name = "save_experiment_best", .kind = Kind::kInt, .default_value = 0, .min = 0},
           {.name = "save_trial_best", .kind = Kind::kInt, .default_value = 1, .min = 0},
           {.name = "save_trial_latest", .kind = Kind::kInt, .default_value = 1, .min = 0}});
    }
    return m;
  }();
  return *variants;
}

}  // namespace

json MergeCheckpointStorage(const json& user, const json& master_default) {
  if (user.is_null()) return master_default;
  if (!user.is_object() || !master_default.is_object()) return user;
  json out = user;
  bool same_type = !IsSet(user, "type") || user["type"] == master_default.value("type", json());
  for (const auto& [key, value] : master_default.items()) {
    bool save_key = false;
    for (const char* k : kSaveKeys) save_key = save_key || key == k;
    if ((same_type || save_key) && !IsSet(out, key)) out[key] = value;
  }
  return out;
}

void CheckCheckpointStorage(json& cs, absl::string_view path, Problems& p) {
  if (cs.is_null()) {
    p.Missing(path,
          "required: no checkpoint_storage in the config and no default in the master config");
    return;
  }
  if (!cs.is_object()) {
    p.Add(path, absl::StrCat("must be an object, got ", Describe(cs)));
    return;
  }
  std::string type_path = JoinPath(path, "type");
  if (!IsSet(cs, "type")) {
    p.Missing(type_path, absl::StrCat("required; one of ", kTypes));
    return;
  }
  const json& type = cs["type"];
  auto variant = type.is_string() ? Variants().find(type.get<std::string>()) : Variants().end();
  if (variant == Variants().end()) {
    p.Add(type_path, absl::StrCat("unknown type ", DumpJson(type), "; expected one of ", kTypes));
    return;
  }
  const std::string& name = variant->first;
  CheckObject(cs, path, variant->second, p);
  std::string why = absl::StrCat(" for ", name, " storage");
  if (name == "shared_fs") {
    if (Require(cs, path, "host_path", why, p) && cs["host_path"].is_string()) {
      const json& storage = cs["storage_path"];
      auto base = ResolveSharedFsBase(cs["host_path"].get<std::string>(),
                                      storage.is_string() ? storage.get<std::string>() : "");
      if (!base.ok()) p.AddLine(std::string(base.status().message()));
    }
  } else if (name == "s3" || name == "gcs") {
    Require(cs, path, "bucket", why, p);
  } else if (name == "directory") {
    Require(cs, path, "container_path", why, p);
  } else if (name == "azure") {
    Require(cs, path, "container", why, p);
    bool conn = IsSet(cs, "connection_string");
    bool url = IsSet(cs, "account_url");
    if (conn && url) {
      p.Add(path, "azure storage takes exactly one of connection_string or account_url, got both");
    } else if (!conn && !url) {
      p.Add(path,
            "azure storage takes exactly one of connection_string or account_url, got neither");
    }
    if (conn && IsSet(cs, "credential")) {
      p.Add(path, "azure storage takes connection_string or credential, not both");
    }
  }
}

void CheckTensorboardStorage(const json& ts, Problems& p) {
  if (ts.is_null()) return;
  if (!ts.is_object()) {
    p.Add("tensorboard_storage", absl::StrCat("must be an object, got ", Describe(ts)));
    return;
  }
  for (const char* key : kSaveKeys) {
    if (ts.contains(key))
      p.Add(JoinPath("tensorboard_storage", key), "not allowed in tensorboard_storage");
  }
  p.Warn("tensorboard_storage: this field is deprecated and will be ignored");
}

}  // namespace det::config
