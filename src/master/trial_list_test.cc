#include "master/trial_list.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

using api::TrialState;

api::Trial MakeTrial(int64_t id, TrialState state, int64_t batches, std::optional<double> best) {
  api::Trial t;
  t.id = id;
  t.state = state;
  t.total_batches = batches;
  t.searcher_metric_value = best;
  t.start_time = WallTime(std::chrono::seconds(100 + id));
  return t;
}

std::vector<int64_t> Ids(const std::vector<api::Trial>& trials) {
  std::vector<int64_t> out;
  for (const api::Trial& t : trials) out.push_back(t.id);
  return out;
}

using TrialIds = std::vector<int64_t>;

std::vector<api::Trial> Sample() {
  std::vector<api::Trial> trials = {MakeTrial(1, TrialState::kCompleted, 30, 0.5),
                                    MakeTrial(2, TrialState::kActive, 10, std::nullopt),
                                    MakeTrial(3, TrialState::kCompleted, 20, 0.2),
                                    MakeTrial(4, TrialState::kError, 20, 0.9)};
  trials[0].latest_validation_json = R"({"metrics":{"avgMetrics":{"loss":0.7}}})";
  trials[0].end_time = WallTime(std::chrono::seconds(500));
  trials[2].end_time = WallTime(std::chrono::seconds(200));
  return trials;
}

TEST(TrialListTest, SortsByTheRequestedFieldMissingValuesLast) {
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {})), (TrialIds{1, 2, 3, 4}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.descending = true})), (TrialIds{4, 3, 2, 1}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.sort = TrialSort::kBestValidationMetric})), (TrialIds{3, 1, 4, 2}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.sort = TrialSort::kBestValidationMetric, .descending = true})),
            (TrialIds{4, 1, 3, 2}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.sort = TrialSort::kBatchesProcessed})), (TrialIds{2, 3, 4, 1}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.sort = TrialSort::kEndTime})), (TrialIds{3, 1, 2, 4}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.sort = TrialSort::kState})), (TrialIds{2, 1, 3, 4}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.sort = TrialSort::kLatestValidationMetric, .searcher_metric = "loss"})),
            (TrialIds{1, 2, 3, 4}));
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.sort = TrialSort::kDuration, .now = WallTime(std::chrono::seconds(1000))})),
            (TrialIds{3, 1, 4, 2}));
}

TEST(TrialListTest, FiltersByState) {
  using api::ExperimentState;
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.states = {ExperimentState::kCompleted, ExperimentState::kError}})),
            (TrialIds{1, 3, 4}));
  // A state trials do not have matches none (it does not mean "any").
  EXPECT_EQ(Ids(ListTrialsFor(Sample(), {.states = {ExperimentState::kDeleting}})), TrialIds{});
}

TEST(TrialListTest, ParsesSortByNameOrNumber) {
  EXPECT_EQ(*ParseTrialSort(""), TrialSort::kId);
  EXPECT_EQ(*ParseTrialSort("SORT_BY_BEST_VALIDATION_METRIC"), TrialSort::kBestValidationMetric);
  EXPECT_EQ(*ParseTrialSort("10"), TrialSort::kDuration);
  absl::StatusOr<TrialSort> bad = ParseTrialSort("SORT_BY_COLOR");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sortBy: \"SORT_BY_COLOR\" is not one of"), std::string::npos);
}

}  // namespace
}  // namespace det::master
