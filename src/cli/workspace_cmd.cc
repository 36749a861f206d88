#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "cli/agent_user_group_args.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/prompt.h"
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

// The workspace settings `create` and `edit` take, as upstream's flags.
struct WorkspaceSettings {
  std::string compute_pool, aux_pool, storage_json;
  std::optional<int64_t> agent_uid, agent_gid;
  std::string agent_user, agent_group;

  void AddFlags(CLI::App* cmd) {
    cmd->add_option("--agent-uid", agent_uid, "uid its tasks run as (with --agent-gid, --agent-user, --agent-group)");
    cmd->add_option("--agent-gid", agent_gid, "gid its tasks run as");
    cmd->add_option("--agent-user", agent_user, "the name of --agent-uid");
    cmd->add_option("--agent-group", agent_group, "the name of --agent-gid");
    cmd->add_option("--default-compute-pool", compute_pool, "pool for its experiments and GPU tasks");
    cmd->add_option("--default-aux-pool", aux_pool, "pool for its CPU-only tasks");
    cmd->add_option("--checkpoint-storage-config", storage_json, "checkpoint_storage for what runs in it (JSON)");
  }

  // The body fields of the flags given.
  absl::StatusOr<nlohmann::json> Body() const {
    nlohmann::json body = nlohmann::json::object();
    if (!compute_pool.empty()) body["defaultComputePool"] = compute_pool;
    if (!aux_pool.empty()) body["defaultAuxPool"] = aux_pool;
    const bool any_agent = agent_uid || agent_gid || !agent_user.empty() || !agent_group.empty();
    if (any_agent) {
      if (!agent_uid || !agent_gid || agent_user.empty() || agent_group.empty()) {
        return absl::InvalidArgumentError("--agent-uid, --agent-gid, --agent-user and --agent-group go together");
      }
      body["agentUserGroup"] = AgentUserGroupJson({*agent_uid, *agent_gid, agent_user, agent_group});
    }
    if (!storage_json.empty()) {
      body["checkpointStorageConfig"] = nlohmann::json::parse(storage_json, nullptr, false);
      if (!body["checkpointStorageConfig"].is_object()) {
        return absl::InvalidArgumentError("--checkpoint-storage-config: not a JSON object");
      }
    }
    return body;
  }
};

// `archive`, `unarchive` and `delete` (with --yes) of a workspace or a project; `names` are the
// positional names it takes, `run` the action given them.
template <typename Run>
void AddChanges(CLI::App* parent, CommandContext& ctx, const char* what, std::vector<std::string> names, Run run) {
  for (const char* action : {"archive", "unarchive", "delete"}) {
    CLI::App* cmd = parent->add_subcommand(action, absl::StrCat(action, " a ", what));
    auto values = std::make_shared<std::vector<std::string>>(names.size());
    for (size_t i = 0; i < names.size(); ++i) cmd->add_option(names[i], (*values)[i], names[i])->required();
    auto yes = std::make_shared<bool>(false);
    const bool deleting = std::string(action) == "delete";
    if (deleting) cmd->add_flag("--yes", *yes, "automatically answer yes to prompts");
    cmd->callback([&ctx, values, yes, deleting, action, what, run] {
      ctx.action = [&ctx, values, yes, deleting, action, what, run]() -> absl::StatusOr<int> {
        if (deleting && !*yes &&
            !Confirm(absl::StrCat("Deleting a ", what, " deletes its experiments with their checkpoints and logs, "
                                  "unrecoverably. Do you still wish to proceed?"))) {
          std::cout << "Aborting " << what << " deletion.\n";
          return 0;
        }
        return run(ctx.session(), *values, action);
      };
    });
  }
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
  auto create_name = std::make_shared<std::string>();
  auto create_settings = std::make_shared<WorkspaceSettings>();
  create->add_option("name", *create_name, "the new workspace's name")->required();
  create_settings->AddFlags(create);
  auto create_fmt = AddJsonCsvFlags(create);
  create->callback([&ctx, create_name, create_settings, create_fmt] {
    ctx.action = [&ctx, create_name, create_settings, create_fmt]() -> absl::StatusOr<int> {
      absl::StatusOr<nlohmann::json> settings = create_settings->Body();
      if (!settings.ok()) return settings.status();
      return CreateWorkspace(ctx.session(), *create_name, *settings, create_fmt->format(), std::cout);
    };
  });
  CLI::App* edit = w->add_subcommand("edit", "change a workspace's name or settings");
  auto edit_names = std::make_shared<std::pair<std::string, std::string>>();
  auto edit_settings = std::make_shared<WorkspaceSettings>();
  edit->add_option("workspace_name", edit_names->first, "the workspace's name")->required();
  edit->add_option("--name", edit_names->second, "its new name");
  edit_settings->AddFlags(edit);
  auto edit_fmt = AddJsonCsvFlags(edit);
  edit->callback([&ctx, edit_names, edit_settings, edit_fmt] {
    ctx.action = [&ctx, edit_names, edit_settings, edit_fmt]() -> absl::StatusOr<int> {
      absl::StatusOr<nlohmann::json> changes = edit_settings->Body();
      if (!changes.ok()) return changes.status();
      if (!edit_names->second.empty()) (*changes)["name"] = edit_names->second;
      return EditWorkspace(ctx.session(), edit_names->first, *changes, edit_fmt->format(), std::cout);
    };
  });
  AddChanges(w, ctx, "workspace", {"workspace_name"},
             [](Session& session, const std::vector<std::string>& names, const std::string& action) {
               return ChangeWorkspace(session, names[0], action, std::cout);
             });
  AddWorkspaceListing(w, ctx, "list-pools", "list the resource pools a workspace may use", ListWorkspacePools);
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
  // The subcommands naming one project: WORKSPACE PROJECT.
  auto add_project_command = [p](const char* name, const char* help) {
    CLI::App* cmd = p->add_subcommand(name, help);
    auto names = std::make_shared<std::pair<std::string, std::string>>();
    cmd->add_option("workspace_name", names->first, "the workspace's name")->required();
    cmd->add_option("project_name", names->second, "the project's name")->required();
    return std::pair{cmd, names};
  };
  auto [describe, describe_names] = add_project_command("describe", "describe a project");
  auto describe_fmt = AddJsonCsvFlags(describe);
  describe->callback([&ctx, names = describe_names, describe_fmt] {
    ctx.action = [&ctx, names, describe_fmt] {
      return DescribeProject(ctx.session(), names->first, names->second, describe_fmt->format(), std::cout);
    };
  });
  auto [list_experiments, list_names] = add_project_command("list-experiments", "list a project's experiments");
  auto all = std::make_shared<bool>(false);
  list_experiments->add_flag("--all,-a", *all, "show archived experiments too");
  auto list_fmt = AddJsonCsvFlags(list_experiments);
  list_experiments->callback([&ctx, names = list_names, all, list_fmt] {
    ctx.action = [&ctx, names, all, list_fmt] {
      return ListProjectExperiments(ctx.session(), names->first, names->second, *all, list_fmt->format(), std::cout);
    };
  });
  auto [edit_project, edit_project_names] = add_project_command("edit", "change a project's name, description or key");
  struct ProjectEdit {
    std::string name, description, key;
  };
  auto project_edit = std::make_shared<ProjectEdit>();
  edit_project->add_option("--new_name,--new-name", project_edit->name, "its new name");
  edit_project->add_option("--description", project_edit->description, "its new description");
  edit_project->add_option("--key", project_edit->key, "its new key (1 to 5 letters or digits)");
  auto edit_project_fmt = AddJsonCsvFlags(edit_project);
  edit_project->callback([&ctx, names = edit_project_names, project_edit, edit_project, edit_project_fmt] {
    ctx.action = [&ctx, names, project_edit, edit_project, edit_project_fmt]() -> absl::StatusOr<int> {
      nlohmann::json changes = nlohmann::json::object();
      if (edit_project->count("--new_name") > 0) changes["name"] = project_edit->name;
      if (edit_project->count("--description") > 0) changes["description"] = project_edit->description;
      if (edit_project->count("--key") > 0) changes["key"] = project_edit->key;
      if (changes.empty()) return absl::InvalidArgumentError("nothing to change: give --new_name, --description or --key");
      return EditProject(ctx.session(), names->first, names->second, changes, edit_project_fmt->format(), std::cout);
    };
  });
  AddChanges(p, ctx, "project", {"workspace_name", "project_name"},
             [](Session& session, const std::vector<std::string>& names, const std::string& action) {
               return ChangeProject(session, names[0], names[1], action, std::cout);
             });
}

}  // namespace det::cli
