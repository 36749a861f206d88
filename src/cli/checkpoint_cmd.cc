// `det checkpoint list EXPERIMENT_ID | describe UUID | download UUID [-o DIR] | delete UUID,... [--yes] |
// rm UUID,... --glob GLOB... [--yes]`.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/checkpoint_ops.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/positive_id.h"
#include "cli/prompt.h"

namespace det::cli {

void AddCheckpointCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* checkpoint = det.add_subcommand("checkpoint", "manage checkpoints");
  checkpoint->alias("c");
  checkpoint->require_subcommand(1);

  CLI::App* list = checkpoint->add_subcommand("list", "list the checkpoints of an experiment");
  list->alias("ls");
  auto experiment_id = std::make_shared<int>(0);
  list->add_option("experiment_id", *experiment_id, "experiment ID")
      ->required()
      ->check(PositiveId());
  std::shared_ptr<FormatFlagValues> format = AddJsonCsvFlags(list);
  list->callback([&ctx, experiment_id, format] {
    ctx.action = [&ctx, experiment_id, format] {
      return ListCheckpoints(ctx.session(), *experiment_id, format->format(), std::cout);
    };
  });

  CLI::App* describe = checkpoint->add_subcommand("describe", "describe a checkpoint");
  auto describe_uuid = std::make_shared<std::string>();
  auto describe_json = std::make_shared<bool>(false);
  describe->add_option("uuid", *describe_uuid, "checkpoint UUID")->required();
  describe->add_flag("--json", *describe_json, "print JSON");
  describe->callback([&ctx, describe_uuid, describe_json] {
    ctx.action = [&ctx, describe_uuid, describe_json] {
      return DescribeCheckpoint(ctx.session(), *describe_uuid, *describe_json, std::cout);
    };
  });

  CLI::App* download = checkpoint->add_subcommand("download", "download a checkpoint");
  auto download_uuid = std::make_shared<std::string>();
  auto output_dir = std::make_shared<std::string>();
  download->add_option("uuid", *download_uuid, "checkpoint UUID")->required();
  download->add_option("-o,--output-dir", *output_dir,
                       "directory to download into (default: checkpoints/UUID)");
  auto quiet = std::make_shared<bool>(false);
  download->add_flag("-q,--quiet", *quiet, "only print the path to the checkpoint");
  download->callback([&ctx, download_uuid, output_dir, quiet] {
    ctx.action = [&ctx, download_uuid, output_dir, quiet] {
      return DownloadCheckpoint(ctx.session(), *download_uuid, *output_dir, *quiet, std::cout);
    };
  });

  CLI::App* del = checkpoint->add_subcommand("delete", "delete checkpoints");
  auto uuids = std::make_shared<std::string>();
  auto yes = std::make_shared<bool>(false);
  del->add_option("checkpoints_uuids", *uuids, "comma-separated list of checkpoints to delete")->required();
  del->add_flag("--yes", *yes, "automatically answer yes to prompts");
  del->callback([&ctx, uuids, yes] {
    ctx.action = [&ctx, uuids, yes]() -> absl::StatusOr<int> {
      if (!*yes && !Confirm("Deleting checkpoints will result in deletion of all data associated\n"
                            "with each checkpoint in the checkpoint storage. Do you still want to proceed?")) {
        std::cout << "Aborting deletion of checkpoints.\n";
        return 0;
      }
      return DeleteCheckpoints(ctx.session(), *uuids, std::cout);
    };
  });

  CLI::App* rm = checkpoint->add_subcommand("rm", "remove files from checkpoints");
  auto rm_uuids = std::make_shared<std::string>();
  auto globs = std::make_shared<std::vector<std::string>>();
  auto rm_yes = std::make_shared<bool>(false);
  rm->add_option("checkpoints_uuids", *rm_uuids, "comma-separated list of checkpoints to remove files from")
      ->required();
  rm->add_option("--glob", *globs,
                 "files to remove, relative to each checkpoint's directory (repeatable; a directory removes "
                 "everything under it, ** crosses directories)")
      ->required()
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  rm->add_flag("--yes", *rm_yes, "automatically answer yes to prompts");
  rm->callback([&ctx, rm_uuids, globs, rm_yes] {
    ctx.action = [&ctx, rm_uuids, globs, rm_yes]() -> absl::StatusOr<int> {
      if (!*rm_yes && !Confirm("Removing files from checkpoints deletes them from the checkpoint storage. "
                               "Do you still want to proceed?")) {
        std::cout << "Aborting removal of checkpoint files.\n";
        return 0;
      }
      return RemoveCheckpointFiles(ctx.session(), *rm_uuids, *globs, std::cout);
    };
  });
}

}  // namespace det::cli
