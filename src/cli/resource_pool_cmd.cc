#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

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

  CLI::App* bindings = rp->add_subcommand("bindings", "manage which workspaces a resource pool serves");
  bindings->require_subcommand(1);
  CLI::App* list_bindings = bindings->add_subcommand("list", "list each pool's workspaces");
  list_bindings->alias("ls");
  auto list_pool = std::make_shared<std::string>();
  list_bindings->add_option("pool_name", *list_pool, "one pool (default: all)");
  auto bindings_fmt = AddJsonCsvFlags(list_bindings);
  list_bindings->callback([&ctx, list_pool, bindings_fmt] {
    ctx.action = [&ctx, list_pool, bindings_fmt] {
      return ListPoolBindings(ctx.session(), *list_pool, bindings_fmt->format(), std::cout);
    };
  });
  for (bool bind : {true, false}) {
    CLI::App* cmd = bindings->add_subcommand(bind ? "add" : "remove",
                                             bind ? "bind a pool to workspaces: only they may use it"
                                                  : "unbind a pool from workspaces");
    auto pool = std::make_shared<std::string>();
    auto workspaces = std::make_shared<std::vector<std::string>>();
    cmd->add_option("pool_name", *pool, "the resource pool")->required();
    cmd->add_option("workspace_names", *workspaces, "the workspaces")->required();
    cmd->callback([&ctx, pool, workspaces, bind] {
      ctx.action = [&ctx, pool, workspaces, bind] {
        return ChangePoolBindings(ctx.session(), *pool, *workspaces, bind, std::cout);
      };
    });
  }
}

}  // namespace det::cli
