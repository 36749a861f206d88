#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/workspace_ops.h"

namespace det::cli {

namespace {

// Adds `name` taking a workspace name, with --json/--csv; `run` is the action.
template <typename Run>
void AddWorkspaceListing(CLI::App* parent, CommandContext& ctx, const char* name, const char* help, Run run) {
  CLI::App* cmd = parent->add_subcommand(name, help);
  auto workspace = std::make_shared<std::string>();
  cmd->add_option("workspace_name", *workspace, "the workspace's name")->required();
  auto fmt = AddJsonCsvFlags(cmd);
  cmd->callback([&ctx, workspace, fmt, run] {
    ctx.action = [&ctx, workspace, fmt, run] { return run(ctx.session(), *workspace, fmt->format(), std::cout); };
  });
}

}  // namespace

void AddWorkspaceCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* w = det.add_subcommand("workspace", "manage workspaces");
  w->alias("w");
  w->require_subcommand(1);
  CLI::App* list = w->add_subcommand("list", "list workspaces");
  list->alias("ls");
  auto fmt = AddJsonCsvFlags(list);
  list->callback([&ctx, fmt] {
    ctx.action = [&ctx, fmt] { return ListWorkspaces(ctx.session(), fmt->format(), std::cout); };
  });
  AddWorkspaceListing(w, ctx, "list-projects", "list the projects of a workspace", ListWorkspaceProjects);
  AddWorkspaceListing(w, ctx, "describe", "describe a workspace and its projects", DescribeWorkspace);

  CLI::App* p = det.add_subcommand("project", "manage projects");
  p->alias("p");
  p->require_subcommand(1);
  AddWorkspaceListing(p, ctx, "list", "list the projects of a workspace", ListWorkspaceProjects);
  p->get_subcommand("list")->alias("ls");
  CLI::App* describe = p->add_subcommand("describe", "describe a project");
  auto names = std::make_shared<std::pair<std::string, std::string>>();
  describe->add_option("workspace_name", names->first, "the workspace's name")->required();
  describe->add_option("project_name", names->second, "the project's name")->required();
  auto describe_fmt = AddJsonCsvFlags(describe);
  describe->callback([&ctx, names, describe_fmt] {
    ctx.action = [&ctx, names, describe_fmt] {
      return DescribeProject(ctx.session(), names->first, names->second, describe_fmt->format(), std::cout);
    };
  });
}

}  // namespace det::cli
