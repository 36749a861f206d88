#pragma once
// `--sort-by METRIC --smaller-is-better BOOL`, shared by `det experiment download` and `det trial
// download` (the *_cmd.cc files only: includes CLI11).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/best_checkpoints.h"
#include "common/status_macros.h"

namespace det::cli {

struct RankingFlagValues {
  std::string sort_by;
  std::string smaller_is_better;  // as typed; parsed by ranking()
  absl::StatusOr<CheckpointRanking> ranking() const {
    CheckpointRanking r{.sort_by = sort_by};
    if (!smaller_is_better.empty()) {
      ASSIGN_OR_RETURN(r.smaller_is_better, ParseBoolFlag("--smaller-is-better", smaller_is_better));
    }
    return r;
  }
};

inline std::shared_ptr<RankingFlagValues> AddRankingFlags(CLI::App* cmd) {
  auto f = std::make_shared<RankingFlagValues>();
  cmd->add_option("--sort-by", f->sort_by,
                  "the validation metric to rank checkpoints by (default: the experiment's searcher metric); "
                  "needs --smaller-is-better");
  cmd->add_option("--smaller-is-better", f->smaller_is_better,
                  "true or false: the order for --sort-by (e.g. false for accuracy)");
  return f;
}

}  // namespace det::cli
