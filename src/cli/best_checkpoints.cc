#include "cli/best_checkpoints.h"

#include <set>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/experiment_view.h"
#include "cli/format.h"
#include "client/rest_client.h"

namespace det::cli {
namespace {

using nlohmann::json;

bool HasMetric(const json& checkpoint, const CheckpointRanking& ranking) {
  const json& training = Field(checkpoint, "training");
  if (ranking.sort_by.empty()) return !Field(training, "searcherMetric").is_null();
  return !Field(Field(Field(training, "validationMetrics"), "avgMetrics"), ranking.sort_by.c_str()).is_null();
}

}  // namespace

absl::StatusOr<std::string> BestFirstQuery(const CheckpointRanking& ranking) {
  constexpr char kCompleted[] = "&states=STATE_COMPLETED";
  if (ranking.sort_by.empty()) return absl::StrCat("?sortByAttr=SORT_BY_SEARCHER_METRIC", kCompleted);
  if (!ranking.smaller_is_better) {
    return absl::InvalidArgumentError(
        absl::StrCat("--sort-by ", ranking.sort_by,
                     " needs --smaller-is-better true or false (e.g. false for accuracy)"));
  }
  return absl::StrCat("?sortByMetric=", client::UrlEncode(ranking.sort_by), "&orderBy=",
                      *ranking.smaller_is_better ? "ORDER_BY_ASC" : "ORDER_BY_DESC", kCompleted);
}

std::vector<std::string> BestOfTopTrials(const json& checkpoints, const CheckpointRanking& ranking, int top_n) {
  std::vector<std::string> uuids;
  std::set<std::string> trials;
  if (!checkpoints.is_array()) return uuids;
  for (const json& c : checkpoints) {
    if (static_cast<int>(uuids.size()) >= top_n) break;
    if (!HasMetric(c, ranking)) continue;
    if (!trials.insert(Field(Field(c, "training"), "trialId").dump()).second) continue;
    uuids.push_back(Str(c, "uuid"));
  }
  return uuids;
}

absl::StatusOr<bool> ParseBoolFlag(const std::string& name, const std::string& value) {
  std::string v = absl::AsciiStrToLower(value);
  if (v == "true" || v == "yes" || v == "y" || v == "t" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "n" || v == "f" || v == "off" || v == "0") return false;
  return absl::InvalidArgumentError(absl::StrCat(name, ": expected true or false, got \"", value, "\""));
}

}  // namespace det::cli
