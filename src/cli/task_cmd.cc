// `det task logs TASK_ID`: a task's logs, with the same flags as `det trial logs`.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/trial_ops.h"

namespace det::cli {

void AddTaskCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* task = det.add_subcommand("task", "manage tasks");
  task->require_subcommand(1);

  CLI::App* logs = task->add_subcommand("logs", "fetch task logs");
  auto task_id = std::make_shared<std::string>();
  logs->add_option("task_id", *task_id, "task ID")->required();
  std::shared_ptr<LogsFlags> flags = AddLogsFlags(*logs);
  logs->callback([&ctx, task_id, flags] {
    ctx.action = [&ctx, task_id, flags] {
      return PrintTaskLogs(ctx.session(), *task_id, FinishLogsFlags(*flags), std::cout);
    };
  });
}

}  // namespace det::cli
