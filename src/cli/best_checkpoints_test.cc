#include "cli/best_checkpoints.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::cli {
namespace {

using nlohmann::json;

json Checkpoint(const std::string& uuid, int trial, std::optional<double> loss) {
  json training = {{"trialId", trial}, {"searcherMetric", loss ? json(*loss) : json(nullptr)}};
  training["validationMetrics"] = {{"avgMetrics", loss ? json{{"loss", *loss}} : json::object()}};
  return {{"uuid", uuid}, {"training", training}};
}

TEST(BestCheckpointsTest, TheBestOfEachOfTheTopTrialsInTheListingsOrder) {
  json listing = json::array({Checkpoint("a", 1, 0.1), Checkpoint("b", 1, 0.2), Checkpoint("c", 2, 0.3),
                              Checkpoint("d", 3, 0.4), Checkpoint("e", 4, std::nullopt)});
  CheckpointRanking searcher;
  EXPECT_EQ(BestOfTopTrials(listing, searcher, 2), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(BestOfTopTrials(listing, searcher, 10), (std::vector<std::string>{"a", "c", "d"}))
      << "a checkpoint without the metric is never taken";
  CheckpointRanking by_loss{.sort_by = "loss", .smaller_is_better = true};
  EXPECT_EQ(BestOfTopTrials(listing, by_loss, 1), (std::vector<std::string>{"a"}));
  CheckpointRanking by_other{.sort_by = "accuracy", .smaller_is_better = false};
  EXPECT_TRUE(BestOfTopTrials(listing, by_other, 3).empty());
}

TEST(BestCheckpointsTest, TheQueryAsksTheMasterForCompletedCheckpointsBestFirst) {
  EXPECT_EQ(*BestFirstQuery({}), "?sortByAttr=SORT_BY_SEARCHER_METRIC&states=STATE_COMPLETED");
  EXPECT_EQ(*BestFirstQuery({.sort_by = "val acc", .smaller_is_better = false}),
            "?sortByMetric=val%20acc&orderBy=ORDER_BY_DESC&states=STATE_COMPLETED");
  absl::StatusOr<std::string> missing = BestFirstQuery({.sort_by = "accuracy"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--smaller-is-better"), std::string::npos);
}

TEST(BestCheckpointsTest, BooleansAreReadAsUpstreamsCliReadsThem) {
  EXPECT_TRUE(*ParseBoolFlag("--x", "True"));
  EXPECT_TRUE(*ParseBoolFlag("--x", "1"));
  EXPECT_FALSE(*ParseBoolFlag("--x", "no"));
  EXPECT_FALSE(ParseBoolFlag("--x", "maybe").ok());
}

}  // namespace
}  // namespace det::cli
