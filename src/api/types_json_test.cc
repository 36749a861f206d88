#include "api/types_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::api {
namespace {

TEST(TypesJsonTest, ExperimentUsesUpstreamNames) {
  Experiment e;
  e.id = 7;
  e.name = "digits";
  e.state = ExperimentState::kCompleted;
  e.config_json = R"({"hyperparameters":{"lr":0.1}})";
  e.trial_ids = {1};
  nlohmann::json j = ToJson(e);
  EXPECT_EQ(j["state"], "STATE_COMPLETED");
  EXPECT_EQ(j["numTrials"], 1);
  EXPECT_TRUE(j["endTime"].is_null());
  EXPECT_EQ(j["hyperparameters"]["lr"], 0.1);
  EXPECT_EQ(j["checkpointSize"], "0");
}

TEST(TypesJsonTest, StatesAreEnumNamesAndDisplayStatesWin) {
  Trial t;
  t.state = TrialState::kStoppingKilled;
  EXPECT_EQ(ToJson(t)["state"], "STATE_STOPPING_KILLED");
  t.state = TrialState::kActive;
  t.display_state = "RUNNING";
  EXPECT_EQ(ToJson(t)["state"], "STATE_RUNNING");
  Experiment e;
  e.state = ExperimentState::kDeleteFailed;
  EXPECT_EQ(ToJson(e)["state"], "STATE_DELETE_FAILED");
}

TEST(TypesJsonTest, CheckpointResourcesAreStrings) {
  Checkpoint c;
  c.uuid = "u";
  c.resources_json = R"({"model.pt": 1234})";
  nlohmann::json j = ToJson(c);
  EXPECT_EQ(j["resources"]["model.pt"], "1234");
  EXPECT_EQ(j["state"], "STATE_COMPLETED");
}

TEST(TypesJsonTest, MetricsReportIdsAreInt32Numbers) {
  MetricsReport m;
  m.id = 12;
  m.trial_id = 3;
  m.trial_run_id = 1;
  m.total_batches = 100;
  m.group = "validation";
  nlohmann::json j = ToJson(m);
  // trialv1.MetricsReport: every integer is an int32, so a JSON number (reference §0.2).
  EXPECT_EQ(j["id"], 12);
  EXPECT_EQ(j["trialId"], 3);
  EXPECT_EQ(j["trialRunId"], 1);
  EXPECT_EQ(j["totalBatches"], 100);
  EXPECT_EQ(j["archived"], false);
  EXPECT_EQ(j["group"], "validation");
}

TEST(TypesJsonTest, AMetricsReportNestsItsMetricsAsUpstreamsMaster) {
  MetricsReport m;
  m.metrics_json = R"({"loss":0.25})";
  m.batch_metrics_json = R"([{"loss":0.5}])";
  for (const char* group : {"training", "inference"}) {
    m.group = group;
    EXPECT_EQ(ToJson(m)["metrics"], nlohmann::json::parse(R"({"avg_metrics":{"loss":0.25},"batch_metrics":[{"loss":0.5}]})"))
        << group;
  }
  m.group = "validation";
  EXPECT_EQ(ToJson(m)["metrics"], nlohmann::json::parse(R"({"validation_metrics":{"loss":0.25}})"));
}

TEST(TypesJsonTest, AMetricsReportAsTextIsItsJson) {
  MetricsReport m;
  m.id = 7;
  m.trial_id = 3;
  m.trial_run_id = 2;
  m.total_batches = 1 << 30;
  m.end_time = WallTime(std::chrono::milliseconds(1700000000123));
  for (const char* group : {"training", "validation", "odd \"group\"\n"}) {
    for (const char* metrics : {R"({"loss":0.25,"acc":1e-7})", "{}", "", "not json", "[1,2]"}) {
      m.group = group;
      m.metrics_json = metrics;
      m.batch_metrics_json = metrics[0] == '{' ? R"([{"loss":0.5}])" : metrics;
      std::string text = "[";
      AppendJson(text, m);
      text += ",";
      AppendJson(text, m);
      text += "]";
      nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
      ASSERT_FALSE(parsed.is_discarded()) << text;
      EXPECT_EQ(parsed, nlohmann::json::array({ToJson(m), ToJson(m)})) << metrics;
    }
  }
}

TEST(TypesJsonTest, ParsesTaskLogsInEitherSpelling) {
  auto l = TaskLogFromJson(nlohmann::json::parse(
      R"({"task_id":"t","allocationId":"a","log":"hi\n","stdtype":"stdout","rank_id":"1","timestamp":"2024-01-01T00:00:00Z"})"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->task_id, "t");
  EXPECT_EQ(l->allocation_id, "a");
  EXPECT_EQ(*l->rank_id, 1);
  EXPECT_FALSE(TaskLogFromJson(nlohmann::json::parse(R"({"log":"x"})")).ok());
  EXPECT_FALSE(TaskLogFromJson(nlohmann::json::parse(R"({"id":1,"taskId":"t"})")).ok());
}

TEST(TypesJsonTest, TheLogMessageIsTheLineAsUpstreamsCliPrintsIt) {
  TaskLog l;
  l.task_id = "t";
  l.container_id = "0123456789abcdef";
  l.rank_id = 1;
  l.timestamp = WallTime(std::chrono::seconds(1714564800));
  l.log = "hello\n";
  nlohmann::json j = TaskLogJson(l);
  EXPECT_EQ(j["message"], "[2024-05-01T12:00:00.000000Z] 01234567 [rank=1] || hello\n");
  EXPECT_EQ(j["log"], "hello\n");

  l.source = "master";  // the master's lines carry their level, and have no container
  l.level = "LOG_LEVEL_ERROR";
  l.container_id.clear();
  l.rank_id.reset();
  l.log = "no newline";
  EXPECT_EQ(FlatLogMessage(l), "[2024-05-01T12:00:00.000000Z]          || ERROR: no newline\n");
}

}  // namespace
}  // namespace det::api
