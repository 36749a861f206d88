// `det task`: generic tasks (create, config, kill, pause, unpause), the cluster's running tasks
// (list), and any task's logs.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/generic_task_ops.h"
#include "cli/trial_ops.h"

namespace det::cli {
namespace {

void AddTaskAction(CLI::App* task, CommandContext& ctx, const std::string& name,
                   const std::string& help, GenericTaskAction action) {
  CLI::App* cmd = task->add_subcommand(name, help);
  auto task_id = std::make_shared<std::string>();
  cmd->add_option("task_id", *task_id, "task ID")->required();
  cmd->callback([&ctx, task_id, action] {
    ctx.action = [&ctx, task_id, action] {
      return ActOnGenericTask(ctx.session(), *task_id, action, std::cout);
    };
  });
}

}  // namespace

void AddTaskCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* task = det.add_subcommand("task", "manage tasks");
  task->require_subcommand(1);

  CLI::App* list = task->add_subcommand("list", "list tasks in the cluster");
  list->alias("ls");
  auto fmt = AddJsonCsvFlags(list);
  list->callback([&ctx, fmt] {
    ctx.action = [&ctx, fmt] { return ListTasks(ctx.session(), fmt->format(), std::cout); };
  });

  CLI::App* logs = task->add_subcommand("logs", "fetch task logs");
  auto task_id = std::make_shared<std::string>();
  logs->add_option("task_id", *task_id, "task ID")->required();
  std::shared_ptr<LogsFlags> flags = AddLogsFlags(*logs);
  logs->callback([&ctx, task_id, flags] {
    ctx.action = [&ctx, task_id, flags] {
      return PrintTaskLogs(ctx.session(), *task_id, FinishLogsFlags(*flags), std::cout);
    };
  });

  CLI::App* create = task->add_subcommand("create", "create a generic task");
  auto create_args = std::make_shared<CreateGenericTaskArgs>();
  auto project_id = std::make_shared<int>(0);
  create->add_option("config_file", create_args->config_file, "task config file (.yaml)")
      ->required();
  create->add_option("context_dir", create_args->context_dir, "directory of the task's files")
      ->required();
  // allow_extra_args(false): one value per occurrence, so a repeated flag never swallows the
  // positionals that follow it.
  create
      ->add_option("--config", create_args->overrides,
                   "config override KEY=VALUE, dotted keys for nesting (repeatable)")
      ->allow_extra_args(false);
  create
      ->add_option("-i,--include", create_args->includes,
                   "additional file or directory to copy into the task (repeatable)")
      ->allow_extra_args(false);
  CLI::Option* project = create->add_option("--project_id,--project-id", *project_id,
                                            "place this task inside this project");
  create->add_option("--fork", create_args->fork, "the task ID to fork this task from");
  create->callback([&ctx, create_args, project_id, project] {
    ctx.action = [&ctx, create_args, project_id, project] {
      if (project->count() > 0) create_args->project_id = *project_id;
      return CreateGenericTask(ctx.session(), *create_args, std::cout, std::cerr);
    };
  });

  CLI::App* config = task->add_subcommand("config", "display a generic task's config");
  auto config_id = std::make_shared<std::string>();
  config->add_option("task_id", *config_id, "task ID")->required();
  config->callback([&ctx, config_id] {
    ctx.action = [&ctx, config_id] {
      return PrintGenericTaskConfig(ctx.session(), *config_id, std::cout);
    };
  });

  AddTaskAction(task, ctx, "kill", "kill a generic task", GenericTaskAction::kKill);
  AddTaskAction(task, ctx, "pause", "pause a generic task", GenericTaskAction::kPause);
  AddTaskAction(task, ctx, "unpause", "resume a paused generic task", GenericTaskAction::kUnpause);
}

}  // namespace det::cli
