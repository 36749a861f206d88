#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/resource_pool_ops.h"

namespace det::cli {

void AddResourcePoolCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* rp = det.add_subcommand("resource-pool", "manage resource pools");
  rp->alias("rp");
  rp->require_subcommand(0, 1);
  CLI::App* list = rp->add_subcommand("list", "list resource pools");
  list->alias("ls");
  auto fmt = AddJsonCsvFlags(list);
  auto run_list = [&ctx, fmt] {
    ctx.action = [&ctx, fmt] { return ListResourcePools(ctx.session(), fmt->format(), std::cout); };
  };
  list->callback(run_list);
  rp->callback([rp, run_list] {
    if (rp->get_subcommands().empty()) run_list();
  });
}

}  // namespace det::cli
