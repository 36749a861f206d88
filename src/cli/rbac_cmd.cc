#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/paging_flags.h"
#include "cli/rbac_ops.h"

namespace det::cli {
namespace {

using NamedJsonOp = absl::StatusOr<int> (*)(Session&, const std::string&, bool, std::ostream&);

// A command that takes one name and --json.
void AddNamedJsonCommand(CLI::App* rbac, CommandContext& ctx, const char* name, const char* help,
                         const char* arg, const char* arg_help, NamedJsonOp op) {
  CLI::App* cmd = rbac->add_subcommand(name, help);
  auto value = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  cmd->add_option(arg, *value, arg_help)->required();
  cmd->add_flag("--json", *as_json, "print the master's reply as JSON");
  cmd->callback([&ctx, value, as_json, op] {
    ctx.action = [&ctx, value, as_json, op] {
      return op(ctx.session(), *value, *as_json, std::cout);
    };
  });
}

void AddAssignmentCommand(CLI::App* rbac, CommandContext& ctx, bool assign) {
  CLI::App* cmd = rbac->add_subcommand(
      assign ? "assign-role" : "unassign-role",
      assign ? "give a role to a user or a user group" : "take a role from a user or a user group");
  auto args = std::make_shared<RoleAssignmentArgs>();
  auto workspace = std::make_shared<std::string>();
  auto user = std::make_shared<std::string>();
  auto group = std::make_shared<std::string>();
  cmd->add_option("role_name", args->role, "the role (`det rbac list-roles` shows them)")
      ->required();
  CLI::Option* w =
      cmd->add_option("-w,--workspace-name", *workspace, "the workspace (default: cluster-wide)");
  CLI::Option* u = cmd->add_option("-u,--username-to-assign", *user, "the user");
  CLI::Option* g = cmd->add_option("-g,--group-name-to-assign", *group, "the user group");
  cmd->callback([&ctx, args, workspace, user, group, w, u, g, assign] {
    ctx.action = [&ctx, args, workspace, user, group, w, u, g, assign] {
      if (w->count() > 0) args->workspace = *workspace;
      if (u->count() > 0) args->user = *user;
      if (g->count() > 0) args->group = *group;
      return ChangeRoleAssignment(ctx.session(), *args, assign, std::cout);
    };
  });
}

}  // namespace

void AddRbacCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* rbac =
      det.add_subcommand("rbac", "manage role-based access control (needs RBAC on the master)");
  rbac->require_subcommand(0, 1);

  CLI::App* mine =
      rbac->add_subcommand("my-permissions", "show the permissions you have, and where");
  auto mine_json = std::make_shared<bool>(false);
  mine->add_flag("--json", *mine_json, "print the master's reply as JSON");
  mine->callback([&ctx, mine_json] {
    ctx.action = [&ctx, mine_json] { return MyPermissions(ctx.session(), *mine_json, std::cout); };
  });

  CLI::App* list = rbac->add_subcommand("list-roles", "list the roles and their permissions");
  auto exclude_global = std::make_shared<bool>(false);
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--exclude-global-roles", *exclude_global,
                 "leave out the roles only assignable cluster-wide");
  list->add_flag("--json", *list_json, "print the master's reply as JSON");
  auto list_pages = AddPagingFlags(list);
  auto run_list = [&ctx, exclude_global, list_json, list_pages] {
    ctx.action = [&ctx, exclude_global, list_json, list_pages] {
      return ListRoles(ctx.session(), *exclude_global, list_pages->Get(), *list_json, std::cout);
    };
  };
  list->callback(run_list);
  rbac->callback([rbac, run_list] {
    if (rbac->get_subcommands().empty()) run_list();
  });

  AddNamedJsonCommand(rbac, ctx, "list-users-roles",
                      "list a user's roles, direct and through groups", "username", "the user",
                      ListUsersRoles);
  AddNamedJsonCommand(rbac, ctx, "list-groups-roles", "list a user group's roles", "group_name",
                      "the user group", ListGroupsRoles);
  AddNamedJsonCommand(rbac, ctx, "describe-role", "show a role: its permissions and who has it",
                      "role_name", "the role", DescribeRole);
  AddAssignmentCommand(rbac, ctx, true);
  AddAssignmentCommand(rbac, ctx, false);
}

}  // namespace det::cli
