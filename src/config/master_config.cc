#include "config/master_config.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "absl/strings/str_join.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/retention_schedule.h"
#include "config/schema_fields.h"

namespace det::config {
namespace {

using nlohmann::json;
using Keys = std::set<std::string>;

constexpr char kMask[] = "********";

// Upstream keys this master accepts so that an upstream master.yaml loads, but does not act on.
const Keys& UnusedTopLevelKeys() {
  static const Keys keys = {
      "telemetry",      "ui_customization", "cache",      "webhooks", "feature_switches",
      "reserved_ports", "__internal",       "scim",       "saml",     "oidc",
      "det_cloud",      "integrations",     "enable_cors"};
  return keys;
}

const Keys& TopLevelKeys() {
  static const Keys keys = [] {
    Keys k = {"config_file",
              "data_dir",
              "host",
              "port",
              "cluster_name",
              "root",
              "log",
              "db",
              "security",
              "checkpoint_storage",
              "task_container_defaults",
              "logging",
              "tensorboard_timeout",
              "notebook_timeout",
              "launch_error",
              "retention_policy",
              "resource_manager",
              "resource_pools",
              "additional_resource_managers",
              "scheduler",
              "provisioner",
              "observability"};
    k.insert(UnusedTopLevelKeys().begin(), UnusedTopLevelKeys().end());
    return k;
  }();
  return keys;
}

const Keys& TaskContainerDefaultsKeys() {
  static const Keys keys = {"shm_size_bytes",
                            "network_mode",
                            "dtrain_network_interface",
                            "nccl_port_range",
                            "gloo_port_range",
                            "cpu_pod_spec",
                            "gpu_pod_spec",
                            "checkpoint_gc_pod_spec",
                            "image",
                            "registry_auth",
                            "force_pull_image",
                            "environment_variables",
                            "add_capabilities",
                            "drop_capabilities",
                            "devices",
                            "bind_mounts",
                            "work_dir",
                            "slurm",
                            "pbs",
                            "startup_hook",
                            "log_policies",
                            "preemption_timeout",
                            "kubernetes"};
  return keys;
}

const Keys& SecretKeys() {
  static const Keys keys = {"password",         "initial_user_password", "access_key",
                            "secret_key",       "signing_key",           "segment_master_key",
                            "segment_webui_key"};
  return keys;
}

// Reads typed fields of one mapping, reporting wrong types with their path.
class Section {
 public:
  // `node` may be null/absent (an empty mapping); anything else but a mapping is a problem.
  Section(const json* node, std::string path, Problems& p) : path_(std::move(path)), p_(p) {
    if (node == nullptr || node->is_null()) {
      obj_ = json::object();
    } else if (!node->is_object()) {
      p_.Add(path_, absl::StrCat("must be a mapping, got ", TypeName(*node)));
      obj_ = json::object();
    } else {
      obj_ = *node;
    }
  }

  bool Has(const std::string& key) const { return obj_.contains(key) && !obj_[key].is_null(); }
  const json* Get(const std::string& key) const { return Has(key) ? &obj_[key] : nullptr; }
  std::string PathOf(const std::string& key) const { return JoinPath(path_, key); }
  const json& obj() const { return obj_; }

  void CheckKeys(const Keys& allowed) {
    for (const auto& [key, value] : obj_.items()) {
      if (!allowed.count(key)) {
        p_.Add(PathOf(key),
               absl::StrCat("unknown key; allowed keys are ", absl::StrJoin(allowed, ", ")));
      }
    }
  }

  std::string String(const std::string& key, const std::string& def = "") {
    if (!Has(key)) return def;
    if (!obj_[key].is_string()) {
      p_.Add(PathOf(key), absl::StrCat("must be a string, got ", TypeName(obj_[key])));
      return def;
    }
    return obj_[key].get<std::string>();
  }

  int64_t Int(const std::string& key, int64_t def, int64_t min, int64_t max) {
    if (!Has(key)) return def;
    const json& v = obj_[key];
    if (!v.is_number_integer()) {
      p_.Add(PathOf(key), absl::StrCat("must be an integer, got ", TypeName(v), " ", DumpJson(v)));
      return def;
    }
    int64_t n = v.get<int64_t>();
    if (n < min || n > max) {
      p_.Add(PathOf(key), absl::StrCat("must be between ", min, " and ", max, ", got ", n));
      return def;
    }
    return n;
  }

  bool Bool(const std::string& key, bool def) {
    if (!Has(key)) return def;
    if (!obj_[key].is_boolean()) {
      p_.Add(PathOf(key), absl::StrCat("must be true or false, got ", TypeName(obj_[key])));
      return def;
    }
    return obj_[key].get<bool>();
  }

  std::string OneOf(const std::string& key, const std::string& def, const Keys& allowed) {
    std::string v = String(key, def);
    if (!allowed.count(v)) {
      p_.Add(PathOf(key),
             absl::StrCat("must be one of ", absl::StrJoin(allowed, ", "), ", got \"", v, "\""));
      return def;
    }
    return v;
  }

 private:
  json obj_;
  std::string path_;
  Problems& p_;
};

json SchedulerJson(const SchedulerConfig& s) {
  json out = {{"type", s.type},
              {"fitting_policy", s.fitting_policy},
              {"allow_heterogeneous_fits", s.allow_heterogeneous_fits}};
  if (s.type == "priority") {
    out["preemption"] = s.preemption;
    out["default_priority"] = s.default_priority;
  }
  return out;
}

// A scheduler block that is present. A blank type means fair_share (the product docs' rule).
SchedulerConfig ParseScheduler(const json& node, const std::string& path, Problems& p) {
  Section s(&node, path, p);
  s.CheckKeys(
      {"type", "fitting_policy", "allow_heterogeneous_fits", "preemption", "default_priority"});
  SchedulerConfig out;
  out.type = s.String("type");
  if (out.type.empty()) out.type = "fair_share";
  if (out.type != "priority" && out.type != "fair_share" && out.type != "round_robin") {
    p.Add(s.PathOf("type"),
          absl::StrCat("must be one of priority, fair_share, round_robin, got \"", out.type, "\""));
    out.type = "priority";
  }
  out.fitting_policy = s.OneOf("fitting_policy", "best", {"best", "worst"});
  out.allow_heterogeneous_fits = s.Bool("allow_heterogeneous_fits", false);
  for (const char* key : {"preemption", "default_priority"}) {
    if (s.Has(key) && out.type != "priority") {
      p.Add(s.PathOf(key),
            absl::StrCat("only valid with type: priority (the type here is ", out.type,
                         s.Has("type") ? ""
                                       : ", the default for a scheduler block "
                                         "without a type",
                         ")"));
    }
  }
  out.preemption = s.Bool("preemption", false);
  out.default_priority = static_cast<int>(s.Int("default_priority", 42, 1, 99));
  return out;
}

json ParseTaskContainerDefaults(const json* node, const std::string& path, bool fill_defaults,
                                Problems& p) {
  Section s(node, path, p);
  s.CheckKeys(TaskContainerDefaultsKeys());
  s.Int("shm_size_bytes", 0, 0, INT64_MAX);
  s.Int("preemption_timeout", 0, 0, INT64_MAX);
  s.String("network_mode");
  s.String("startup_hook");
  json out = s.obj();
  if (fill_defaults) {
    if (!s.Has("shm_size_bytes")) out["shm_size_bytes"] = int64_t{4294967296};
    // Upstream fills "bridge"; here tasks reach the master and the proxy reaches their services over
    // the host's network (docs/decisions.md), so "host" is the default that works.
    if (!s.Has("network_mode")) out["network_mode"] = "host";
    if (!s.Has("preemption_timeout")) out["preemption_timeout"] = 3600;
  }
  return out;
}

json ParseCheckpointStorage(const json& node, Problems& p) {
  const std::string path = "checkpoint_storage";
  Section s(&node, path, p);
  std::string type = s.OneOf("type", "shared_fs", {"shared_fs", "s3", "gcs", "azure", "directory"});
  if (!s.Has("type"))
    p.Add(s.PathOf("type"), "required; one of shared_fs, s3, gcs, azure, directory");
  if (type == "shared_fs") {
    std::string host_path = s.String("host_path");
    if (host_path.empty()) {
      p.Add(s.PathOf("host_path"), "required for shared_fs storage");
    } else if (host_path[0] != '/') {
      p.Add(s.PathOf("host_path"),
            absl::StrCat("must be an absolute path, got \"", host_path, "\""));
    }
  }
  if (type == "directory" && s.String("container_path").empty()) {
    p.Add(s.PathOf("container_path"), "required for directory storage");
  }
  if ((type == "s3" || type == "gcs") && s.String("bucket").empty()) {
    p.Add(s.PathOf("bucket"), absl::StrCat("required for ", type, " storage"));
  }
  for (const char* key : {"save_experiment_best", "save_trial_best", "save_trial_latest"}) {
    s.Int(key, 0, 0, INT32_MAX);
  }
  return s.obj();
}

void ParseDb(const json* node, const std::string& data_dir, MasterConfig& out, json& eff,
             Problems& p) {
  Section s(node, "db", p);
  s.CheckKeys({"type", "path", "user", "password", "host", "port", "name", "ssl_mode",
               "ssl_root_cert", "migrations", "views_and_triggers"});
  DbConfig& db = out.db;
  db.user = s.String("user");
  db.password = s.String("password");
  db.host = s.String("host");
  db.name = s.String("name");
  db.ssl_root_cert = s.String("ssl_root_cert");
  db.ssl_mode = s.OneOf("ssl_mode", "disable",
                        {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"});
  if (const json* port = s.Get("port")) {
    if (port->is_number_integer()) {
      db.port = std::to_string(port->get<int64_t>());
    } else {
      db.port = s.String("port");
    }
  }
  bool postgres_fields = !db.user.empty() || !db.password.empty() || !db.host.empty() ||
                         !db.name.empty() || !db.port.empty();
  db.type = s.OneOf("type", postgres_fields ? "postgres" : "sqlite", {"sqlite", "postgres"});
  db.path = s.String("path");
  if (db.type == "sqlite") {
    for (const char* key : {"user", "password", "host", "port", "name", "ssl_root_cert"}) {
      if (s.Has(key)) p.Add(s.PathOf(key), "only used with db.type: postgres");
    }
    std::filesystem::path file = db.path.empty() ? std::filesystem::path(data_dir) / "determined.db"
                                                 : std::filesystem::path(db.path);
    db.path = std::filesystem::absolute(file).lexically_normal().string();
  } else {
    if (!db.path.empty()) p.Add(s.PathOf("path"), "only used with db.type: sqlite");
    if (db.host.empty()) p.Add(s.PathOf("host"), "required for db.type: postgres");
    if (db.name.empty()) p.Add(s.PathOf("name"), "required for db.type: postgres");
    if (db.port.empty()) db.port = "5432";
  }
  eff["db"] = {{"type", db.type}};
  if (db.type == "sqlite") {
    eff["db"]["path"] = db.path;
  } else {
    eff["db"].update({{"user", db.user},
                      {"password", db.password},
                      {"host", db.host},
                      {"port", db.port},
                      {"name", db.name},
                      {"ssl_mode", db.ssl_mode},
                      {"ssl_root_cert", db.ssl_root_cert}});
  }
}

// security.token: each lifespan a whole number of days >= 1, or -1 for infinite (kept as
// kInfiniteTokenLifespanDays, as upstream keeps it); the default no longer than the maximum.
TokenConfig ParseTokenConfig(const json* node, Problems& p) {
  Section s(node, "security.token", p);
  s.CheckKeys({"max_lifespan_days", "default_lifespan_days"});
  TokenConfig out;
  auto days = [&](const std::string& key, int fallback) {
    int64_t n = s.Int(key, fallback, -1, kInfiniteTokenLifespanDays);
    if (n == 0) {
      p.Add(s.PathOf(key), "must be a number of days >= 1, or -1 for tokens that never expire; got 0");
      return fallback;
    }
    return n == -1 ? kInfiniteTokenLifespanDays : static_cast<int>(n);
  };
  out.max_lifespan_days = days("max_lifespan_days", out.max_lifespan_days);
  out.default_lifespan_days = days("default_lifespan_days", out.default_lifespan_days);
  if (out.default_lifespan_days > out.max_lifespan_days) {
    auto shown = [](int d) { return d == kInfiniteTokenLifespanDays ? std::string("-1 (infinite)") : std::to_string(d); };
    p.Add(s.PathOf("default_lifespan_days"),
          absl::StrCat("must not exceed security.token.max_lifespan_days (", shown(out.max_lifespan_days),
                       "); got ", shown(out.default_lifespan_days),
                       ". Lower it or raise max_lifespan_days"));
  }
  return out;
}

void ParseSecurity(const json* node, MasterConfig& out, json& eff, Problems& p) {
  Section s(node, "security", p);
  s.CheckKeys({"initial_user_password", "tls", "default_task", "ssh", "authz", "token"});
  out.security.initial_user_password = s.String("initial_user_password");

  Section tls(s.Get("tls"), "security.tls", p);
  tls.CheckKeys({"cert", "key"});
  out.security.tls_cert = tls.String("cert");
  out.security.tls_key = tls.String("key");
  if (out.security.tls_cert.empty() != out.security.tls_key.empty()) {
    p.Add("security.tls", "cert and key must be given together (both or neither)");
  }

  Section task(s.Get("default_task"), "security.default_task", p);
  task.CheckKeys({"uid", "gid", "user", "group"});
  json default_task = {{"uid", task.Int("uid", 0, 0, INT32_MAX)},
                       {"gid", task.Int("gid", 0, 0, INT32_MAX)},
                       {"user", task.String("user", "root")},
                       {"group", task.String("group", "root")}};
  if (s.Has("default_task")) {
    out.security.default_task = TaskUser{.uid = default_task["uid"].get<uint32_t>(),
                                         .gid = default_task["gid"].get<uint32_t>(),
                                         .user = default_task["user"].get<std::string>(),
                                         .group = default_task["group"].get<std::string>()};
  }

  Section ssh(s.Get("ssh"), "security.ssh", p);
  ssh.CheckKeys({"rsa_key_size", "key_type"});
  json ssh_json = {{"rsa_key_size", ssh.Int("rsa_key_size", 1024, 1, 16384)},
                   {"key_type", ssh.OneOf("key_type", "ED25519", {"RSA", "ECDSA", "ED25519"})}};

  out.security.token = ParseTokenConfig(s.Get("token"), p);
  json token_json = {{"max_lifespan_days", out.security.token.max_lifespan_days},
                     {"default_lifespan_days", out.security.token.default_lifespan_days}};

  Section authz(s.Get("authz"), "security.authz", p);
  authz.CheckKeys({"type", "fallback", "rbac_ui_enabled", "workspace_creator_assign_role", "strict_job_queue_control",
                   "_strict_ntsc_enabled"});
  AuthzConfig& a = out.security.authz;
  a.type = authz.OneOf("type", "basic", {"basic", "rbac"});
  const std::string fallback = authz.OneOf("fallback", "basic", {"basic", "rbac"});
  a.rbac_ui_enabled = authz.Bool("rbac_ui_enabled", a.type != "basic");
  a.strict_job_queue_control = authz.Bool("strict_job_queue_control", false);
  Section creator(authz.Get("workspace_creator_assign_role"), "security.authz.workspace_creator_assign_role", p);
  creator.CheckKeys({"enabled", "role_id"});
  a.workspace_creator_role_enabled = creator.Bool("enabled", true);
  a.workspace_creator_role_id = static_cast<int32_t>(creator.Int("role_id", 2, 1, INT32_MAX));
  json authz_json = {{"type", a.type},
                     {"fallback", fallback},
                     {"rbac_ui_enabled", a.rbac_ui_enabled},
                     {"workspace_creator_assign_role",
                      {{"enabled", a.workspace_creator_role_enabled}, {"role_id", a.workspace_creator_role_id}}},
                     {"strict_job_queue_control", a.strict_job_queue_control}};

  eff["security"] = {{"initial_user_password", out.security.initial_user_password},
                     {"tls", {{"cert", out.security.tls_cert}, {"key", out.security.tls_key}}},
                     {"default_task", default_task},
                     {"ssh", ssh_json},
                     {"token", token_json},
                     {"authz", authz_json}};
}

void ParseRetentionPolicy(const json* node, MasterConfig& out, json& eff, Problems& p) {
  Section s(node, "retention_policy", p);
  s.CheckKeys({"log_retention_days", "schedule"});
  RetentionPolicyConfig& policy = out.retention_policy;
  if (s.Has("log_retention_days")) {
    policy.log_retention_days = static_cast<int>(s.Int("log_retention_days", -1, -1, 32767));
  }
  policy.schedule = s.String("schedule", policy.schedule);
  if (absl::Status st = RetentionSchedule::Parse(policy.schedule).status(); !st.ok()) {
    p.Add(s.PathOf("schedule"), std::string(st.message()));
  }
  eff["retention_policy"] = {
      {"log_retention_days", policy.log_retention_days ? json(*policy.log_retention_days) : json(nullptr)},
      {"schedule", policy.schedule}};
}

void ParseObservability(const json* node, MasterConfig& out, json& eff, Problems& p) {
  Section s(node, "observability", p);
  s.CheckKeys({"enable_prometheus"});
  out.observability.enable_prometheus = s.Bool("enable_prometheus", true);
  eff["observability"] = {{"enable_prometheus", out.observability.enable_prometheus}};
}

void ParseLogging(const json* node, MasterConfig& out, json& eff, Problems& p) {
  Section s(node, "logging", p);
  std::string type = s.OneOf("type", "default", {"default", "elastic"});
  if (type == "default") {
    s.CheckKeys({"type"});
  } else {
    s.CheckKeys({"type", "host", "port", "security"});
    if (s.String("host").empty()) p.Add(s.PathOf("host"), "required for type: elastic");
    if (!s.Has("port")) p.Add(s.PathOf("port"), "required for type: elastic");
    out.warnings.push_back(
        "logging.type: elastic is accepted but task logs stay in the master's database");
  }
  json logging = s.obj();
  logging["type"] = type;
  out.logging_json = DumpJson(logging);
  eff["logging"] = logging;
}

// Turns the legacy format (top-level scheduler/provisioner, before 0.14) into one pool "default"
// that is the default for aux and compute tasks.
void ConvertLegacy(json& cfg, Problems& p) {
  bool legacy = cfg.contains("scheduler") || cfg.contains("provisioner");
  if (!legacy) return;
  if (cfg.contains("resource_manager") || cfg.contains("resource_pools")) {
    p.Add("scheduler",
          "the legacy top-level scheduler/provisioner keys cannot be mixed with "
          "resource_manager/resource_pools; move them into resource_manager.scheduler and "
          "resource_pools[].provider");
    cfg.erase("scheduler");
    cfg.erase("provisioner");
    return;
  }
  json rm = {{"type", "agent"},
             {"default_aux_resource_pool", "default"},
             {"default_compute_resource_pool", "default"}};
  if (cfg.contains("scheduler") && !cfg["scheduler"].is_null()) {
    json scheduler = cfg["scheduler"];
    if (scheduler.is_object()) {
      // Pre-0.14 spellings: `fit` for fitting_policy, and the resource provider inside the
      // scheduler.
      if (scheduler.contains("fit") && !scheduler.contains("fitting_policy")) {
        scheduler["fitting_policy"] = scheduler["fit"];
      }
      scheduler.erase("fit");
      if (scheduler.contains("resource_provider")) {
        const json& provider = scheduler["resource_provider"];
        std::string type = provider.is_object() ? provider.value("type", "default") : "default";
        if (type != "default" && type != "agent") {
          p.Add("scheduler.resource_provider.type",
                absl::StrCat("\"", type, "\" is not supported by this master; use default"));
        }
        scheduler.erase("resource_provider");
      }
    }
    rm["scheduler"] = scheduler;
  }
  json pool = {{"pool_name", "default"}};
  if (cfg.contains("provisioner") && !cfg["provisioner"].is_null())
    pool["provider"] = cfg["provisioner"];
  cfg.erase("scheduler");
  cfg.erase("provisioner");
  cfg["resource_manager"] = rm;
  cfg["resource_pools"] = json::array({pool});
}

// resource_manager's keys for type kubernetes (upstream's), into r.kubernetes; `eff` gets them resolved.
void ParseKubernetes(Section& rm, ResourceManagerConfig& r, MasterConfig& out, json& eff, Problems& p) {
  KubernetesConfig k;
  std::string ns = rm.String("namespace");
  std::string default_ns = rm.String("default_namespace");
  if (!ns.empty()) out.warnings.push_back("resource_manager.namespace is deprecated; use default_namespace");
  if (!ns.empty() && !default_ns.empty() && ns != default_ns) {
    p.Add(rm.PathOf("namespace"), absl::StrCat("contradicts default_namespace (\"", ns, "\" vs \"", default_ns,
                                               "\"); keep default_namespace only"));
  }
  k.namespace_name = !default_ns.empty() ? default_ns : !ns.empty() ? ns : "default";
  if (!rm.Has("max_slots_per_pod")) {
    p.Add(rm.PathOf("max_slots_per_pod"),
          "required for the kubernetes resource manager: the most slots (GPUs) one pod may hold, usually the "
          "GPUs of one node");
  }
  k.max_slots_per_pod = static_cast<int>(rm.Int("max_slots_per_pod", 1, 1, 1024));
  k.slot_type = rm.String("slot_type", "cuda");
  if (k.slot_type == "gpu") k.slot_type = "cuda";
  if (k.slot_type == "rocm") {
    p.Add(rm.PathOf("slot_type"), "rocm slots are not supported on Kubernetes; use cuda or cpu");
  } else if (k.slot_type != "cuda" && k.slot_type != "cpu") {
    p.Add(rm.PathOf("slot_type"), absl::StrCat("must be cuda or cpu, got \"", k.slot_type, "\""));
  }
  if (const json* requests = rm.Get("slot_resource_requests")) {
    Section sr(requests, rm.PathOf("slot_resource_requests"), p);
    sr.CheckKeys({"cpu"});
    if (const json* cpu = sr.Get("cpu"); cpu != nullptr && !cpu->is_number()) {
      p.Add(sr.PathOf("cpu"), absl::StrCat("must be a number of CPUs, got ", TypeName(*cpu)));
    } else if (cpu != nullptr) {
      k.cpu_per_slot = cpu->get<double>();
    }
  }
  if (k.slot_type == "cpu" && k.cpu_per_slot <= 0) {
    p.Add(rm.PathOf("slot_resource_requests.cpu"),
          "must be > 0 with slot_type cpu: it is how many CPUs one slot is, so how many slots a node has");
  }
  k.master_service_name = rm.String("master_service_name");
  k.master_scheme = rm.String("determined_master_scheme");
  if (!k.master_scheme.empty() && k.master_scheme != "http" && k.master_scheme != "https") {
    p.Add(rm.PathOf("determined_master_scheme"), absl::StrCat("must be http or https, got \"", k.master_scheme, "\""));
  }
  k.master_host = rm.String("determined_master_host", rm.String("determined_master_ip"));
  if (rm.Has("determined_master_ip")) {
    out.warnings.push_back("resource_manager.determined_master_ip is deprecated; use determined_master_host");
  }
  k.master_port = static_cast<int>(rm.Int("determined_master_port", 0, 1, 65535));
  if (k.master_service_name.empty() && k.master_host.empty()) {
    p.Add(rm.PathOf("master_service_name"),
          "required unless determined_master_host is set: task pods must know where the master is");
  }
  k.kubeconfig_path = rm.String("kubeconfig_path");
  k.leave_kubernetes_resources = rm.Bool("leave_kubernetes_resources", false);
  std::string default_scheduler = rm.String("default_scheduler");
  if (!default_scheduler.empty()) {
    out.warnings.push_back(absl::StrCat(
        "resource_manager.default_scheduler (", default_scheduler,
        ") is ignored: the master's own scheduler (resource_manager.scheduler) places every pod"));
  }
  if (rm.Has("fluent")) out.warnings.push_back("resource_manager.fluent is ignored (no longer used, as upstream)");
  if (rm.Has("internal_task_gateway")) {
    p.Add(rm.PathOf("internal_task_gateway"),
          "is not supported: the master proxies to task pods by their IP (run the master in the cluster)");
  }
  eff["resource_manager"].update({{"default_namespace", k.namespace_name},
                                  {"max_slots_per_pod", k.max_slots_per_pod},
                                  {"slot_type", k.slot_type},
                                  {"slot_resource_requests", {{"cpu", k.cpu_per_slot}}},
                                  {"master_service_name", k.master_service_name},
                                  {"kubeconfig_path", k.kubeconfig_path},
                                  {"leave_kubernetes_resources", k.leave_kubernetes_resources}});
  if (!k.master_scheme.empty()) eff["resource_manager"]["determined_master_scheme"] = k.master_scheme;
  if (!k.master_host.empty()) eff["resource_manager"]["determined_master_host"] = k.master_host;
  if (k.master_port != 0) eff["resource_manager"]["determined_master_port"] = k.master_port;
  r.kubernetes = std::move(k);
}

// resource_manager's keys for type slurm (upstream's), into r.slurm. The HPE launcher's keys are
// accepted with a warning: this master runs sbatch, squeue and scancel itself.
void ParseSlurm(Section& rm, ResourceManagerConfig& r, MasterConfig& out, json& eff, Problems& p) {
  SlurmConfig s;
  const Keys slot_types = {"", "cuda", "cpu", "rocm"};
  s.slot_type = rm.OneOf("slot_type", "", slot_types);
  s.tres_supported = rm.Bool("tres_supported", true);
  s.gres_supported = rm.Bool("gres_supported", true);
  s.job_storage_root = rm.String("job_storage_root");
  if (!s.job_storage_root.empty() && s.job_storage_root[0] != '/') {
    p.Add(rm.PathOf("job_storage_root"),
          absl::StrCat("must be an absolute path the master and the nodes share, got \"", s.job_storage_root, "\""));
  }
  s.user_name = rm.String("user_name");
  s.group_name = rm.String("group_name");
  s.sudo_authorized = rm.Bool("sudo_authorized", false);
  s.rendezvous_network_interface = rm.String("rendezvous_network_interface");
  s.proxy_network_interface = rm.String("proxy_network_interface");
  s.job_project_source = rm.String("job_project_source");
  if (const std::string& src = s.job_project_source;
      !src.empty() && src != "project" && src != "workspace" && src != "label" && !absl::StartsWith(src, "label:")) {
    p.Add(rm.PathOf("job_project_source"),
          absl::StrCat("must be project, workspace, label or label:<prefix>, got \"", src, "\""));
  }
  s.master_host = rm.String("master_host");
  s.master_port = static_cast<int>(rm.Int("master_port", 0, 1, 65535));
  s.path = rm.String("path");
  s.ld_library_path = rm.String("ld_library_path");
  for (const char* key : {"host", "port", "protocol", "security", "auth_file", "launcher_jvm_args",
                          "container_run_type", "apptainer_image_root", "singularity_image_root"}) {
    if (rm.Has(key)) {
      out.warnings.push_back(absl::StrCat("resource_manager.", key,
                                          " is not used: this master submits to Slurm itself (sbatch), without "
                                          "HPE's launcher"));
    }
  }
  if (const json* overrides = rm.Get("partition_overrides")) {
    Section all(overrides, rm.PathOf("partition_overrides"), p);
    for (const auto& [partition, node] : all.obj().items()) {
      Section o(&node, all.PathOf(partition), p);
      o.CheckKeys({"description", "slot_type", "rendezvous_network_interface", "proxy_network_interface",
                   "task_container_defaults"});
      SlurmPartitionOverride po;
      po.description = o.String("description");
      po.slot_type = o.OneOf("slot_type", "", slot_types);
      po.rendezvous_network_interface = o.String("rendezvous_network_interface");
      po.proxy_network_interface = o.String("proxy_network_interface");
      if (const json* tcd = o.Get("task_container_defaults")) {
        po.task_container_defaults_json =
            DumpJson(ParseTaskContainerDefaults(tcd, o.PathOf("task_container_defaults"), false, p));
      }
      s.partition_overrides[partition] = std::move(po);
    }
    eff["resource_manager"]["partition_overrides"] = all.obj();
  }
  eff["resource_manager"].update({{"slot_type", s.slot_type},
                                  {"tres_supported", s.tres_supported},
                                  {"gres_supported", s.gres_supported},
                                  {"job_storage_root", s.job_storage_root},
                                  {"user_name", s.user_name},
                                  {"sudo_authorized", s.sudo_authorized},
                                  {"job_project_source", s.job_project_source}});
  r.slurm = std::move(s);
}

// One resource manager and its pools: `cfg`'s resource_manager and resource_pools (the config's own, or
// an entry of additional_resource_managers, whose paths start with `prefix`), into `r` and `pools_out`;
// `eff` gets them resolved.
void ParseManager(const json& cfg, const std::string& prefix, bool additional, ResourceManagerConfig& r,
                  std::vector<ResourcePoolConfig>& pools_out, json& eff, MasterConfig& out, Problems& p) {
  Section rm(cfg.contains("resource_manager") ? &cfg["resource_manager"] : nullptr,
             prefix + "resource_manager", p);
  r.type = rm.String("type", "agent");
  const bool kubernetes = r.type == "kubernetes";
  const bool slurm = r.type == "slurm";
  if (r.type == "pbs") {
    p.Add(rm.PathOf("type"),
          absl::StrCat("\"", r.type, "\" is not supported by this master; use agent, kubernetes or slurm"));
  } else if (r.type != "agent" && !kubernetes && !slurm) {
    p.Add(rm.PathOf("type"), absl::StrCat("must be agent, kubernetes or slurm, got \"", r.type, "\""));
  }
  Keys rm_keys = {"type", "cluster_name", "name", "scheduler", "default_aux_resource_pool",
                  "default_compute_resource_pool", "no_default_resource_pools", "metadata"};
  const Keys agent_keys = {"default_cpu_resource_pool", "default_gpu_resource_pool", "require_authentication",
                           "client_ca"};
  const Keys kubernetes_keys = {"namespace", "default_namespace", "max_slots_per_pod", "slot_type",
                                "slot_resource_requests", "master_service_name", "determined_master_scheme",
                                "determined_master_host", "determined_master_ip", "determined_master_port",
                                "kubeconfig_path", "leave_kubernetes_resources", "default_scheduler", "fluent",
                                "internal_task_gateway"};
  const Keys slurm_keys = {"slot_type", "tres_supported", "gres_supported", "job_storage_root", "user_name",
                           "group_name", "sudo_authorized", "rendezvous_network_interface",
                           "proxy_network_interface", "job_project_source", "master_host", "master_port", "path",
                           "ld_library_path", "partition_overrides", "host", "port", "protocol", "security",
                           "auth_file", "launcher_jvm_args", "container_run_type", "apptainer_image_root",
                           "singularity_image_root"};
  const Keys& type_keys = kubernetes ? kubernetes_keys : slurm ? slurm_keys : agent_keys;
  rm_keys.insert(type_keys.begin(), type_keys.end());
  rm.CheckKeys(rm_keys);
  r.cluster_name = rm.String("cluster_name", rm.String("name", "default"));
  if (rm.Has("name"))
    out.warnings.push_back("resource_manager.name is deprecated; use cluster_name");
  if (const json* s = rm.Get("scheduler"))
    r.scheduler = ParseScheduler(*s, rm.PathOf("scheduler"), p);
  auto pool_default = [&](const char* key, const char* legacy) {
    if (rm.Has(legacy)) {
      out.warnings.push_back(
          absl::StrCat("resource_manager.", legacy, " is deprecated; use ", key));
      if (!rm.Has(key)) return rm.String(legacy);
    }
    return rm.String(key, "default");
  };
  r.default_aux_resource_pool =
      pool_default("default_aux_resource_pool", "default_cpu_resource_pool");
  r.default_compute_resource_pool =
      pool_default("default_compute_resource_pool", "default_gpu_resource_pool");
  r.no_default_resource_pools = rm.Bool("no_default_resource_pools", false);
  if (r.no_default_resource_pools) {
    for (const char* key : {"default_aux_resource_pool", "default_compute_resource_pool"}) {
      if (rm.Has(key) && !rm.String(key).empty()) {
        p.Add(rm.PathOf(key), "must be empty when no_default_resource_pools is true");
      }
    }
    r.default_aux_resource_pool.clear();
    r.default_compute_resource_pool.clear();
  }
  if (rm.Bool("require_authentication", false)) {
    p.Add(rm.PathOf("require_authentication"),
          "agent TLS authentication is not supported by this build");
  }
  if (!rm.String("client_ca").empty()) {
    p.Add(rm.PathOf("client_ca"), "agent TLS authentication is not supported by this build");
  }

  // Pools.
  const json* pools_node = cfg.contains("resource_pools") && !cfg["resource_pools"].is_null()
                               ? &cfg["resource_pools"]
                               : nullptr;
  json pools = pools_node != nullptr ? *pools_node : json::array({{{"pool_name", "default"}}});
  if (!pools.is_array()) {
    p.Add(prefix + "resource_pools", absl::StrCat("must be a list of pools, got ", TypeName(pools)));
    pools = json::array();
  } else if (pools.empty()) {
    p.Add(prefix + "resource_pools", "must list at least one pool (omit it for one pool named \"default\")");
  }
  std::set<std::string> names;
  json eff_pools = json::array();
  for (size_t i = 0; i < pools.size(); ++i) {
    std::string path = absl::StrCat(prefix, "resource_pools[", i, "]");
    Section ps(&pools[i], path, p);
    ps.CheckKeys({"pool_name", "description", "provider", "scheduler",
                  "max_aux_containers_per_agent", "max_cpu_containers_per_agent",
                  "task_container_defaults", "agent_reattach_enabled", "agent_reconnect_wait"});
    ResourcePoolConfig pool;
    pool.pool_name = ps.String("pool_name");
    if (pool.pool_name.empty()) {
      p.Add(ps.PathOf("pool_name"), "required and must not be empty");
    } else if (!names.insert(pool.pool_name).second) {
      p.Add(ps.PathOf("pool_name"), absl::StrCat("duplicate pool name \"", pool.pool_name, "\""));
    }
    pool.description = ps.String("description");
    if (const json* s = ps.Get("scheduler")) {
      pool.scheduler = ParseScheduler(*s, ps.PathOf("scheduler"), p);
      pool.has_own_scheduler = true;
    } else {
      pool.scheduler = r.scheduler;
    }
    if (ps.Has("max_cpu_containers_per_agent")) {
      out.warnings.push_back(absl::StrCat(path,
                                          ".max_cpu_containers_per_agent is deprecated; use "
                                          "max_aux_containers_per_agent"));
    }
    pool.max_aux_containers_per_agent = static_cast<int>(
        ps.Int("max_aux_containers_per_agent",
               ps.Int("max_cpu_containers_per_agent", 100, 0, INT32_MAX), 0, INT32_MAX));
    pool.agent_reattach_enabled = ps.Bool("agent_reattach_enabled", false);
    std::string reconnect_wait = ps.String("agent_reconnect_wait", "25s");
    absl::Duration wait;
    if (!absl::ParseDuration(reconnect_wait, &wait) || wait < absl::ZeroDuration()) {
      p.Add(ps.PathOf("agent_reconnect_wait"),
            absl::StrCat("must be a duration like 25s, 1m30s or 500ms, got \"", reconnect_wait, "\""));
    } else {
      pool.agent_reconnect_wait = absl::ToChronoMilliseconds(wait);
    }
    json eff_pool = {{"pool_name", pool.pool_name},
                     {"description", pool.description},
                     {"scheduler", SchedulerJson(pool.scheduler)},
                     {"max_aux_containers_per_agent", pool.max_aux_containers_per_agent},
                     {"agent_reattach_enabled", pool.agent_reattach_enabled},
                     {"agent_reconnect_wait", reconnect_wait}};
    if (const json* provider = ps.Get("provider")) {
      pool.provider_json = DumpJson(*provider);
      eff_pool["provider"] = *provider;
      out.warnings.push_back(absl::StrCat(path,
                                          ".provider: this master does not provision dynamic "
                                          "agents; the pool takes only agents started by hand"));
    }
    if (const json* tcd = ps.Get("task_container_defaults")) {
      json pool_tcd =
          ParseTaskContainerDefaults(tcd, ps.PathOf("task_container_defaults"), false, p);
      pool.task_container_defaults_json = DumpJson(pool_tcd);
      eff_pool["task_container_defaults"] = pool_tcd;
    }
    eff_pools.push_back(eff_pool);
    pools_out.push_back(std::move(pool));
  }
  if (!r.no_default_resource_pools && !additional) {
    for (const char* key : {"default_aux_resource_pool", "default_compute_resource_pool"}) {
      const std::string& name = std::string(key) == "default_aux_resource_pool"
                                    ? r.default_aux_resource_pool
                                    : r.default_compute_resource_pool;
      if (!names.count(name) && !pools.empty()) {
        p.Add(rm.PathOf(key),
              absl::StrCat("names pool \"", name, "\", which is not in resource_pools (",
                           absl::StrJoin(names, ", "), ")"));
      }
    }
  }
  eff["resource_manager"] = {{"type", r.type},
                             {"cluster_name", r.cluster_name},
                             {"scheduler", SchedulerJson(r.scheduler)},
                             {"default_aux_resource_pool", r.default_aux_resource_pool},
                             {"default_compute_resource_pool", r.default_compute_resource_pool},
                             {"no_default_resource_pools", r.no_default_resource_pools}};
  if (rm.Has("metadata")) eff["resource_manager"]["metadata"] = *rm.Get("metadata");
  if (kubernetes) ParseKubernetes(rm, r, out, eff, p);
  if (slurm) ParseSlurm(rm, r, out, eff, p);
  eff["resource_pools"] = eff_pools;
}

// The config's resource manager, and those of additional_resource_managers: Kubernetes clusters
// beside it (upstream accepts no other type there), each with its own cluster_name and pools, every
// pool name unique across them.
void ParseResources(const json& cfg, MasterConfig& out, json& eff, Problems& p) {
  ParseManager(cfg, "", false, out.resource_manager, out.resource_pools, eff, out, p);
  if (!cfg.contains("additional_resource_managers") || cfg["additional_resource_managers"].is_null()) return;
  const json& more = cfg["additional_resource_managers"];
  if (!more.is_array()) {
    p.Add("additional_resource_managers", absl::StrCat("must be a list, got ", TypeName(more)));
    return;
  }
  std::map<std::string, std::string> pool_owner;  // pool name -> its manager's cluster_name
  std::set<std::string> clusters = {out.resource_manager.cluster_name};
  for (const ResourcePoolConfig& pool : out.resource_pools) pool_owner[pool.pool_name] = out.resource_manager.cluster_name;
  json eff_more = json::array();
  for (size_t i = 0; i < more.size(); ++i) {
    const std::string prefix = absl::StrCat("additional_resource_managers[", i, "].");
    Section entry(&more[i], prefix.substr(0, prefix.size() - 1), p);
    entry.CheckKeys({"resource_manager", "resource_pools"});
    AdditionalResourceManagerConfig added;
    json eff_entry = json::object();
    ParseManager(entry.obj(), prefix, true, added.resource_manager, added.resource_pools, eff_entry, out, p);
    if (added.resource_manager.type != "kubernetes") {
      p.Add(prefix + "resource_manager.type",
            absl::StrCat("must be kubernetes (additional resource managers are Kubernetes clusters), got \"",
                         added.resource_manager.type, "\""));
    }
    const json& rm = entry.obj().value("resource_manager", json::object());
    if (!rm.is_object() || (!rm.contains("cluster_name") && !rm.contains("name"))) {
      p.Add(prefix + "resource_manager.cluster_name", "required: it tells this manager's pools and agents apart");
    } else if (!clusters.insert(added.resource_manager.cluster_name).second) {
      p.Add(prefix + "resource_manager.cluster_name",
            absl::StrCat("\"", added.resource_manager.cluster_name, "\" is another resource manager's too"));
    }
    for (size_t j = 0; j < added.resource_pools.size(); ++j) {
      const std::string& name = added.resource_pools[j].pool_name;
      auto [owner, fresh] = pool_owner.emplace(name, added.resource_manager.cluster_name);
      if (!fresh) {
        p.Add(absl::StrCat(prefix, "resource_pools[", j, "].pool_name"),
              absl::StrCat("pool \"", name, "\" is already resource manager ", owner->second,
                           "'s; pool names are unique across resource managers"));
      }
    }
    eff_more.push_back(eff_entry);
    out.additional_resource_managers.push_back(std::move(added));
  }
  eff["additional_resource_managers"] = eff_more;
}

void Mask(json& node) {
  if (node.is_array()) {
    for (json& v : node) Mask(v);
    return;
  }
  if (!node.is_object()) return;
  for (auto& [key, value] : node.items()) {
    if (SecretKeys().count(key) && value.is_string() && !value.get<std::string>().empty()) {
      value = kMask;
    } else {
      Mask(value);
    }
  }
}

}  // namespace

const ResourcePoolConfig* MasterConfig::FindPool(const std::string& name) const {
  for (const ResourcePoolConfig& pool : resource_pools) {
    if (pool.pool_name == name) return &pool;
  }
  for (const AdditionalResourceManagerConfig& manager : additional_resource_managers) {
    for (const ResourcePoolConfig& pool : manager.resource_pools) {
      if (pool.pool_name == name) return &pool;
    }
  }
  return nullptr;
}

const std::vector<Setting>& MasterSettings() {
  using K = Setting::Kind;
  static const std::vector<Setting> settings = {
      {"config-file", "", K::kString,
       "the master.yaml to read (default /etc/determined/master.yaml if it exists)"},
      {"data-dir", "data_dir", K::kString, "where the database and checkpoints live"},
      {"host", "host", K::kString, "address to listen on"},
      {"port", "port", K::kInt, "port to listen on; 0 = any free port"},
      {"port-file", "", K::kString, "write the bound port to this file"},
      {"cluster-name", "cluster_name", K::kString, "name shown by the web UI and /info"},
      {"log-level", "log.level", K::kString, "trace, debug, info, warn, error or fatal"},
      {"log-color", "log.color", K::kBool, "color the log"},
      {"db-type", "db.type", K::kString, "sqlite or postgres"},
      {"db-path", "db.path", K::kString, "the SQLite file (default DATA_DIR/determined.db)"},
      {"db-host", "db.host", K::kString, "PostgreSQL host"},
      {"db-port", "db.port", K::kString, "PostgreSQL port"},
      {"db-name", "db.name", K::kString, "PostgreSQL database"},
      {"db-user", "db.user", K::kString, "PostgreSQL user"},
      {"db-password", "db.password", K::kString, "PostgreSQL password"},
      {"db-ssl-mode", "db.ssl_mode", K::kString, "PostgreSQL sslmode"},
      {"db-ssl-root-cert", "db.ssl_root_cert", K::kString, "PostgreSQL root certificate"},
      {"security-initial-user-password", "security.initial_user_password", K::kString,
       "password of admin and determined when they are first created"},
      {"security-tls-cert", "security.tls.cert", K::kString, "TLS certificate file"},
      {"security-tls-key", "security.tls.key", K::kString, "TLS private key file"},
      {"security-default-task-uid", "security.default_task.uid", K::kInt, "default task uid"},
      {"security-default-task-gid", "security.default_task.gid", K::kInt, "default task gid"},
      {"security-default-task-user", "security.default_task.user", K::kString, "default task user"},
      {"security-default-task-group", "security.default_task.group", K::kString,
       "default task group"},
      {"root", "root", K::kString, "static files directory"},
  };
  return settings;
}

absl::StatusOr<MasterConfig> LoadMasterConfig(const std::string& yaml_text,
                                              const std::map<std::string, std::string>& env,
                                              const FlagValues& flags) {
  ASSIGN_OR_RETURN(json cfg, ParseYaml(yaml_text));
  if (cfg.is_null()) cfg = json::object();
  if (!cfg.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("master configuration must be a YAML mapping, got ", TypeName(cfg)));
  }
  RETURN_IF_ERROR(ApplySettings(cfg, MasterSettings(), env, flags));

  Problems p("master");
  MasterConfig out;
  ConvertLegacy(cfg, p);
  Section top(&cfg, "", p);
  top.CheckKeys(TopLevelKeys());
  std::vector<std::string> unused;
  for (const std::string& key : UnusedTopLevelKeys()) {
    if (top.Has(key)) unused.push_back(key);
  }
  if (!unused.empty()) {
    out.warnings.push_back(
        absl::StrCat("accepted but not used by this master: ", absl::StrJoin(unused, ", ")));
  }

  json eff = json::object();
  for (const std::string& key : unused) eff[key] = cfg[key];
  // Upstream's config always has the list (code that reads the master's config iterates it).
  if (!eff.contains("feature_switches") || eff["feature_switches"].is_null()) eff["feature_switches"] = json::array();
  out.config_file = top.String("config_file");
  std::string data_dir = top.String("data_dir", "/var/lib/determined");
  if (data_dir.empty()) p.Add("data_dir", "must not be empty");
  out.data_dir =
      std::filesystem::absolute(data_dir.empty() ? "." : data_dir).lexically_normal().string();
  if (out.data_dir.size() > 1 && out.data_dir.back() == '/') out.data_dir.pop_back();
  out.host = top.String("host", "0.0.0.0");
  // Upstream: 8080, or 8443 when security.tls is configured (checked below, once it is parsed).
  out.port = static_cast<int>(top.Int("port", 8080, 0, 65535));
  const bool port_given = top.Has("port");
  out.cluster_name = top.String("cluster_name", "determined");
  out.root = top.String("root");
  out.tensorboard_timeout = static_cast<int>(top.Int("tensorboard_timeout", 300, 0, INT32_MAX));
  // Seconds; unset (upstream's default) or 0: notebooks without an idle_timeout of their own run on.
  out.notebook_timeout = static_cast<int>(top.Int("notebook_timeout", 0, 0, INT32_MAX));
  eff["notebook_timeout"] = out.notebook_timeout > 0 ? nlohmann::json(out.notebook_timeout) : nlohmann::json(nullptr);
  out.launch_error = top.Bool("launch_error", true);
  eff["launch_error"] = out.launch_error;
  eff.update({{"config_file", out.config_file},
              {"data_dir", out.data_dir},
              {"host", out.host},
              {"port", out.port},
              {"cluster_name", out.cluster_name},
              {"root", out.root},
              {"tensorboard_timeout", out.tensorboard_timeout}});

  Section log(top.Get("log"), "log", p);
  log.CheckKeys({"level", "color"});
  out.log.level = log.OneOf("level", "info", {"trace", "debug", "info", "warn", "error", "fatal"});
  out.log.color = log.Bool("color", true);
  eff["log"] = {{"level", out.log.level}, {"color", out.log.color}};

  ParseDb(top.Get("db"), out.data_dir, out, eff, p);
  ParseSecurity(top.Get("security"), out, eff, p);
  if (!port_given && out.security.tls_enabled()) {
    out.port = 8443;
    eff["port"] = out.port;
  }

  json storage =
      top.Has("checkpoint_storage")
          ? ParseCheckpointStorage(*top.Get("checkpoint_storage"), p)
          : json{{"type", "shared_fs"},
                 {"host_path", (std::filesystem::path(out.data_dir) / "checkpoints").string()}};
  out.checkpoint_storage_json = DumpJson(storage);
  eff["checkpoint_storage"] = storage;

  json tcd = ParseTaskContainerDefaults(top.Get("task_container_defaults"),
                                        "task_container_defaults", true, p);
  out.task_container_defaults_json = DumpJson(tcd);
  eff["task_container_defaults"] = tcd;

  ParseLogging(top.Get("logging"), out, eff, p);
  ParseRetentionPolicy(top.Get("retention_policy"), out, eff, p);
  ParseObservability(top.Get("observability"), out, eff, p);
  ParseResources(cfg, out, eff, p);
  if (!p.empty()) return p.ToStatus();
  out.effective_json = DumpJson(eff);
  return out;
}

std::string ToPrintableJson(const MasterConfig& config) {
  absl::StatusOr<json> eff =
      ParseJson(config.effective_json.empty() ? "{}" : config.effective_json);
  json out = eff.ok() ? *eff : json::object();
  Mask(out);
  return DumpJson(out);
}

}  // namespace det::config
