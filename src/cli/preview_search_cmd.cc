#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/preview_search_ops.h"

namespace det::cli {

void AddPreviewSearchCommand(CLI::App& det, CommandContext& ctx) {
  CLI::App* cmd = det.add_subcommand("preview-search", "preview search");
  auto config_file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("config_file", *config_file, "experiment config file (.yaml)")->required();
  cmd->add_flag("--json", *json, "print the master's answer as JSON");
  cmd->callback([&ctx, config_file, json] {
    ctx.action = [&ctx, config_file, json] { return PreviewSearch(ctx.session(), *config_file, *json); };
  });
}

}  // namespace det::cli
