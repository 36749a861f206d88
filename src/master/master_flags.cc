#include "master/master_flags.h"

#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/file_util.h"

namespace det::master {

std::string MasterUsage() {
  return absl::StrCat(
      "usage: determined-master [--config-file FILE] [flags]\n"
      "Flags override DET_<FLAG> environment variables, which override the config file.\n"
      "  --print-routes  print each route the master serves (METHOD /pattern) and exit\n",
      config::SettingsUsage(config::MasterSettings()));
}

absl::StatusOr<MasterFlags> ParseMasterFlags(const std::vector<std::string>& args) {
  MasterFlags f;
  absl::StatusOr<config::FlagValues> values =
      config::ParseFlagArgs(args, config::MasterSettings(), &f.help);
  if (!values.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(values.status().message(), "\n", MasterUsage()));
  }
  f.values = *std::move(values);
  return f;
}

absl::StatusOr<MasterStartup> LoadMasterStartup(const MasterFlags& flags,
                                                const std::map<std::string, std::string>& env,
                                                const std::string& default_config_file) {
  std::optional<std::string> file = config::Lookup("config-file", env, flags.values);
  std::error_code ec;
  if (!file && !default_config_file.empty() && std::filesystem::exists(default_config_file, ec)) {
    file = default_config_file;
  }
  std::string yaml;
  if (file) {
    absl::StatusOr<std::string> text = ReadFile(*file);
    if (!text.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("config file ", *file, ": ", text.status().message()));
    }
    yaml = *std::move(text);
  }
  absl::StatusOr<config::MasterConfig> cfg = config::LoadMasterConfig(yaml, env, flags.values);
  if (!cfg.ok()) {
    if (!file) return cfg.status();
    return absl::InvalidArgumentError(absl::StrCat(*file, ": ", cfg.status().message()));
  }
  MasterStartup out{.config = *std::move(cfg), .port_file = ""};
  if (file) out.config.config_file = *file;
  out.port_file = config::Lookup("port-file", env, flags.values).value_or("");
  return out;
}

}  // namespace det::master
