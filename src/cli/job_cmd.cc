#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"
#include "cli/job_ops.h"

namespace det::cli {

void AddJobCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* job = det.add_subcommand("job", "manage jobs");
  job->alias("j");
  job->require_subcommand(0, 1);

  CLI::App* list = job->add_subcommand("list", "list jobs");
  list->alias("ls");
  auto args = std::make_shared<ListJobsArgs>();
  auto all = std::make_shared<bool>(false);
  list->add_option("-p,--resource-pool", args->resource_pool,
                   "the resource pool to list (default: the default compute pool)");
  list->add_option("--limit", args->limit, "maximum items per page of results")
      ->capture_default_str();
  list->add_option("--offset", args->offset, "number of items to skip")->capture_default_str();
  CLI::Option* pages =
      list->add_option("--pages", args->pages, "pages to fetch (0 for all)")->capture_default_str();
  list->add_flag("--all", *all, "fetch all pages (same as --pages 0)")->excludes(pages);
  list->add_flag("--reverse", args->reverse, "list the back of the queue first");
  auto fmt = AddJsonCsvFlags(list);
  auto run_list = [&ctx, args, all, fmt] {
    ctx.action = [&ctx, args, all, fmt] {
      args->format = fmt->format();
      if (*all) args->pages = 0;
      return ListJobs(ctx.session(), *args, std::cout);
    };
  };
  list->callback(run_list);
  job->callback([job, run_list] {
    if (job->get_subcommands().empty()) run_list();
  });

  CLI::App* update = job->add_subcommand("update", "update job");
  update->alias("u");
  auto up = std::make_shared<UpdateJobArgs>();
  auto priority = std::make_shared<int>(0);
  auto weight = std::make_shared<double>(0);
  auto pool = std::make_shared<std::string>();
  auto ahead = std::make_shared<std::string>();
  auto behind = std::make_shared<std::string>();
  update->add_option("job_id", up->job_id, "the job to change (`det job list` shows the IDs)")
      ->required();
  CLI::Option* o_priority = update->add_option(
      "-p,--priority", *priority, "the new priority, 1 (first) to 99; priority scheduler");
  CLI::Option* o_weight =
      update->add_option("-w,--weight", *weight, "the new weight (> 0); fair_share scheduler");
  CLI::Option* o_pool =
      update->add_option("--resource-pool", *pool, "the resource pool to move the job to");
  CLI::Option* o_ahead =
      update->add_option("--ahead-of", *ahead, "the job ID to put this job ahead of in the queue");
  CLI::Option* o_behind =
      update->add_option("--behind-of", *behind, "the job ID to put this job behind in the queue");
  std::vector<CLI::Option*> exclusive = {o_priority, o_weight, o_pool, o_ahead, o_behind};
  for (CLI::Option* a : exclusive) {
    for (CLI::Option* b : exclusive) {
      if (a != b) a->excludes(b);
    }
  }
  update->callback([&ctx, up, priority, weight, pool, ahead, behind, o_priority, o_weight, o_pool,
                    o_ahead, o_behind] {
    ctx.action = [&ctx, up, priority, weight, pool, ahead, behind, o_priority, o_weight, o_pool,
                  o_ahead, o_behind] {
      if (o_priority->count() > 0) up->priority = *priority;
      if (o_weight->count() > 0) up->weight = *weight;
      if (o_pool->count() > 0) up->resource_pool = *pool;
      if (o_ahead->count() > 0) up->ahead_of = *ahead;
      if (o_behind->count() > 0) up->behind_of = *behind;
      return UpdateJob(ctx.session(), *up, std::cout);
    };
  });
}

}  // namespace det::cli
