#pragma once
// determined-master's command line: `--name value` / `--name=value` for every setting of
// config::MasterSettings() (`--config-file`, `--data-dir`, `--port`, `--db-host`, ...).
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "config/master_config.h"
#include "config/settings_overlay.h"

namespace det::master {

struct MasterFlags {
  config::FlagValues values;  // in command-line order
  bool help = false;
};

// Unknown flags and missing values are errors naming them.
absl::StatusOr<MasterFlags> ParseMasterFlags(const std::vector<std::string>& args);
std::string MasterUsage();

// The master's effective configuration and the flag-only settings, from the command line, the
// environment (`DET_*` variables in `env`) and the config file: `--config-file`/DET_CONFIG_FILE,
// else `default_config_file` when that file exists. A named file that cannot be read is an error.
struct MasterStartup {
  config::MasterConfig config;
  std::string port_file;  // --port-file; "" = none
};
absl::StatusOr<MasterStartup> LoadMasterStartup(const MasterFlags& flags,
                                                const std::map<std::string, std::string>& env,
                                                const std::string& default_config_file);

}  // namespace det::master
