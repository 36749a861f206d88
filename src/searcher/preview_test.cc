#include "searcher/preview.h"

#include <gtest/gtest.h>

namespace det::searcher {
namespace {

using nlohmann::json;

TEST(SearchSummaryTrialsTest, AshaTrialsAreCountedAtTheRungWhereTheyStop) {
  json preview = json::parse(R"({"searcher": "async_halving", "trials": 16, "brackets": [
      {"trials": 16, "rungs": [{"units": 50, "trials": 16}, {"units": 200, "trials": 4},
                               {"units": 800, "trials": 1}]}]})");
  json want = json::parse(R"([
      {"count": 12, "unit": {"name": "batches", "value": 50, "maxLength": false}},
      {"count": 3, "unit": {"name": "batches", "value": 200, "maxLength": false}},
      {"count": 1, "unit": {"name": "batches", "value": 800, "maxLength": false}}])");
  EXPECT_EQ(SearchSummaryTrials(preview, "batches"), want);
}

TEST(SearchSummaryTrialsTest, OtherSearchersTrainEveryTrialToItsEnd) {
  json preview = json::parse(R"({"searcher": "grid", "trials": 4, "grid": [{}, {}, {}, {}]})");
  EXPECT_EQ(SearchSummaryTrials(preview, ""),
            json::parse(R"([{"count": 4, "unit": {"name": null, "value": 0, "maxLength": true}}])"));
}

TEST(SearchSummaryTrialsTest, ThePreviewOfARealConfigSumsToItsTrials) {
  json config = json::parse(R"({"hyperparameters": {"lr": {"type": "double", "minval": 0.1, "maxval": 1}},
      "searcher": {"name": "adaptive_asha", "metric": "loss", "max_trials": 16, "max_time": 800,
                   "time_metric": "batches", "max_rungs": 3, "divisor": 4, "mode": "standard"}})");
  absl::StatusOr<json> preview = PreviewSearch(config);
  ASSERT_TRUE(preview.ok()) << preview.status();
  int64_t total = 0;
  for (const json& t : SearchSummaryTrials(*preview, "batches")) total += t["count"].get<int64_t>();
  EXPECT_EQ(total, 16);
}

}  // namespace
}  // namespace det::searcher
