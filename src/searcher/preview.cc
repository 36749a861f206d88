#include "searcher/preview.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "searcher/adaptive_asha.h"
#include "searcher/asha_search.h"
#include "searcher/grid.h"
#include "searcher/hyperparameters.h"
#include "searcher/searcher_config.h"

namespace det::searcher {
namespace {

using nlohmann::json;

json Bracket(const AshaParams& p) {
  json rungs = json::array();
  std::vector<uint64_t> units = AshaRungUnits(p.num_rungs, p.divisor, p.max_time);
  for (size_t i = 0; i < units.size(); ++i) {
    double k =
        std::floor(static_cast<double>(p.max_trials) / std::pow(p.divisor, static_cast<double>(i)));
    rungs.push_back(
        {{"units", units[i]}, {"trials", std::max<int64_t>(static_cast<int64_t>(k), 1)}});
  }
  return {{"rungs", std::move(rungs)},
          {"trials", p.max_trials},
          {"max_concurrent_trials", AshaInitialTrials(p)}};
}

}  // namespace

absl::StatusOr<json> PreviewSearch(const json& config) {
  ASSIGN_OR_RETURN(SearcherConfig c, ParseSearcherConfig(config));
  ASSIGN_OR_RETURN(Hyperparameters hparams,
                   ParseHyperparameters(config.value("hyperparameters", json())));
  RETURN_IF_ERROR(ExperimentSeed(config).status());
  json out = {{"searcher", c.name}};
  if (c.name == "single" || c.name == "random") {
    out["trials"] = c.max_trials;
    out["max_concurrent_trials"] = c.max_concurrent_trials > 0
                                       ? std::min(c.max_trials, c.max_concurrent_trials)
                                       : c.max_trials;
  } else if (c.name == "grid") {
    ASSIGN_OR_RETURN(std::vector<json> grid, BuildGrid(hparams));
    std::reverse(grid.begin(), grid.end());  // trials are created from the end of the product
    size_t n = grid.size();
    out["trials"] = n;
    out["max_concurrent_trials"] =
        c.max_concurrent_trials > 0 ? std::min(n, static_cast<size_t>(c.max_concurrent_trials)) : n;
    out["grid"] = std::move(grid);
  } else {
    std::vector<AshaParams> brackets;
    if (c.name == "async_halving") {
      brackets.push_back(AshaParams{.num_rungs = c.num_rungs,
                                    .max_trials = c.max_trials,
                                    .divisor = c.divisor,
                                    .max_concurrent_trials = c.max_concurrent_trials,
                                    .max_time = c.max_time});
    } else {
      brackets = AdaptiveAshaBrackets(c);
    }
    json list = json::array();
    int concurrent = 0;
    for (const AshaParams& p : brackets) {
      list.push_back(Bracket(p));
      concurrent += AshaInitialTrials(p);
    }
    out["trials"] = c.max_trials;
    out["max_concurrent_trials"] = concurrent;
    out["brackets"] = std::move(list);
  }
  return out;
}

std::string FormatPreview(const json& preview) {
  auto num = [](const json& j, const char* key) -> int64_t {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<int64_t>() : 0;
  };
  std::string name = preview.value("searcher", std::string("?"));
  std::string out = absl::StrCat("Using ", name, ": ");
  auto brackets = preview.find("brackets");
  if (brackets != preview.end() && brackets->is_array()) {
    absl::StrAppend(&out, "up to ", num(preview, "trials"), " trials, ", brackets->size(),
                    brackets->size() == 1 ? " bracket" : " brackets", ", ",
                    num(preview, "max_concurrent_trials"), " at a time\n");
    int i = 0;
    for (const json& b : *brackets) {
      absl::StrAppend(&out, "\nBracket ", ++i, ": ", num(b, "trials"), " trials, ",
                      num(b, "max_concurrent_trials"), " at a time\n");
      absl::StrAppend(&out, absl::StrFormat("  %-6s %12s %8s\n", "rung", "units", "trials"));
      int r = 0;
      for (const json& rung : b.value("rungs", json::array())) {
        absl::StrAppend(&out, absl::StrFormat("  %-6d %12d %8d\n", ++r, num(rung, "units"),
                                              num(rung, "trials")));
      }
    }
    return out;
  }
  absl::StrAppend(&out, num(preview, "trials"), num(preview, "trials") == 1 ? " trial" : " trials",
                  ", ", num(preview, "max_concurrent_trials"), " at a time\n");
  auto grid = preview.find("grid");
  if (grid != preview.end() && grid->is_array()) {
    absl::StrAppend(&out, "\n  trial  hyperparameters\n");
    int i = 0;
    for (const json& point : *grid) {
      absl::StrAppend(&out, absl::StrFormat("  %-6d %s\n", ++i, DumpJson(point)));
    }
  }
  return out;
}

nlohmann::json SearchSummaryTrials(const nlohmann::json& preview, const std::string& time_metric) {
  using nlohmann::json;
  json out = json::array();
  if (const json& brackets = preview.value("brackets", json()); brackets.is_array()) {
    for (const json& bracket : brackets) {
      const json& rungs = bracket.value("rungs", json::array());
      for (size_t i = 0; i < rungs.size(); ++i) {
        int64_t reach = rungs[i].value("trials", 0);
        int64_t next = i + 1 < rungs.size() ? rungs[i + 1].value("trials", 0) : 0;
        if (reach - next <= 0) continue;
        out.push_back({{"count", reach - next},
                       {"unit", {{"name", time_metric}, {"value", rungs[i].value("units", 0)}, {"maxLength", false}}}});
      }
    }
    return out;
  }
  out.push_back({{"count", preview.value("trials", 0)}, {"unit", {{"name", nullptr}, {"value", 0}, {"maxLength", true}}}});
  return out;
}

}  // namespace det::searcher
