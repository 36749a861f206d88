// `det model` (alias m): list, create, describe [--version N], list-versions, register-version,
// delete, move -w WS, and download [--version N] (ours).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/model_ops.h"
#include "cli/prompt.h"

namespace det::cli {

namespace {

// A subcommand taking the model's name (or id) first.
std::pair<CLI::App*, std::shared_ptr<std::string>> AddModelCommand(CLI::App* m, const char* name, const char* help) {
  CLI::App* cmd = m->add_subcommand(name, help);
  auto model = std::make_shared<std::string>();
  cmd->add_option("name", *model, "the model's name (or id)")->required();
  return {cmd, model};
}

// --version N; unset = the latest.
std::shared_ptr<std::optional<int64_t>> AddVersionFlag(CLI::App* cmd) {
  auto version = std::make_shared<std::optional<int64_t>>();
  cmd->add_option_function<int64_t>("--version", [version](int64_t v) { *version = v; },
                                    "the version's number (default: the latest)")
      ->check(CLI::PositiveNumber);
  return version;
}

}  // namespace

void AddModelCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* m = det.add_subcommand("model", "manage the model registry");
  m->alias("m");
  m->require_subcommand(1);

  CLI::App* list = m->add_subcommand("list", "list models");
  list->alias("ls");
  auto list_args = std::make_shared<ModelListArgs>();
  list->add_option("-w,--workspace-names", list_args->workspace_names, "only models in these workspaces");
  list->add_option("--sort-by", list_args->sort_by, "name, description, creation_time or last_updated_time")
      ->check(CLI::IsMember({"name", "description", "creation_time", "last_updated_time"}));
  list->add_option("--order-by", list_args->order_by, "asc or desc")->check(CLI::IsMember({"asc", "desc"}));
  auto list_fmt = AddJsonCsvFlags(list);
  list->callback([&ctx, list_args, list_fmt] {
    ctx.action = [&ctx, list_args, list_fmt] { return ListModels(ctx.session(), *list_args, list_fmt->format(), std::cout); };
  });

  auto [create, create_name] = AddModelCommand(m, "create", "create a model");
  auto create_args = std::make_shared<std::pair<std::string, std::string>>();  // description, workspace
  create->add_option("--description", create_args->first, "what the model is");
  create->add_option("-w,--workspace-name", create_args->second, "its workspace (default: Uncategorized)");
  auto create_fmt = AddJsonCsvFlags(create);
  create->callback([&ctx, name = create_name, create_args, create_fmt] {
    ctx.action = [&ctx, name, create_args, create_fmt] {
      return CreateModel(ctx.session(), *name, create_args->first, create_args->second, create_fmt->format(),
                         std::cout);
    };
  });

  auto [describe, describe_name] = AddModelCommand(m, "describe", "describe a model and one of its versions");
  auto describe_version = AddVersionFlag(describe);
  auto describe_fmt = AddJsonCsvFlags(describe);
  describe->callback([&ctx, name = describe_name, describe_version, describe_fmt] {
    ctx.action = [&ctx, name, describe_version, describe_fmt] {
      return DescribeModel(ctx.session(), *name, *describe_version, describe_fmt->format(), std::cout);
    };
  });

  auto [versions, versions_name] = AddModelCommand(m, "list-versions", "list a model's versions");
  auto versions_fmt = AddJsonCsvFlags(versions);
  versions->callback([&ctx, name = versions_name, versions_fmt] {
    ctx.action = [&ctx, name, versions_fmt] {
      return ListModelVersions(ctx.session(), *name, versions_fmt->format(), std::cout);
    };
  });

  auto [reg, reg_name] = AddModelCommand(m, "register-version", "register a checkpoint as the model's next version");
  auto uuid = std::make_shared<std::string>();
  reg->add_option("checkpoint_uuid", *uuid, "a COMPLETED checkpoint's UUID")->required();
  auto reg_fmt = AddJsonCsvFlags(reg);
  reg->callback([&ctx, name = reg_name, uuid, reg_fmt] {
    ctx.action = [&ctx, name, uuid, reg_fmt] {
      return RegisterModelVersion(ctx.session(), *name, *uuid, reg_fmt->format(), std::cout);
    };
  });

  auto [del, del_name] = AddModelCommand(m, "delete", "delete a model and its versions");
  auto yes = std::make_shared<bool>(false);
  del->add_flag("--yes", *yes, "automatically answer yes to prompts");
  del->callback([&ctx, name = del_name, yes] {
    ctx.action = [&ctx, name, yes]() -> absl::StatusOr<int> {
      if (!*yes && !Confirm("Deleting a model deletes its versions (their checkpoints stay). Do you still wish to "
                            "proceed?")) {
        std::cout << "Aborting model deletion.\n";
        return 0;
      }
      return DeleteModel(ctx.session(), *name, std::cout);
    };
  });

  auto [move, move_name] = AddModelCommand(m, "move", "move a model to another workspace");
  auto workspace = std::make_shared<std::string>();
  move->add_option("-w,--workspace-name", *workspace, "the destination workspace")->required();
  move->callback([&ctx, name = move_name, workspace] {
    ctx.action = [&ctx, name, workspace] { return MoveModel(ctx.session(), *name, *workspace, std::cout); };
  });

  auto [download, download_name] = AddModelCommand(m, "download", "download a version's checkpoint");
  auto download_version = AddVersionFlag(download);
  auto output_dir = std::make_shared<std::string>();
  download->add_option("-o,--output-dir", *output_dir, "directory to download into (default: checkpoints/UUID)");
  download->callback([&ctx, name = download_name, download_version, output_dir] {
    ctx.action = [&ctx, name, download_version, output_dir] {
      return DownloadModelVersion(ctx.session(), *name, *download_version, *output_dir, std::cout);
    };
  });
}

}  // namespace det::cli
