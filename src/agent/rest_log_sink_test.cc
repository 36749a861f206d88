#include "agent/rest_log_sink.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::agent {
namespace {

TEST(RestLogSinkTest, EncodesUpstreamTaskLogShape) {
  LogMetadata meta{"task-1", "alloc-1", "agent-1"};
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
  EXPECT_EQ(first["containerId"], "alloc-1");
  EXPECT_EQ(first["timestamp"], "2023-11-14T22:13:20.123456Z");
  EXPECT_EQ(first["log"], "hello\n");
  EXPECT_EQ(first["stdtype"], "stdout");
  EXPECT_EQ(first["source"], "task");
  EXPECT_EQ(first["level"], "LOG_LEVEL_INFO");
  EXPECT_EQ(body["logs"][1]["stdtype"], "stderr");
  EXPECT_EQ(body["logs"][1]["log"], "bad \xEF\xBF\xBD byte\n");
}

}  // namespace
}  // namespace det::agent
