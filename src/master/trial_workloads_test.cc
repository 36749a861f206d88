#include "master/trial_workloads.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

using nlohmann::json;

api::MetricsReport Report(int64_t batches, double loss) {
  api::MetricsReport r;
  r.total_batches = batches;
  r.metrics_json = json{{"loss", loss}}.dump();
  r.batch_metrics_json = R"([{"loss":1}])";
  return r;
}

api::Checkpoint Checkpoint(int64_t batches) {
  api::Checkpoint c;
  c.uuid = "c" + std::to_string(batches);
  c.steps_completed = batches;
  c.resources_json = R"({"model": 12})";
  return c;
}

// "t10", "v10", "c10", ... for the workloads in order.
std::vector<std::string> Kinds(const std::vector<json>& workloads) {
  std::vector<std::string> out;
  for (const json& w : workloads) {
    std::string kind = w.begin().key();
    out.push_back(kind.substr(0, 1) + std::to_string(w.begin().value()["totalBatches"].get<int64_t>()));
  }
  return out;
}

using Names = std::vector<std::string>;

TEST(TrialWorkloadsTest, AllInBatchOrderTrainingThenValidationThenCheckpoint) {
  std::vector<json> all = TrialWorkloads({Report(10, 0.5), Report(20, 0.4)}, {Report(20, 0.3)}, {Checkpoint(20)}, {});
  EXPECT_EQ(Kinds(all), (Names{"t10", "t20", "v20", "c20"}));
  EXPECT_EQ(all[0]["training"]["metrics"]["avgMetrics"], (json{{"loss", 0.5}}));
  EXPECT_EQ(all[0]["training"]["metrics"]["batchMetrics"], json::array()) << "only when asked";
  EXPECT_EQ(all[3]["checkpoint"]["uuid"], "c20");
  EXPECT_EQ(all[3]["checkpoint"]["resources"], (json{{"model", "12"}})) << "int64 as a string";
}

TEST(TrialWorkloadsTest, FiltersAndBatchMetrics) {
  std::vector<api::MetricsReport> training = {Report(10, 0.5)};
  std::vector<api::MetricsReport> validation = {Report(10, 0.4)};
  std::vector<api::Checkpoint> checkpoints = {Checkpoint(10)};
  EXPECT_EQ(Kinds(TrialWorkloads(training, validation, checkpoints, {.filter = WorkloadFilter::kCheckpoint})),
            Names{"c10"});
  EXPECT_EQ(Kinds(TrialWorkloads(training, validation, checkpoints, {.filter = WorkloadFilter::kValidation})),
            Names{"v10"});
  EXPECT_EQ(Kinds(TrialWorkloads(training, validation, checkpoints,
                                 {.filter = WorkloadFilter::kCheckpointOrValidation})),
            (Names{"v10", "c10"}));
  std::vector<json> with_batches = TrialWorkloads(training, {}, {}, {.with_batch_metrics = true});
  EXPECT_EQ(with_batches[0]["training"]["metrics"]["batchMetrics"], (json::array({{{"loss", 1}}})));
}

TEST(TrialWorkloadsTest, SortByAMetricPutsWorkloadsWithoutItLast) {
  std::vector<json> by_loss = TrialWorkloads({Report(10, 0.5)}, {Report(20, 0.1), Report(30, 0.3)}, {Checkpoint(5)},
                                             {.sort_key = "loss"});
  EXPECT_EQ(Kinds(by_loss), (Names{"v20", "v30", "t10", "c5"}));
  std::vector<json> descending = TrialWorkloads({Report(10, 0.5)}, {Report(20, 0.1)}, {Checkpoint(5)},
                                                {.sort_key = "loss", .descending = true});
  EXPECT_EQ(Kinds(descending), (Names{"t10", "v20", "c5"}));
  EXPECT_EQ(Kinds(TrialWorkloads({Report(10, 0.5), Report(20, 0.1)}, {}, {}, {.descending = true})),
            (Names{"t20", "t10"}));
}

}  // namespace
}  // namespace det::master
