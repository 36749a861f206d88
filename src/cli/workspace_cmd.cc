#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
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
  CLI::App* create = w->add_subcommand("create", "create a workspace");
  struct WorkspaceArgs {
    std::string name, compute_pool, aux_pool, storage_json;
  };
  auto args = std::make_shared<WorkspaceArgs>();
  create->add_option("name", args->name, "the new workspace's name")->required();
  create->add_option("--default-compute-pool", args->compute_pool, "pool for its experiments and GPU tasks");
  create->add_option("--default-aux-pool", args->aux_pool, "pool for its CPU-only tasks");
  create->add_option("--checkpoint-storage-config", args->storage_json,
                     "checkpoint_storage for what runs in it (JSON)");
  auto create_fmt = AddJsonCsvFlags(create);
  create->callback([&ctx, args, create_fmt] {
    ctx.action = [&ctx, args, create_fmt]() -> absl::StatusOr<int> {
      nlohmann::json settings = nlohmann::json::object();
      if (!args->compute_pool.empty()) settings["defaultComputePool"] = args->compute_pool;
      if (!args->aux_pool.empty()) settings["defaultAuxPool"] = args->aux_pool;
      if (!args->storage_json.empty()) {
        settings["checkpointStorageConfig"] = nlohmann::json::parse(args->storage_json, nullptr, false);
        if (settings["checkpointStorageConfig"].is_discarded()) {
          return absl::InvalidArgumentError("--checkpoint-storage-config: not valid JSON");
        }
      }
      return CreateWorkspace(ctx.session(), args->name, settings, create_fmt->format(), std::cout);
    };
  });
  AddWorkspaceListing(w, ctx, "describe", "describe a workspace and its projects", DescribeWorkspace);

  CLI::App* p = det.add_subcommand("project", "manage projects");
  p->alias("p");
  p->require_subcommand(1);
  AddWorkspaceListing(p, ctx, "list", "list the projects of a workspace", ListWorkspaceProjects);
  p->get_subcommand("list")->alias("ls");
  CLI::App* create_project = p->add_subcommand("create", "create a project in a workspace");
  struct ProjectArgs {
    std::string workspace, name, description, key;
  };
  auto project_args = std::make_shared<ProjectArgs>();
  create_project->add_option("workspace_name", project_args->workspace, "the workspace's name")->required();
  create_project->add_option("project_name", project_args->name, "the new project's name")->required();
  create_project->add_option("--description", project_args->description, "what the project is for");
  create_project->add_option("--key", project_args->key, "1 to 5 letters or digits (made from the name if not given)");
  auto project_fmt = AddJsonCsvFlags(create_project);
  create_project->callback([&ctx, project_args, project_fmt] {
    ctx.action = [&ctx, project_args, project_fmt] {
      const ProjectArgs& a = *project_args;
      return CreateProject(ctx.session(), a.workspace, a.name, a.description, a.key, project_fmt->format(), std::cout);
    };
  });
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
