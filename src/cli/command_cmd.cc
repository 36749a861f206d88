// `det cmd` (alias `det command`): run, list, config, logs, kill, set priority.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_context.h"
#include "cli/command_ops.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/trial_ops.h"

namespace det::cli {
namespace {

// One value per occurrence (`-v a:b CMD` must not take CMD as a second volume), any number of
// occurrences.
CLI::Option* Repeatable(CLI::Option* o) { return o->allow_extra_args(false); }

void AddRunCommand(CLI::App* cmd, CommandContext& ctx) {
  CLI::App* run = cmd->add_subcommand("run", "create command");
  auto args = std::make_shared<RunCommandArgs>();
  auto config_file = std::make_shared<std::string>();
  auto context = std::make_shared<std::string>();
  run->add_option("--config-file", *config_file, "command config file (.yaml)");
  Repeatable(run->add_option("--config", args->overrides,
                             "config override KEY=VALUE, dotted keys for nesting (repeatable)"));
  run->add_option("-c,--context", *context,
                  "directory to copy into the command's working directory");
  Repeatable(run->add_option("-i,--include", args->includes,
                             "additional file or directory to copy into the command (repeatable)"));
  run->add_option("--template", args->template_name,
                  "name of template to apply to the command configuration");
  run->add_flag("-d,--detach", args->detach,
                "print the command's id and exit, instead of following its logs");
  Repeatable(run->add_option("-v,--volume", args->volumes,
                             "bind mount HOST_PATH:CONTAINER_PATH[:ro] (repeatable)"));
  // Everything from the first positional on is the command, its own flags included
  // (`det cmd run python -c 'print(1)'`), as upstream's argparse.REMAINDER; `--` works too.
  run->add_option("entrypoint", args->entrypoint,
                  "the command to run and its arguments (default: the config's entrypoint)");
  run->positionals_at_end();
  run->callback([&ctx, args, config_file, context] {
    ctx.action = [&ctx, args, config_file, context] {
      if (!config_file->empty()) args->config_file = *config_file;
      if (!context->empty()) args->context_dir = *context;
      return RunCommand(ctx.session(), *args, std::cout, std::cerr);
    };
  });
}

}  // namespace

void AddCommandCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* cmd = det.add_subcommand("cmd", "manage commands");
  cmd->alias("command");
  cmd->require_subcommand(0, 1);

  AddRunCommand(cmd, ctx);

  CLI::App* list = cmd->add_subcommand("list", "list commands");
  list->alias("ls");
  auto list_args = std::make_shared<ListCommandsArgs>();
  list->add_flag("-a,--all", list_args->all, "show all commands, not just your own");
  list->add_flag("-q,--quiet", list_args->quiet, "only display the IDs");
  auto fmt = AddJsonCsvFlags(list);
  auto run_list = [&ctx, list_args, fmt] {
    ctx.action = [&ctx, list_args, fmt] {
      list_args->format = fmt->format();
      return ListCommands(ctx.session(), *list_args, std::cout);
    };
  };
  list->callback(run_list);
  cmd->callback([cmd, run_list] {  // `det cmd` alone lists, as upstream
    if (cmd->get_subcommands().empty()) run_list();
  });

  CLI::App* config = cmd->add_subcommand("config", "display command config");
  auto config_id = std::make_shared<std::string>();
  config->add_option("command_id", *config_id, "command ID (or a unique prefix)")->required();
  config->callback([&ctx, config_id] {
    ctx.action = [&ctx, config_id] {
      return PrintCommandConfig(ctx.session(), *config_id, std::cout);
    };
  });

  CLI::App* logs = cmd->add_subcommand("logs", "fetch command logs");
  auto logs_id = std::make_shared<std::string>();
  logs->add_option("command_id", *logs_id, "command ID (or a unique prefix)")->required();
  std::shared_ptr<LogsFlags> flags = AddLogsFlags(*logs);
  logs->callback([&ctx, logs_id, flags] {
    ctx.action = [&ctx, logs_id, flags] {
      return PrintCommandLogs(ctx.session(), *logs_id, FinishLogsFlags(*flags), std::cout);
    };
  });

  CLI::App* kill = cmd->add_subcommand("kill", "kill commands");
  auto kill_ids = std::make_shared<std::vector<std::string>>();
  kill->add_option("command_ids", *kill_ids, "command IDs (or unique prefixes)")->required();
  kill->callback([&ctx, kill_ids] {
    ctx.action = [&ctx, kill_ids] { return KillCommands(ctx.session(), *kill_ids, std::cout); };
  });

  CLI::App* set = cmd->add_subcommand("set", "set command attributes");
  set->require_subcommand(1);
  CLI::App* priority = set->add_subcommand("priority", "set a command's priority");
  auto priority_id = std::make_shared<std::string>();
  auto priority_value = std::make_shared<int>(0);
  priority->add_option("command_id", *priority_id, "command ID (or a unique prefix)")->required();
  priority->add_option("priority", *priority_value, "the new priority")->required();
  priority->callback([&ctx, priority_id, priority_value] {
    ctx.action = [&ctx, priority_id, priority_value] {
      return SetCommandPriority(ctx.session(), *priority_id, *priority_value, std::cout);
    };
  });
}

}  // namespace det::cli
