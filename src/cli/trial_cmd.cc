#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/positive_id.h"
#include "cli/checkpoint_ops.h"
#include "cli/log_retention_flags.h"
#include "cli/ranking_flags.h"
#include "cli/trial_ops.h"
#include "cli/trial_support_bundle.h"
#include "common/status_macros.h"

namespace det::cli {

struct LogsFlags {
  TrialLogsArgs args;
  int head = -1;
  int tail = -1;
};

std::shared_ptr<LogsFlags> AddLogsFlags(CLI::App& cmd) {
  auto f = std::make_shared<LogsFlags>();
  auto repeatable = [](CLI::Option* o) {
    // One value per occurrence, so a repeated flag never swallows the positionals after it.
    o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };
  cmd.add_flag("--json", f->args.json, "print each log entry as JSON");
  CLI::Option* follow = cmd.add_flag("-f,--follow", f->args.follow,
                                     "follow the logs of a running trial, like tail -f");
  CLI::Option* head = cmd.add_option(
      "--head", f->head, "number of lines to show, counting from the beginning of the log");
  CLI::Option* tail = cmd.add_option("--tail", f->tail,
                                     "number of lines to show, counting from the end of the log");
  head->excludes(tail);
  follow->excludes(head)->excludes(tail);
  repeatable(
      cmd.add_option("--agent-id", f->args.agent_ids, "agents to show logs from (repeatable)"));
  repeatable(cmd.add_option("--container-id", f->args.container_ids,
                            "containers to show logs from (repeatable)"));
  repeatable(cmd.add_option("--rank-id", f->args.rank_ids, "ranks to show logs from (repeatable)"));
  cmd.add_option("--timestamp-before", f->args.timestamp_before,
                 "show logs only from before (RFC 3339 format), e.g. '2021-10-26T23:17:12Z'");
  cmd.add_option("--timestamp-after", f->args.timestamp_after,
                 "show logs only from after (RFC 3339 format), e.g. '2021-10-26T23:17:12Z'");
  cmd.add_option(
         "--level", f->args.level,
         "show logs with this level or higher (TRACE, DEBUG, INFO, WARNING, ERROR, CRITICAL)")
      ->check(CLI::IsMember({"TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}));
  repeatable(cmd.add_option("--source", f->args.sources, "sources to show logs from (repeatable)"));
  repeatable(cmd.add_option("--stdtype", f->args.stdtypes,
                            "output stream to show logs from (repeatable)"));
  return f;
}

TrialLogsArgs FinishLogsFlags(const LogsFlags& flags) {
  TrialLogsArgs args = flags.args;
  if (flags.head >= 0) args.head = flags.head;
  if (flags.tail >= 0) args.tail = flags.tail;
  return args;
}

void AddTrialCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* trial = det.add_subcommand("trial", "manage trials");
  trial->alias("t");
  trial->require_subcommand(1);

  CLI::App* logs = trial->add_subcommand("logs", "fetch trial logs");
  auto logs_id = std::make_shared<int>(0);
  logs->add_option("trial_id", *logs_id, "trial ID")->required()->check(PositiveId());
  std::shared_ptr<LogsFlags> flags = AddLogsFlags(*logs);
  logs->callback([&ctx, logs_id, flags] {
    ctx.action = [&ctx, logs_id, flags] {
      return PrintTrialLogs(ctx.session(), *logs_id, FinishLogsFlags(*flags), std::cout);
    };
  });

  CLI::App* describe = trial->add_subcommand("describe", "describe trial");
  auto describe_args = std::make_shared<DescribeTrialArgs>();
  describe->add_option("trial_id", describe_args->trial_id, "trial ID")->required()->check(PositiveId());
  describe->add_flag("--metrics-summary", describe_args->metrics_summary, "display summary of metrics");
  describe->add_flag("--metrics", describe_args->metrics, "display full metrics, such as batch metrics");
  CLI::Option* json_flag = describe->add_flag("--json", describe_args->json, "print JSON");
  describe->add_flag("--csv", describe_args->csv, "print as CSV")->excludes(json_flag);
  describe->add_option("--limit", describe_args->limit, "maximum workloads per page of results")
      ->capture_default_str();
  describe->add_option("--offset", describe_args->offset, "number of workloads to skip")->capture_default_str();
  describe->add_option("--pages", describe_args->pages, "pages to fetch (0 for all)")->capture_default_str();
  describe->callback([&ctx, describe_args] {
    ctx.action = [&ctx, describe_args] { return DescribeTrial(ctx.session(), *describe_args, std::cout); };
  });

  CLI::App* download = trial->add_subcommand("download", "download a checkpoint of a trial");
  auto download_id = std::make_shared<int>(0);
  download->add_option("trial_id", *download_id, "trial ID")->required()->check(PositiveId());
  auto choice = std::make_shared<TrialCheckpointChoice>();
  CLI::Option* best = download->add_flag("--best", choice->best, "the checkpoint with the best validation metric");
  CLI::Option* latest = download->add_flag("--latest", choice->latest, "the most recent checkpoint");
  CLI::Option* uuid = download->add_option("--uuid", choice->uuid, "a checkpoint of the trial, by UUID");
  best->excludes(latest)->excludes(uuid);
  latest->excludes(uuid);
  auto output_dir = std::make_shared<std::string>();
  auto ranking = AddRankingFlags(download);
  auto quiet = std::make_shared<bool>(false);
  download->add_flag("-q,--quiet", *quiet, "only print the path to the checkpoint");
  download->add_option("-o,--output-dir", *output_dir, "directory to download into (default: checkpoints/UUID)");
  download->callback([&ctx, download_id, choice, ranking, output_dir, quiet] {
    ctx.action = [&ctx, download_id, choice, ranking, output_dir, quiet]() -> absl::StatusOr<int> {
      if (!choice->best && !choice->latest && choice->uuid.empty()) {
        return absl::InvalidArgumentError("give one of --best, --latest or --uuid UUID");
      }
      ASSIGN_OR_RETURN(CheckpointRanking r, ranking->ranking());
      return DownloadTrialCheckpoint(ctx.session(), *download_id, *choice, r, *output_dir, *quiet, std::cout);
    };
  });

  CLI::App* bundle = trial->add_subcommand(
      "support-bundle", "write a tar.gz of the trial's logs, the master's logs and the trial and experiment");
  auto bundle_id = std::make_shared<int>(0);
  auto bundle_dir = std::make_shared<std::string>(".");
  bundle->add_option("trial_id", *bundle_id, "trial ID")->required()->check(PositiveId());
  bundle->add_option("-o,--output-dir", *bundle_dir, "directory to write the bundle into (default: the current one)");
  bundle->callback([&ctx, bundle_id, bundle_dir] {
    ctx.action = [&ctx, bundle_id, bundle_dir]() -> absl::StatusOr<int> {
      ASSIGN_OR_RETURN(std::filesystem::path path,
                       WriteTrialSupportBundle(ctx.session(), *bundle_id, *bundle_dir, absl::Now()));
      std::cout << "bundle path: " << std::filesystem::absolute(path).string() << "\n";
      return 0;
    };
  });

  CLI::App* set = trial->add_subcommand("set", "set trial attributes");
  set->require_subcommand(1);
  AddLogRetentionCommand(set, ctx, LogRetentionOf::kTrial);

  CLI::App* kill = trial->add_subcommand("kill", "forcibly terminate a trial");
  auto kill_id = std::make_shared<int>(0);
  kill->add_option("trial_id", *kill_id, "trial ID")->required()->check(PositiveId());
  kill->callback([&ctx, kill_id] {
    ctx.action = [&ctx, kill_id]() -> absl::StatusOr<int> {
      absl::StatusOr<nlohmann::json> r = ctx.session().Post(
          absl::StrCat("/api/v1/trials/", *kill_id, "/kill"), nlohmann::json::object());
      if (!r.ok()) return r.status();
      std::cout << "Killed trial " << *kill_id << "\n";
      return 0;
    };
  });
}

}  // namespace det::cli
