#include "master/handlers/checkpoint_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "master/handlers/query_request_test_util.h"

namespace det::master {
namespace {

using nlohmann::json;

ListedCheckpoint Listed(const std::string& uuid, int64_t trial, int64_t steps, const std::string& state,
                        json metrics) {
  ListedCheckpoint c;
  c.checkpoint.uuid = uuid;
  c.checkpoint.trial_id = trial;
  c.checkpoint.steps_completed = steps;
  c.checkpoint.state = state;
  c.checkpoint.report_time = WallTime(std::chrono::seconds(1000 - steps));
  c.validation_metrics = std::move(metrics);
  return c;
}

std::vector<std::string> Uuids(const std::vector<ListedCheckpoint>& list) {
  std::vector<std::string> out;
  for (const ListedCheckpoint& c : list) out.push_back(c.checkpoint.uuid);
  return out;
}

std::vector<ListedCheckpoint> Sample() {
  return {Listed("a", 2, 10, "COMPLETED", {{"loss", 0.5}}), Listed("b", 1, 20, "COMPLETED", {{"loss", 0.2}}),
          Listed("c", 1, 30, "DELETED", nullptr), Listed("d", 3, 40, "COMPLETED", {{"loss", 0.9}}),
          Listed("e", 3, 50, "COMPLETED", {{"acc", 1}})};
}

std::vector<std::string> Ordered(std::multimap<std::string, std::string> params, bool smaller_is_better = true) {
  absl::StatusOr<CheckpointListQuery> q = ParseCheckpointListQuery(WithQuery(std::move(params)), "loss");
  EXPECT_TRUE(q.ok()) << q.status();
  std::vector<ListedCheckpoint> list = Sample();
  if (q.ok()) FilterAndOrderCheckpoints(list, *q, smaller_is_better);
  return Uuids(list);
}

TEST(CheckpointQueryTest, TheSearcherMetricOrdersBestFirstWithoutItLast) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Ordered({{"sortByAttr", "SORT_BY_SEARCHER_METRIC"}}), (V{"b", "a", "d", "c", "e"}));
  EXPECT_EQ(Ordered({{"sortByAttr", "SORT_BY_SEARCHER_METRIC"}}, false), (V{"d", "a", "b", "c", "e"}));
  EXPECT_EQ(Ordered({{"sortBy", "6"}, {"orderBy", "ORDER_BY_DESC"}}), (V{"d", "a", "b", "c", "e"}));
  EXPECT_EQ(Ordered({{"sortByMetric", "acc"}}), (V{"e", "b", "c", "a", "d"})) << "the others by trial and step";
  // The SDK's top_checkpoint(): the best completed one.
  EXPECT_EQ(Ordered({{"sortByAttr", "SORT_BY_SEARCHER_METRIC"}, {"states", "STATE_COMPLETED"}, {"limit", "1"}})[0],
            "b");
}

TEST(CheckpointQueryTest, AttributesAndStates) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Ordered({}), (V{"b", "c", "a", "d", "e"})) << "by trial, then step";
  EXPECT_EQ(Ordered({{"sortByAttr", "SORT_BY_BATCH_NUMBER"}, {"orderBy", "ORDER_BY_DESC"}}),
            (V{"e", "d", "c", "b", "a"}));
  EXPECT_EQ(Ordered({{"sortByAttr", "SORT_BY_END_TIME"}}), (V{"e", "d", "c", "b", "a"}));
  EXPECT_EQ(Ordered({{"sortByAttr", "SORT_BY_UUID"}, {"orderBy", "2"}}), (V{"e", "d", "c", "b", "a"}));
  EXPECT_EQ(Ordered({{"sortByAttr", "SORT_BY_STATE"}}), (V{"b", "a", "d", "e", "c"}));
  EXPECT_EQ(Ordered({{"states", "STATE_DELETED"}}), (V{"c"}));
  EXPECT_EQ(Ordered({{"states", "2"}, {"states", "DELETED"}}).size(), 5u);
}

TEST(CheckpointQueryTest, BadParametersAreNamed) {
  auto error = [](std::multimap<std::string, std::string> params) {
    return std::string(ParseCheckpointListQuery(WithQuery(std::move(params)), "loss").status().message());
  };
  EXPECT_NE(error({{"sortByAttr", "SORT_BY_COLOR"}}).find("sortByAttr: unknown sort key \"SORT_BY_COLOR\""),
            std::string::npos);
  EXPECT_NE(error({{"states", "STATE_LOST"}}).find("states: unknown checkpoint state \"STATE_LOST\""),
            std::string::npos);
  EXPECT_NE(error({{"sortByAttr", "SORT_BY_UUID"}, {"sortByMetric", "loss"}}).find("not both"), std::string::npos);
  EXPECT_NE(error({{"orderBy", "SIDEWAYS"}}).find("orderBy"), std::string::npos);
}

TEST(CheckpointQueryTest, TheJsonCarriesTheValidationSearcherMetricHparamsAndConfig) {
  api::Experiment exp;
  exp.searcher_metric = "loss";
  const json config = {{"searcher", {{"metric", "loss"}}}};
  ListedCheckpoint listed = Sample()[0];
  listed.hparams = {{"lr", 0.1}};
  json with = ListedCheckpointJson(listed, exp, config);
  EXPECT_EQ(with["training"]["validationMetrics"]["avgMetrics"], json({{"loss", 0.5}}));
  EXPECT_EQ(with["training"]["searcherMetric"], 0.5);
  EXPECT_EQ(with["training"]["hparams"], json({{"lr", 0.1}}));
  EXPECT_EQ(with["training"]["experimentConfig"], config);
  EXPECT_EQ(with["uuid"], "a");
  json without = ListedCheckpointJson(Sample()[2], exp, config);
  EXPECT_TRUE(without["training"]["validationMetrics"].is_null());
  EXPECT_FALSE(without["training"].contains("searcherMetric"));
}

}  // namespace
}  // namespace det::master
