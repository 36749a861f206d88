#pragma once
// Which checkpoints `det experiment download` and `det trial download --best|--latest` take: the
// listing query that orders them best first, and from an experiment's listing the best checkpoint of
// each of its best trials (upstream's top_n_checkpoints).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"

namespace det::cli {

// By the experiment's searcher metric (`sort_by` empty), or by the validation metric `sort_by`,
// smaller or larger first.
struct CheckpointRanking {
  std::string sort_by;
  std::optional<bool> smaller_is_better;
};

// The query string (from '?') listing completed checkpoints best first; InvalidArgument for a
// `sort_by` without `smaller_is_better`, as upstream requires.
absl::StatusOr<std::string> BestFirstQuery(const CheckpointRanking& ranking);

// From a best-first listing: the UUIDs of the first checkpoint of each trial that has the ranking's
// metric, at most `top_n`.
std::vector<std::string> BestOfTopTrials(const nlohmann::json& checkpoints, const CheckpointRanking& ranking,
                                         int top_n);

// Parses a boolean flag value as upstream's CLI does: true/false, yes/no, on/off, 1/0, y/n, t/f.
absl::StatusOr<bool> ParseBoolFlag(const std::string& name, const std::string& value);

}  // namespace det::cli
