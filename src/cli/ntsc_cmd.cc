// The subcommands and flags `det cmd|notebook|shell|tensorboard` share.
#include "cli/ntsc_cmd.h"

#include <iostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/trial_ops.h"

namespace det::cli {

LaunchArgs LaunchFlagValues::Finish() const {
  LaunchArgs a = args;
  if (!config_file.empty()) a.config_file = config_file;
  if (!context.empty()) a.context_dir = context;
  return a;
}

std::shared_ptr<LaunchFlagValues> AddLaunchFlags(CLI::App* start, const std::string& noun) {
  auto v = std::make_shared<LaunchFlagValues>();
  start->add_option("--config-file", v->config_file, absl::StrCat(noun, " config file (.yaml)"));
  Repeatable(start->add_option("--config", v->args.overrides,
                               "config override KEY=VALUE, dotted keys for nesting (repeatable)"));
  start->add_option("-c,--context", v->context,
                    absl::StrCat("directory to copy into the ", noun, "'s working directory"));
  Repeatable(start->add_option(
      "-i,--include", v->args.includes,
      absl::StrCat("additional file or directory to copy into the ", noun, " (repeatable)")));
  start->add_option("--template", v->args.template_name,
                    absl::StrCat("name of template to apply to the ", noun, " configuration"));
  Repeatable(start->add_option("-v,--volume", v->args.volumes,
                               "bind mount HOST_PATH:CONTAINER_PATH[:ro] (repeatable)"));
  start->add_option("-w,--workspace-name", v->args.workspace_name,
                    absl::StrCat("workspace to run the ", noun, " in (default: Uncategorized)"));
  start->add_flag("-d,--detach", v->args.detach,
                  absl::StrCat("print the ", noun, "'s id and exit, instead of waiting for it"));
  return v;
}

void AddNtscManagementCommands(CLI::App* group, CommandContext& ctx, const TaskListing& kind) {
  const std::string id_name = absl::StrCat(kind.noun, "_id");
  const std::string id_help = absl::StrCat(kind.noun, " ID (or a unique prefix)");

  CLI::App* list = group->add_subcommand("list", absl::StrCat("list ", kind.key));
  list->alias("ls");
  auto list_args = std::make_shared<ListNtscArgs>();
  list->add_flag("-a,--all", list_args->all,
                 absl::StrCat("show all ", kind.key, ", not just your own"));
  list->add_flag("-q,--quiet", list_args->quiet, "only display the IDs");
  auto fmt = AddJsonCsvFlags(list);
  auto run_list = [&ctx, &kind, list_args, fmt] {
    ctx.action = [&ctx, &kind, list_args, fmt] {
      list_args->format = fmt->format();
      return ListNtsc(ctx.session(), kind, *list_args, std::cout);
    };
  };
  list->callback(run_list);
  group->callback([group, run_list] {  // `det notebook` alone lists, as upstream
    if (group->get_subcommands().empty()) run_list();
  });

  CLI::App* config =
      group->add_subcommand("config", absl::StrCat("display ", kind.noun, " config"));
  auto config_id = std::make_shared<std::string>();
  config->add_option(id_name, *config_id, id_help)->required();
  config->callback([&ctx, &kind, config_id] {
    ctx.action = [&ctx, &kind, config_id] {
      return PrintNtscConfig(ctx.session(), kind, *config_id, std::cout);
    };
  });

  CLI::App* logs = group->add_subcommand("logs", absl::StrCat("fetch ", kind.noun, " logs"));
  auto logs_id = std::make_shared<std::string>();
  logs->add_option(id_name, *logs_id, id_help)->required();
  std::shared_ptr<LogsFlags> flags = AddLogsFlags(*logs);
  logs->callback([&ctx, &kind, logs_id, flags] {
    ctx.action = [&ctx, &kind, logs_id, flags] {
      return PrintNtscLogs(ctx.session(), kind, *logs_id, FinishLogsFlags(*flags), std::cout);
    };
  });

  CLI::App* kill = group->add_subcommand("kill", absl::StrCat("kill ", kind.key));
  auto kill_ids = std::make_shared<std::vector<std::string>>();
  kill->add_option(absl::StrCat(kind.noun, "_ids"), *kill_ids,
                   absl::StrCat(kind.noun, " IDs (or unique prefixes)"))
      ->required();
  auto force = std::make_shared<bool>(false);
  kill->add_flag("-f,--force", *force, "ignore errors: skip the ids that cannot be killed");
  kill->callback([&ctx, &kind, kill_ids, force] {
    ctx.action = [&ctx, &kind, kill_ids, force] {
      return KillNtsc(ctx.session(), kind, *kill_ids, std::cout, *force);
    };
  });

  CLI::App* set = group->add_subcommand("set", absl::StrCat("set ", kind.noun, " attributes"));
  set->require_subcommand(1);
  CLI::App* priority =
      set->add_subcommand("priority", absl::StrCat("set a ", kind.noun, "'s priority"));
  auto priority_id = std::make_shared<std::string>();
  auto priority_value = std::make_shared<int>(0);
  priority->add_option(id_name, *priority_id, id_help)->required();
  priority->add_option("priority", *priority_value, "the new priority")->required();
  priority->callback([&ctx, &kind, priority_id, priority_value] {
    ctx.action = [&ctx, &kind, priority_id, priority_value] {
      return SetNtscPriority(ctx.session(), kind, *priority_id, *priority_value, std::cout);
    };
  });
}

}  // namespace det::cli
