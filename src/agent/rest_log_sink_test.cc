#include "agent/rest_log_sink.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::agent {
namespace {

TEST(RestLogSinkTest, EncodesUpstreamTaskLogShape) {
  LogMetadata meta{"task-1", "alloc-1", "agent-1", "alloc-1.1"};
  std::vector<LogLine> lines = {
      {FromUnixMicros(1'700'000'000'123'456), StdType::kStdout, "hello"},
      {FromUnixMicros(1'700'000'000'000'000), StdType::kStderr, "bad \xff byte"},
  };
  nlohmann::json body = nlohmann::json::parse(EncodeLogBatch(meta, lines));
  ASSERT_EQ(body["logs"].size(), 2u);
  const nlohmann::json& first = body["logs"][0];
  EXPECT_EQ(first["taskId"], "task-1");
  EXPECT_EQ(first["allocationId"], "alloc-1");
  EXPECT_EQ(first["agentId"], "agent-1");
  EXPECT_EQ(first["containerId"], "alloc-1.1");
  EXPECT_EQ(first["timestamp"], "2023-11-14T22:13:20.123456Z");
  EXPECT_EQ(first["log"], "hello\n");
  EXPECT_EQ(first["stdtype"], "stdout");
  EXPECT_EQ(first["source"], "task");
  EXPECT_EQ(first["level"], "LOG_LEVEL_INFO");
  EXPECT_EQ(body["logs"][1]["stdtype"], "stderr");
  EXPECT_EQ(body["logs"][1]["log"], "bad \xEF\xBF\xBD byte\n");
}

TEST(RestLogSinkTest, ARankPrefixBecomesTheRankId) {
  EXPECT_EQ(RankOfLine("[rank=3] loss 0.1"), 3);
  EXPECT_EQ(RankOfLine("[rank=12] "), 12);
  EXPECT_EQ(RankOfLine("[rank=] x"), std::nullopt);
  EXPECT_EQ(RankOfLine("[rank=1x] x"), std::nullopt);
  EXPECT_EQ(RankOfLine("x [rank=1] y"), std::nullopt);
  EXPECT_EQ(RankOfLine("[rank=1]"), std::nullopt);
  LogMetadata meta{.task_id = "t", .allocation_id = "a", .agent_id = "g"};
  nlohmann::json body = nlohmann::json::parse(
      EncodeLogBatch(meta, {{FromUnixMicros(0), StdType::kStdout, "[rank=1] hi"}, {FromUnixMicros(0), StdType::kStdout, "hi"}}));
  EXPECT_EQ(body["logs"][0]["rankId"], 1);
  EXPECT_EQ(body["logs"][0]["log"], "[rank=1] hi\n") << "the text is kept";
  EXPECT_FALSE(body["logs"][1].contains("rankId"));
}

}  // namespace
}  // namespace det::agent
