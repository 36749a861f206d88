#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/master_ops.h"

namespace det::cli {
namespace {

// --json / --yaml (mutually exclusive); YAML when neither is given.
std::shared_ptr<MasterOutput> AddMasterFormatFlags(CLI::App* cmd, bool with_yaml) {
  auto format = std::make_shared<MasterOutput>(MasterOutput::kYaml);
  CLI::Option* json = cmd->add_flag_callback(
      "--json", [format] { *format = MasterOutput::kJson; }, "print JSON");
  if (with_yaml) {
    cmd->add_flag_callback(
           "--yaml", [format] { *format = MasterOutput::kYaml; }, "print YAML (default)")
        ->excludes(json);
  }
  return format;
}

}  // namespace

void AddMasterCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* master = det.add_subcommand("master", "manage master");
  master->require_subcommand(1);

  CLI::App* config = master->add_subcommand("config", "fetch master config");
  auto config_format = AddMasterFormatFlags(config, true);
  config->callback([&ctx, config_format] {
    ctx.action = [&ctx, config_format] { return MasterConfig(ctx, *config_format, std::cout); };
  });

  CLI::App* logs = master->add_subcommand("logs", "fetch master logs");
  auto follow = std::make_shared<bool>(false);
  auto tail = std::make_shared<int>(-1);
  logs->add_flag("-f,--follow", *follow, "follow the logs of the master, like tail -f");
  logs->add_option("--tail", *tail, "number of lines to show, counting from the end of the log");
  logs->callback([&ctx, follow, tail] {
    ctx.action = [&ctx, follow, tail] {
      return MasterLogs(ctx, *follow, *tail >= 0 ? std::optional<int>(*tail) : std::nullopt,
                        std::cout);
    };
  });

  CLI::App* version = det.add_subcommand("version", "show the client's and the master's versions");
  auto version_format = AddMasterFormatFlags(version, false);
  version->callback([&ctx, version_format] {
    ctx.action = [&ctx, version_format] { return Version(ctx, *version_format, std::cout, std::cerr); };
  });

  CLI::App* info = master->add_subcommand("info", "fetch master info");
  auto info_format = AddMasterFormatFlags(info, false);
  info->callback([&ctx, info_format] {
    ctx.action = [&ctx, info_format] { return MasterInfo(ctx, *info_format, std::cout); };
  });
}

}  // namespace det::cli
