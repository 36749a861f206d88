#include "agent/agent_config.h"

#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/master_url.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/schema_fields.h"

namespace det::agent {
namespace {

using nlohmann::json;
using Keys = std::set<std::string>;
using config::Problems;

// Upstream keys accepted (an upstream agent.yaml loads) but not acted on by this agent.
const Keys& UnusedKeys() {
  static const Keys keys = {"debug",
                            "tls",
                            "tls_cert",
                            "tls_key",
                            "api_enabled",
                            "bind_ip",
                            "bind_port",
                            "http_proxy",
                            "https_proxy",
                            "ftp_proxy",
                            "no_proxy",
                            "agent_reconnect_attempts",
                            "agent_reconnect_backoff",
                            "container_runtime",
                            "container_auto_remove_disabled",
                            "hooks",
                            "image_root"};
  return keys;
}

const Keys& Known() {
  static const Keys keys = [] {
    Keys k = {"config_file",
              "master_url",
              "master_host",
              "master_port",
              "agent_id",
              "id",
              "resource_pool",
              "slots",
              "artificial_slots",
              "slot_type",
              "visible_gpus",
              "work_dir",
              "container_master_host",
              "container_master_port",
              "container_socket",
              "log",
              "security",
              "fluent"};
    k.insert(UnusedKeys().begin(), UnusedKeys().end());
    return k;
  }();
  return keys;
}

bool Has(const json& obj, const std::string& key) {
  return obj.is_object() && obj.contains(key) && !obj[key].is_null();
}

std::string Str(const json& obj, const std::string& key, const std::string& path, Problems& p,
                const std::string& def = "") {
  if (!Has(obj, key)) return def;
  if (obj[key].is_string()) return obj[key].get<std::string>();
  if (obj[key].is_number_integer()) return std::to_string(obj[key].get<int64_t>());
  p.Add(path, "must be a string");
  return def;
}

int Int(const json& obj, const std::string& key, const std::string& path, int min, int max, int def,
        Problems& p) {
  if (!Has(obj, key)) return def;
  if (!obj[key].is_number_integer()) {
    p.Add(path, absl::StrCat("must be an integer, got ", DumpJson(obj[key])));
    return def;
  }
  int64_t n = obj[key].get<int64_t>();
  if (n < min || n > max) {
    p.Add(path, absl::StrCat("must be between ", min, " and ", max, ", got ", n));
    return def;
  }
  return static_cast<int>(n);
}

bool Bool(const json& obj, const std::string& key, const std::string& path, Problems& p) {
  if (!Has(obj, key)) return false;
  if (!obj[key].is_boolean()) {
    p.Add(path, "must be true or false");
    return false;
  }
  return obj[key].get<bool>();
}

void CheckKeys(const json& obj, const std::string& path, const Keys& allowed, Problems& p) {
  if (!obj.is_object()) {
    if (!obj.is_null()) p.Add(path, "must be a mapping");
    return;
  }
  for (const auto& [key, value] : obj.items()) {
    if (!allowed.count(key)) {
      p.Add(path.empty() ? key : absl::StrCat(path, ".", key),
            absl::StrCat("unknown key; allowed keys are ", absl::StrJoin(allowed, ", ")));
    }
  }
}

}  // namespace

const std::vector<config::Setting>& AgentSettings() {
  using K = config::Setting::Kind;
  static const std::vector<config::Setting> settings = {
      {"config-file", "", K::kString,
       "the agent.yaml to read (default /etc/determined/agent.yaml if it exists)"},
      {"master-url", "master_url", K::kString, "the master, http://HOST:PORT"},
      {"master-host", "master_host", K::kString, "the master's host"},
      {"master-port", "master_port", K::kInt, "the master's port (default 8080)"},
      {"agent-id", "agent_id", K::kString, "this agent's id (default: the hostname)"},
      {"id", "agent_id", K::kString, "alias of --agent-id"},
      {"resource-pool", "resource_pool", K::kString, "the resource pool to join (default: the master's default compute pool)"},
      {"slots", "slots", K::kInt, "number of CPU slots to offer (default 1)"},
      {"artificial-slots", "artificial_slots", K::kInt, "alias of --slots"},
      {"slot-type", "slot_type", K::kString,
       "auto (the GPUs found, else CPU slots), cuda, rocm, cpu or none (default auto)"},
      {"visible-gpus", "visible_gpus", K::kString, "the GPUs to offer, by index: 0,2 (default all)"},
      {"work-dir", "work_dir", K::kString, "where task directories go"},
      {"container-master-host", "container_master_host", K::kString, "master host tasks use"},
      {"container-master-port", "container_master_port", K::kInt, "master port tasks use"},
      {"container-socket", "container_socket", K::kString,
       "the Docker Engine API socket (dockerd, podman) for tasks with an image (default: DOCKER_HOST's)"},
      {"log-level", "log.level", K::kString, "trace, debug, info, warn or error"},
      {"security-tls-enabled", "security.tls.enabled", K::kBool, "talk to the master over TLS"},
      {"security-tls-skip-verify", "security.tls.skip_verify", K::kBool, "skip TLS verification"},
      {"security-tls-master-cert", "security.tls.master_cert", K::kString, "the master's CA file"},
      {"security-tls-master-cert-name", "security.tls.master_cert_name", K::kString,
       "name expected in the master's certificate"},
  };
  return settings;
}

std::string AgentUsage() {
  return absl::StrCat("usage: determined-agent [--config-file FILE] [flags]\n",
                      "Flags override DET_<FLAG> environment variables, which override the file.\n",
                      config::SettingsUsage(AgentSettings()), "  --version\n");
}

absl::StatusOr<AgentFileConfig> LoadAgentConfig(const std::string& yaml_text,
                                                const std::map<std::string, std::string>& env,
                                                const config::FlagValues& flags) {
  ASSIGN_OR_RETURN(json cfg, ParseYaml(yaml_text));
  if (cfg.is_null()) cfg = json::object();
  if (!cfg.is_object())
    return absl::InvalidArgumentError("agent configuration must be a YAML mapping");
  // master_url stands for master_host + master_port at its own layer, so a DET_MASTER_URL or
  // --master-url overrides a master_host from the file (and the other way round).
  config::Problems p("agent");
  if (Has(cfg, "master_url")) {
    if (Has(cfg, "master_host") || Has(cfg, "master_port")) {
      p.Add("master_url", "give either master_url or master_host/master_port, not both");
    } else if (!cfg["master_url"].is_string()) {
      p.Add("master_url", "must be a string");
    } else if (absl::StatusOr<MasterUrl> m = ParseMasterUrl(cfg["master_url"].get<std::string>());
               !m.ok()) {
      p.Add("master_url", std::string(m.status().message()));
    } else {
      cfg["master_host"] = m->host;
      cfg["master_port"] = m->port;
      // An https:// URL means TLS, as if security.tls.enabled were set at this layer.
      if (m->scheme == "https") {
        json& security = cfg["security"];
        if (security.is_null()) security = json::object();
        if (security.is_object()) {
          json& tls = security["tls"];
          if (tls.is_null()) tls = json::object();
          if (tls.is_object()) tls["enabled"] = true;
        }
      }
    }
    cfg.erase("master_url");
  }
  std::map<std::string, std::string> layered_env = env;
  if (auto it = layered_env.find("DET_MASTER_URL"); it != layered_env.end()) {
    absl::StatusOr<MasterUrl> m = ParseMasterUrl(it->second);
    if (!m.ok())
      return absl::InvalidArgumentError(absl::StrCat("DET_MASTER_URL: ", m.status().message()));
    if (layered_env.count("DET_MASTER_HOST") || layered_env.count("DET_MASTER_PORT")) {
      return absl::InvalidArgumentError(
          "DET_MASTER_URL: give either DET_MASTER_URL or DET_MASTER_HOST/DET_MASTER_PORT, not "
          "both");
    }
    layered_env["DET_MASTER_HOST"] = m->host;
    layered_env["DET_MASTER_PORT"] = std::to_string(m->port);
    if (m->scheme == "https") layered_env["DET_SECURITY_TLS_ENABLED"] = "true";
    layered_env.erase(it);
  }
  config::FlagValues layered_flags;
  bool url_flag = false;
  bool host_flag = false;
  for (const auto& [flag, value] : flags) {
    if (flag != "master-url") {
      host_flag = host_flag || flag == "master-host" || flag == "master-port";
      layered_flags.emplace_back(flag, value);
      continue;
    }
    absl::StatusOr<MasterUrl> m = ParseMasterUrl(value);
    if (!m.ok())
      return absl::InvalidArgumentError(absl::StrCat("--master-url: ", m.status().message()));
    url_flag = true;
    layered_flags.emplace_back("master-host", m->host);
    layered_flags.emplace_back("master-port", std::to_string(m->port));
    if (m->scheme == "https") layered_flags.emplace_back("security-tls-enabled", "true");
  }
  if (url_flag && host_flag) {
    return absl::InvalidArgumentError(
        "--master-url: give either --master-url or --master-host/--master-port, not both");
  }
  RETURN_IF_ERROR(config::ApplySettings(cfg, AgentSettings(), layered_env, layered_flags));

  AgentFileConfig out;
  CheckKeys(cfg, "", Known(), p);
  std::vector<std::string> unused;
  for (const std::string& key : UnusedKeys()) {
    if (Has(cfg, key)) unused.push_back(key);
  }
  if (!unused.empty()) {
    out.warnings.push_back(
        absl::StrCat("accepted but not used by this agent: ", absl::StrJoin(unused, ", ")));
  }
  if (Has(cfg, "fluent")) p.Add("fluent", "no longer supported; remove it");

  out.master_host = Str(cfg, "master_host", "master_host", p);
  out.master_port = Int(cfg, "master_port", "master_port", 1, 65535, 8080, p);
  if (out.master_host.empty()) {
    p.Add("master_host", "required: the master's address (or master_url http://HOST:PORT)");
  }

  out.agent_id = Str(cfg, "agent_id", "agent_id", p);
  if (out.agent_id.find('/') != std::string::npos) p.Add("agent_id", "must not contain '/'");
  out.resource_pool = Str(cfg, "resource_pool", "resource_pool", p, "");

  const std::string slot_type = Str(cfg, "slot_type", "slot_type", p, "auto");
  static const std::map<std::string, SlotType> kSlotTypes = {
      {"auto", SlotType::kAuto}, {"cuda", SlotType::kCuda}, {"gpu", SlotType::kCuda},
      {"rocm", SlotType::kRocm}, {"cpu", SlotType::kCpu},  {"none", SlotType::kNone}};
  if (auto it = kSlotTypes.find(slot_type); it != kSlotTypes.end()) {
    out.slot_type = it->second;
  } else {
    p.Add("slot_type", absl::StrCat("must be one of auto, cuda, rocm, cpu, none, got \"", slot_type, "\""));
  }
  if (Has(cfg, "visible_gpus")) {
    // A list in agent.yaml, a comma-separated string on the command line and in DET_VISIBLE_GPUS.
    const json& v = cfg["visible_gpus"];
    std::vector<std::string> items;
    if (v.is_array()) {
      for (const json& item : v) items.push_back(item.is_string() ? item.get<std::string>() : item.dump());
    } else if (v.is_string() || v.is_number_integer()) {
      for (absl::string_view part : absl::StrSplit(v.is_string() ? v.get<std::string>() : v.dump(), ',', absl::SkipEmpty())) {
        items.emplace_back(absl::StripAsciiWhitespace(part));
      }
    }
    for (const std::string& item : items) {
      int index = -1;
      if (!absl::SimpleAtoi(item, &index) || index < 0) {
        p.Add("visible_gpus", absl::StrCat("must list GPU indexes such as 0,2, got \"", item, "\""));
        continue;
      }
      out.visible_gpus.push_back(index);
    }
    if (items.empty()) p.Add("visible_gpus", "must list GPU indexes such as 0,2");
  }
  const int type_slots = out.slot_type == SlotType::kNone ? 0 : 1;
  int artificial = Int(cfg, "artificial_slots", "artificial_slots", 0, 4096, 0, p);
  if (Has(cfg, "slots")) {
    out.slots = Int(cfg, "slots", "slots", 0, 4096, 1, p);
  } else if (artificial > 0) {
    out.slots = artificial;
  } else {
    out.slots = type_slots;
  }

  out.work_dir = Str(cfg, "work_dir", "work_dir", p);
  out.container_master_host = Str(cfg, "container_master_host", "container_master_host", p);
  out.container_master_port =
      Int(cfg, "container_master_port", "container_master_port", 0, 65535, 0, p);
  out.container_socket = Str(cfg, "container_socket", "container_socket", p);

  json log = Has(cfg, "log") ? cfg["log"] : json::object();
  CheckKeys(log, "log", {"level", "color"}, p);
  out.log_level = Str(log, "level", "log.level", p, "info");
  if (!Keys{"trace", "debug", "info", "warn", "error", "fatal"}.count(out.log_level)) {
    p.Add("log.level", absl::StrCat("must be one of trace, debug, info, warn, error, fatal, got \"",
                                    out.log_level, "\""));
  }

  json security = Has(cfg, "security") ? cfg["security"] : json::object();
  CheckKeys(security, "security", {"tls"}, p);
  json tls = Has(security, "tls") ? security["tls"] : json::object();
  CheckKeys(
      tls, "security.tls",
      {"enabled", "skip_verify", "master_cert", "master_cert_name", "client_cert", "client_key"},
      p);
  out.tls.enabled = Bool(tls, "enabled", "security.tls.enabled", p);
  out.tls.skip_verify = Bool(tls, "skip_verify", "security.tls.skip_verify", p);
  out.tls.master_cert = Str(tls, "master_cert", "security.tls.master_cert", p);
  out.tls.master_cert_name = Str(tls, "master_cert_name", "security.tls.master_cert_name", p);
  out.tls.client_cert = Str(tls, "client_cert", "security.tls.client_cert", p);
  out.tls.client_key = Str(tls, "client_key", "security.tls.client_key", p);
  if (out.tls.client_cert.empty() != out.tls.client_key.empty()) {
    p.Add("security.tls", "client_cert and client_key must be given together");
  }
  if (!p.empty()) return p.ToStatus();
  return out;
}

}  // namespace det::agent
