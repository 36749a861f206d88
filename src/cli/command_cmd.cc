// `det cmd` (alias `det command`): run, list, config, logs, kill, set priority.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_context.h"
#include "cli/command_ops.h"
#include "cli/commands.h"
#include "cli/ntsc_cmd.h"

namespace det::cli {
namespace {

void AddRunCommand(CLI::App* cmd, CommandContext& ctx) {
  CLI::App* run = cmd->add_subcommand("run", "create command");
  std::shared_ptr<LaunchFlagValues> flags = AddLaunchFlags(run, "command");
  auto entrypoint = std::make_shared<std::vector<std::string>>();
  // Everything from the first positional on is the command, its own flags included
  // (`det cmd run python -c 'print(1)'`), as upstream's argparse.REMAINDER; `--` works too.
  run->add_option("entrypoint", *entrypoint,
                  "the command to run and its arguments (default: the config's entrypoint)");
  run->positionals_at_end();
  run->callback([&ctx, flags, entrypoint] {
    ctx.action = [&ctx, flags, entrypoint] {
      RunCommandArgs args;
      static_cast<LaunchArgs&>(args) = flags->Finish();
      args.entrypoint = *entrypoint;
      return RunCommand(ctx.session(), args, std::cout, std::cerr);
    };
  });
}

}  // namespace

void AddCommandCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* cmd = det.add_subcommand("cmd", "manage commands");
  cmd->alias("command");
  cmd->require_subcommand(0, 1);
  AddRunCommand(cmd, ctx);
  AddNtscManagementCommands(cmd, ctx, kCommandListing);
}

}  // namespace det::cli
