#pragma once
// Upstream's layering of a service's settings (reference §4): a YAML file, overridden by
// environment variables `DET_<FLAG>`, overridden by command-line flags `--<flag>`. A Setting names
// one flag and the config key it writes (`--db-host` ⇔ `DET_DB_HOST` ⇔ `db.host`).
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace det::config {

struct Setting {
  enum class Kind { kString, kInt, kBool };
  std::string flag;  // without the leading "--", e.g. "db-host"
  std::string path;  // dotted config key, e.g. "db.host"; "" = not a config key (read by Lookup)
  Kind kind = Kind::kString;
  std::string help;
};

// A flag and its value as given, in command-line order.
using FlagValues = std::vector<std::pair<std::string, std::string>>;

// "db-host" -> "DET_DB_HOST".
std::string EnvName(const std::string& flag);

// Parses `--name value` and `--name=value`; a bool flag given without `=` means true and takes no
// value. `-h`/`--help` sets *help. Unknown flags and missing values are InvalidArgument naming
// them.
absl::StatusOr<FlagValues> ParseFlagArgs(const std::vector<std::string>& args,
                                         const std::vector<Setting>& settings, bool* help);

// Writes env values (`DET_<FLAG>` present in `env`) and then `flags` onto `config` (a JSON object;
// null is treated as an empty object), typing each value by its Setting's kind. Errors name the
// variable or the flag: `DET_PORT: must be an integer, got "x"`.
absl::Status ApplySettings(nlohmann::json& config, const std::vector<Setting>& settings,
                           const std::map<std::string, std::string>& env, const FlagValues& flags);

// The value of one flag: the last `--flag` given, else `DET_<FLAG>` from env, else nullopt.
std::optional<std::string> Lookup(const std::string& flag,
                                  const std::map<std::string, std::string>& env,
                                  const FlagValues& flags);

// The DET_* variables of this process's environment.
std::map<std::string, std::string> DetEnvironment();

// "  --db-host VALUE   help (env DET_DB_HOST, key db.host)" lines for a usage text.
std::string SettingsUsage(const std::vector<Setting>& settings);

}  // namespace det::config
