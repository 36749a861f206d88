#include "config/settings_overlay.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace det::config {
namespace {

using nlohmann::json;

const Setting* Find(const std::vector<Setting>& settings, const std::string& flag) {
  for (const Setting& s : settings) {
    if (s.flag == flag) return &s;
  }
  return nullptr;
}

absl::StatusOr<json> Typed(const Setting& s, const std::string& value, const std::string& source) {
  switch (s.kind) {
    case Setting::Kind::kString:
      return json(value);
    case Setting::Kind::kInt: {
      int64_t n = 0;
      if (!absl::SimpleAtoi(value, &n)) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": must be an integer, got \"", value, "\""));
      }
      return json(n);
    }
    case Setting::Kind::kBool: {
      bool b = false;
      if (!absl::SimpleAtob(value, &b)) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": must be true or false, got \"", value, "\""));
      }
      return json(b);
    }
  }
  return json(value);
}

void Put(json& config, const std::string& path, json value) {
  json* node = &config;
  std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node->is_object()) *node = json::object();
    json& child = (*node)[parts[i]];
    if (!child.is_object()) child = json::object();
    node = &child;
  }
  if (!node->is_object()) *node = json::object();
  (*node)[parts.back()] = std::move(value);
}

}  // namespace

std::string EnvName(const std::string& flag) {
  std::string out = "DET_";
  for (char c : flag) {
    out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

absl::StatusOr<FlagValues> ParseFlagArgs(const std::vector<std::string>& args,
                                         const std::vector<Setting>& settings, bool* help) {
  FlagValues out;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "-h" || name == "--help") {
      if (help != nullptr) *help = true;
      continue;
    }
    const Setting* s = name.rfind("--", 0) == 0 ? Find(settings, name.substr(2)) : nullptr;
    if (s == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("unknown flag \"", args[i], "\""));
    if (!has_value) {
      if (s->kind == Setting::Kind::kBool) {
        value = "true";
      } else if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      } else {
        value = args[++i];
      }
    }
    out.emplace_back(s->flag, value);
  }
  return out;
}

absl::Status ApplySettings(json& config, const std::vector<Setting>& settings,
                           const std::map<std::string, std::string>& env, const FlagValues& flags) {
  if (config.is_null()) config = json::object();
  for (const Setting& s : settings) {
    if (s.path.empty()) continue;
    std::string var = EnvName(s.flag);
    auto it = env.find(var);
    if (it == env.end()) continue;
    absl::StatusOr<json> v = Typed(s, it->second, var);
    if (!v.ok()) return v.status();
    Put(config, s.path, *std::move(v));
  }
  for (const auto& [flag, value] : flags) {
    const Setting* s = Find(settings, flag);
    if (s == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("unknown flag \"--", flag, "\""));
    if (s->path.empty()) continue;
    absl::StatusOr<json> v = Typed(*s, value, absl::StrCat("--", flag));
    if (!v.ok()) return v.status();
    Put(config, s->path, *std::move(v));
  }
  return absl::OkStatus();
}

std::optional<std::string> Lookup(const std::string& flag,
                                  const std::map<std::string, std::string>& env,
                                  const FlagValues& flags) {
  for (auto it = flags.rbegin(); it != flags.rend(); ++it) {
    if (it->first == flag) return it->second;
  }
  if (auto it = env.find(EnvName(flag)); it != env.end()) return it->second;
  return std::nullopt;
}

std::map<std::string, std::string> DetEnvironment() {
  std::map<std::string, std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry = *e;
    if (entry.rfind("DET_", 0) != 0) continue;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    out[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return out;
}

std::string SettingsUsage(const std::vector<Setting>& settings) {
  std::string out;
  for (const Setting& s : settings) {
    std::string head =
        absl::StrCat("  --", s.flag, s.kind == Setting::Kind::kBool ? "[=BOOL]" : " VALUE");
    if (head.size() < 40) head.resize(40, ' ');
    absl::StrAppend(&out, head, " ", s.help, " (", EnvName(s.flag));
    if (!s.path.empty()) absl::StrAppend(&out, ", key ", s.path);
    absl::StrAppend(&out, ")\n");
  }
  return out;
}

}  // namespace det::config
