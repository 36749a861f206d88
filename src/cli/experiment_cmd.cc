#include <CLI/CLI.hpp>
#include <unistd.h>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "cli/checkpoint_ops.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/experiment_continue.h"
#include "cli/experiment_create.h"
#include "cli/experiment_local_test.h"
#include "cli/experiment_test_mode.h"
#include "cli/experiment_ops.h"
#include "cli/experiment_resources_ops.h"
#include "cli/format_flags.h"
#include "cli/gc_policy_ops.h"
#include "cli/log_retention_flags.h"
#include "cli/positive_id.h"
#include "cli/prompt.h"
#include "cli/ranking_flags.h"
#include "cli/trial_ops.h"
#include "cli/workspace_ops.h"

namespace det::cli {
namespace {

std::shared_ptr<int> AddExperimentId(CLI::App* cmd, const std::string& help = "experiment ID") {
  auto id = std::make_shared<int>(0);
  cmd->add_option("experiment_id", *id, help)->required()->check(PositiveId());
  return id;
}

void AddAction(CLI::App* exp, CommandContext& ctx, const std::string& name,
               const std::string& alias, const std::string& help, const std::string& verb) {
  CLI::App* cmd = exp->add_subcommand(name, help);
  if (!alias.empty()) cmd->alias(alias);
  auto id = AddExperimentId(cmd);
  cmd->callback([&ctx, id, verb] {
    ctx.action = [&ctx, id, verb] { return ExperimentAction(ctx.session(), *id, verb, std::cout); };
  });
}

}  // namespace

void AddExperimentCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* exp = det.add_subcommand("experiment", "manage experiments");
  exp->alias("e");
  exp->require_subcommand(0, 1);

  // list (the default)
  CLI::App* list = exp->add_subcommand("list", "list experiments");
  list->alias("ls");
  auto list_args = std::make_shared<ListExperimentsArgs>();
  list->add_flag("-a,--all", list_args->all,
                 "show all experiments (including archived and other users')");
  list->add_option("--limit", list_args->limit, "maximum items per page of results")
      ->capture_default_str();
  list->add_option("--offset", list_args->offset, "number of items to skip")->capture_default_str();
  list->add_option("--pages", list_args->pages, "pages to fetch (0 for all)")
      ->capture_default_str();
  auto list_fmt = AddJsonCsvFlags(list);
  auto run_list = [&ctx, list_args, list_fmt] {
    ctx.action = [&ctx, list_args, list_fmt] {
      list_args->format = list_fmt->format();
      return ListExperiments(ctx.session(), *list_args, std::cout);
    };
  };
  list->callback(run_list);
  exp->callback([exp, run_list] {
    if (exp->get_subcommands().empty()) run_list();
  });

  // describe
  CLI::App* describe = exp->add_subcommand("describe", "describe experiment");
  auto describe_ids = std::make_shared<std::string>();
  describe
      ->add_option("experiment_ids", *describe_ids,
                   "experiment ID, or a comma-separated list of IDs")
      ->required();
  auto describe_fmt = AddJsonCsvFlags(describe);
  describe->callback([&ctx, describe_ids, describe_fmt] {
    ctx.action = [&ctx, describe_ids, describe_fmt] {
      return DescribeExperiments(ctx.session(), *describe_ids, describe_fmt->format(), std::cout);
    };
  });

  // create
  CLI::App* create = exp->add_subcommand("create", "create experiment");
  auto create_args = std::make_shared<CreateExperimentArgs>();
  auto context_dir = std::make_shared<std::string>();
  auto project_id = std::make_shared<int>(0);
  create->add_option("config_file", create_args->config_file, "experiment config file (.yaml)")
      ->required();
  create->add_option("model_def", *context_dir, "directory containing the model definition");
  create
      ->add_option("-i,--include", create_args->includes,
                   "additional file or directory to copy into the task (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)  // one value per occurrence: the positionals after it stay positionals
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  create
      ->add_option("--config", create_args->overrides,
                   "config override KEY=VALUE, dotted keys for nesting (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)  // one value per occurrence: the positionals after it stay positionals
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  CLI::Option* follow = create->add_flag("-f,--follow-first-trial,--follow", create_args->follow,
                                         "follow the logs of the first trial that is created");
  create->add_flag("--paused", create_args->paused, "do not activate the experiment")
      ->excludes(follow);
  create->add_option("--project_id,--project-id", *project_id,
                     "place this experiment inside this project");
  create->add_option("--template", create_args->template_name,
                     "name of template to apply to the experiment configuration");
  auto test_mode = std::make_shared<bool>(false);
  create->add_flag("--test,--test-mode", *test_mode,
                   "check the config, then run a short single-trial copy of the experiment and report "
                   "whether it trains, validates and checkpoints")
      ->excludes(follow);
  auto local = std::make_shared<bool>(false);
  create->add_flag("--local", *local,
                   "with --test: train and validate one batch of the config's Trial class on this machine, "
                   "without a master")
      ->excludes(follow);
  create->callback([&ctx, create_args, context_dir, project_id, test_mode, local] {
    ctx.action = [&ctx, create_args, context_dir, project_id, test_mode, local] {
      if (!context_dir->empty()) create_args->context_dir = *context_dir;
      if (*project_id > 0) create_args->project_id = *project_id;
      create_args->live_progress = isatty(STDOUT_FILENO) != 0;
      if (*local) return RunLocalTest(*create_args, *test_mode);
      if (*test_mode) return TestExperiment(ctx.session(), *create_args, std::cout);
      return CreateExperiment(ctx.session(), *create_args, std::cout);
    };
  });

  // continue
  CLI::App* cont = exp->add_subcommand("continue", "resume or recover training for a single-searcher experiment");
  auto continue_args = std::make_shared<ContinueExperimentArgs>();
  cont->add_option("experiment_id", continue_args->experiment_id, "experiment ID to continue")
      ->required()
      ->check(PositiveId());
  cont->add_option("--config-file", continue_args->config_file, "experiment config file (.yaml) of overrides");
  cont->add_option("--config", continue_args->overrides,
                   "config override KEY=VALUE, dotted keys for nesting (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cont->add_flag("-f,--follow-first-trial", continue_args->follow, "follow logs of the trial that is being continued");
  cont->callback([&ctx, continue_args] {
    ctx.action = [&ctx, continue_args] {
      continue_args->live_progress = isatty(STDOUT_FILENO) != 0;
      return ContinueExperiment(ctx.session(), *continue_args, std::cout);
    };
  });

  // wait
  CLI::App* wait = exp->add_subcommand("wait", "wait for experiment to reach terminal state");
  auto wait_id = AddExperimentId(wait);
  auto interval = std::make_shared<double>(5);
  wait->add_option("--polling-interval", *interval,
                   "the interval (in seconds) to poll for updated state")
      ->capture_default_str();
  wait->callback([&ctx, wait_id, interval] {
    ctx.action = [&ctx, wait_id, interval] {
      return WaitForExperiment(ctx.session(), *wait_id, *interval, std::cout);
    };
  });

  // logs (of the first trial)
  CLI::App* logs = exp->add_subcommand("logs", "fetch logs of the first trial of an experiment");
  auto logs_id = AddExperimentId(logs);
  std::shared_ptr<LogsFlags> logs_flags = AddLogsFlags(*logs);
  logs->callback([&ctx, logs_id, logs_flags] {
    ctx.action = [&ctx, logs_id, logs_flags]() -> absl::StatusOr<int> {
      absl::StatusOr<int> trial = FirstTrialId(ctx.session(), *logs_id);
      if (!trial.ok()) return trial.status();
      return PrintTrialLogs(ctx.session(), *trial, FinishLogsFlags(*logs_flags), std::cout);
    };
  });

  // list-trials
  CLI::App* lt = exp->add_subcommand("list-trials", "list trials of experiment");
  lt->alias("lt");
  auto lt_id = AddExperimentId(lt);
  auto lt_fmt = AddJsonCsvFlags(lt);
  lt->callback([&ctx, lt_id, lt_fmt] {
    ctx.action = [&ctx, lt_id, lt_fmt] {
      return ListExperimentTrials(ctx.session(), *lt_id, lt_fmt->format(), std::cout);
    };
  });

  // list-checkpoints
  CLI::App* lc = exp->add_subcommand("list-checkpoints", "list checkpoints of experiment");
  lc->alias("lc");
  auto lc_id = AddExperimentId(lc);
  auto lc_best = std::make_shared<int>(0);
  lc->add_option("--best", *lc_best, "only the N best checkpoints by the searcher metric")
      ->check(PositiveId("N"));
  auto lc_fmt = AddJsonCsvFlags(lc);
  lc->callback([&ctx, lc, lc_id, lc_best, lc_fmt] {
    std::optional<int> best = lc->count("--best") > 0 ? std::optional<int>(*lc_best) : std::nullopt;
    ctx.action = [&ctx, lc_id, best, lc_fmt] {
      return ListExperimentCheckpoints(ctx.session(), *lc_id, best, lc_fmt->format(), std::cout);
    };
  });

  // config
  CLI::App* config = exp->add_subcommand("config", "display experiment config");
  auto config_id = AddExperimentId(config);
  config->callback([&ctx, config_id] {
    ctx.action = [&ctx, config_id] {
      return PrintExperimentConfig(ctx.session(), *config_id, std::cout);
    };
  });

  // download-code
  CLI::App* download = exp->add_subcommand("download-code", "download code of an experiment");
  download->alias("download-model-def");  // upstream's name
  auto download_id = AddExperimentId(download);
  auto output_dir = std::make_shared<std::string>();
  download->add_option("--output-dir", *output_dir, "directory to write the .tgz to (default: current directory)");
  download->callback([&ctx, download_id, output_dir] {
    ctx.action = [&ctx, download_id, output_dir] {
      return DownloadExperimentCode(ctx.session(), *download_id, *output_dir, std::cout);
    };
  });

  // download: the best checkpoints
  CLI::App* best = exp->add_subcommand("download", "download checkpoints for an experiment");
  auto best_id = AddExperimentId(best, "experiment ID to download");
  auto best_dir = std::make_shared<std::string>("checkpoints");
  best->add_option("-o,--output-dir", *best_dir,
                   "top-level directory: each checkpoint goes to <output_dir>/<checkpoint_uuid>/ (default: checkpoints)");
  auto top_n = std::make_shared<int>(1);
  best->add_option("--top-n", *top_n, "how many: the best checkpoint of each of the N best trials (default 1)")
      ->check(PositiveId("N"));
  auto ranking = AddRankingFlags(best);
  auto best_quiet = std::make_shared<bool>(false);
  best->add_flag("-q,--quiet", *best_quiet, "only print the paths to the checkpoints");
  best->callback([&ctx, best_id, best_dir, top_n, ranking, best_quiet] {
    ctx.action = [&ctx, best_id, best_dir, top_n, ranking, best_quiet]() -> absl::StatusOr<int> {
      ASSIGN_OR_RETURN(CheckpointRanking r, ranking->ranking());
      return DownloadExperimentCheckpoints(ctx.session(), *best_id, *top_n, r, *best_dir, *best_quiet, std::cout);
    };
  });

  // lifecycle
  AddAction(exp, ctx, "activate", "unpause",
            "activate experiment, i.e., unpause a paused experiment", "activate");
  AddAction(exp, ctx, "pause", "", "pause experiment", "pause");
  AddAction(exp, ctx, "cancel", "", "cancel experiment", "cancel");
  AddAction(exp, ctx, "kill", "", "kill experiment", "kill");
  AddAction(exp, ctx, "archive", "", "archive experiment", "archive");
  AddAction(exp, ctx, "unarchive", "", "unarchive experiment", "unarchive");

  // set description | name | priority | weight | max-slots | gc-policy
  CLI::App* set = exp->add_subcommand("set", "set experiment attributes");
  set->require_subcommand(1);
  for (const char* field : {"description", "name"}) {
    CLI::App* cmd = set->add_subcommand(field, absl::StrCat("set experiment ", field));
    auto id = AddExperimentId(cmd);
    auto value = std::make_shared<std::string>();
    cmd->add_option(field, *value, absl::StrCat("experiment ", field))->required();
    std::string f = field;
    cmd->callback([&ctx, id, value, f] {
      ctx.action = [&ctx, id, value, f] { return SetExperimentField(ctx.session(), *id, f, *value, std::cout); };
    });
  }

  // set priority | weight | max-slots
  for (const char* field : {"priority", "weight", "max-slots"}) {
    CLI::App* cmd = set->add_subcommand(field, absl::StrCat("set experiment ", field));
    auto id = AddExperimentId(cmd);
    auto value = std::make_shared<double>(0);
    std::string f = field;
    CLI::Option* opt = cmd->add_option(f == "max-slots" ? "max_slots" : f, *value,
                                       f == "priority"   ? "new priority, 1 (first) to 99"
                                       : f == "weight"   ? "new weight (> 0)"
                                                         : "new max_slots (0 for no limit)")
                           ->required();
    if (f != "weight") opt->check(CLI::TypeValidator<int>());
    cmd->callback([&ctx, id, value, f] {
      ctx.action = [&ctx, id, value, f] {
        ExperimentResourcesChange change;
        if (f == "priority") change.priority = static_cast<int>(*value);
        if (f == "weight") change.weight = *value;
        if (f == "max-slots") change.max_slots = static_cast<int>(*value);
        return SetExperimentResources(ctx.session(), *id, change, std::cout);
      };
    });
  }

  AddLogRetentionCommand(set, ctx, LogRetentionOf::kExperiment);

  CLI::App* gc = set->add_subcommand("gc-policy", "set gc policy of experiment");
  auto gc_id = AddExperimentId(gc);
  auto policy = std::make_shared<GcPolicy>();
  auto gc_yes = std::make_shared<bool>(false);
  gc->add_option("--save-experiment-best", policy->save_experiment_best,
                 "number of best checkpoints per experiment to save")
      ->required();
  gc->add_option("--save-trial-best", policy->save_trial_best, "number of best checkpoints per trial to save")
      ->required();
  gc->add_option("--save-trial-latest", policy->save_trial_latest,
                 "number of latest checkpoints per trial to save")
      ->required();
  gc->add_flag("--yes", *gc_yes, "automatically answer yes to prompts");
  gc->callback([&ctx, gc_id, policy, gc_yes] {
    ctx.action = [&ctx, gc_id, policy, gc_yes] {
      return SetGcPolicy(ctx.session(), *gc_id, *policy, *gc_yes, Confirm, std::cout);
    };
  });

  // label add | remove
  CLI::App* label = exp->add_subcommand("label", "manage experiment labels");
  label->require_subcommand(1);
  for (bool add : {true, false}) {
    CLI::App* cmd = label->add_subcommand(add ? "add" : "remove",
                                          add ? "add label to experiment" : "remove label from experiment");
    auto id = AddExperimentId(cmd);
    auto value = std::make_shared<std::string>();
    cmd->add_option("label", *value, "label")->required();
    cmd->callback([&ctx, id, value, add] {
      ctx.action = [&ctx, id, value, add] { return EditExperimentLabel(ctx.session(), *id, *value, add, std::cout); };
    });
  }

  CLI::App* move = exp->add_subcommand("move", "move an experiment to another project");
  auto move_id = AddExperimentId(move);
  auto destination = std::make_shared<std::pair<std::string, std::string>>();
  move->add_option("workspace_name", destination->first, "the destination workspace's name")->required();
  move->add_option("project_name", destination->second, "the destination project's name")->required();
  move->callback([&ctx, move_id, destination] {
    ctx.action = [&ctx, move_id, destination] {
      return MoveExperiment(ctx.session(), *move_id, destination->first, destination->second, std::cout);
    };
  });

  CLI::App* del = exp->add_subcommand("delete", "delete experiment");
  auto del_id = AddExperimentId(del);
  auto yes = std::make_shared<bool>(false);
  del->add_flag("--yes", *yes, "automatically answer yes to prompts");
  del->callback([&ctx, del_id, yes] {
    ctx.action = [&ctx, del_id, yes]() -> absl::StatusOr<int> {
      if (!*yes && !Confirm("Deleting an experiment will result in the unrecoverable deletion of all associated "
                            "logs, checkpoints, and other metadata associated with the experiment. Do you still "
                            "wish to proceed?")) {
        std::cout << "Aborting experiment deletion.\n";
        return 0;
      }
      return DeleteExperiment(ctx.session(), *del_id, std::cout);
    };
  });

  CLI::App* del_tb = exp->add_subcommand("delete-tb-files", "delete TensorBoard files associated with the experiment");
  auto del_tb_id = AddExperimentId(del_tb);
  del_tb->callback([&ctx, del_tb_id] {
    ctx.action = [&ctx, del_tb_id] { return DeleteTensorboardFiles(ctx.session(), *del_tb_id, std::cout); };
  });
}

}  // namespace det::cli
