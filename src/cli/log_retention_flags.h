#pragma once
// `det experiment|trial set log-retention ID --days N | --forever`, the subcommand both `set` groups
// share (the *_cmd.cc files only: includes CLI11).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/command_context.h"
#include "cli/experiment_ops.h"
#include "cli/positive_id.h"

namespace det::cli {

inline void AddLogRetentionCommand(CLI::App* set, CommandContext& ctx, LogRetentionOf of) {
  const std::string what = of == LogRetentionOf::kExperiment ? "experiment" : "trial";
  CLI::App* cmd = set->add_subcommand("log-retention", "set `log-retention-days` of the " + what);
  auto id = std::make_shared<int>(0);
  auto days = std::make_shared<std::optional<int>>();
  auto forever = std::make_shared<bool>(false);
  cmd->add_option(what + "_id", *id, what + " ID")->required()->check(PositiveId());
  cmd->add_option("--days", *days,
                  "number of days to retain the logs for, from the end time of the task; -1 to 32767");
  cmd->add_flag("--forever", *forever, "retain logs forever");
  cmd->callback([&ctx, of, id, days, forever] {
    ctx.action = [&ctx, of, id, days, forever] {
      return SetLogRetention(ctx.session(), of, *id, *days, *forever, std::cout);
    };
  });
}

}  // namespace det::cli
