#include "cli/log_printer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/trial_ops.h"

namespace det::cli {
namespace {

using nlohmann::json;

TEST(LogPrinterTest, PrintsMessageAsIs) {
  EXPECT_EQ(LogEntryText(json{{"message", "[rank=0] hello\n"}, {"log", "hello\n"}}),
            "[rank=0] hello\n");
}

TEST(LogPrinterTest, FallsBackToLogAndAddsNewline) {
  EXPECT_EQ(LogEntryText(json{{"message", ""}, {"log", "raw line"}}), "raw line\n");
  EXPECT_EQ(LogEntryText(json{{"message", "no newline"}}), "no newline\n");
  EXPECT_EQ(LogEntryText(json::object()), "\n");
}

TEST(TrialLogsPathTest, Plain) {
  absl::StatusOr<std::string> p = TrialLogsPath(7, TrialLogsArgs{});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, "/api/v1/trials/7/logs");
}

TEST(TrialLogsPathTest, TaskLogsTakeTheSameQuery) {
  TrialLogsArgs t;
  t.tail = 5;
  EXPECT_EQ(*LogsPath("/api/v1/tasks/3.abc/logs", t),
            "/api/v1/tasks/3.abc/logs?limit=5&orderBy=ORDER_BY_DESC");
}

TEST(TrialLogsPathTest, FollowHeadTail) {
  TrialLogsArgs a;
  a.follow = true;
  EXPECT_EQ(*TrialLogsPath(3, a), "/api/v1/trials/3/logs?follow=true");
  TrialLogsArgs h;
  h.head = 10;
  EXPECT_EQ(*TrialLogsPath(3, h), "/api/v1/trials/3/logs?limit=10");
  TrialLogsArgs t;
  t.tail = 5;
  EXPECT_EQ(*TrialLogsPath(3, t), "/api/v1/trials/3/logs?limit=5&orderBy=ORDER_BY_DESC");
  TrialLogsArgs both;
  both.follow = true;
  both.tail = 5;
  EXPECT_EQ(TrialLogsPath(3, both).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TrialLogsPathTest, Filters) {
  TrialLogsArgs a;
  a.agent_ids = {"agent-0"};
  a.rank_ids = {0, 1};
  a.level = "ERROR";
  a.timestamp_after = "2021-10-26T23:17:12Z";
  EXPECT_EQ(*TrialLogsPath(1, a),
            "/api/v1/trials/1/logs?agentIds=agent-0&rankIds=0&rankIds=1&levels=LOG_LEVEL_ERROR"
            "&levels=LOG_LEVEL_CRITICAL&timestampAfter=2021-10-26T23%3A17%3A12Z");
  a.level = "LOUD";
  EXPECT_FALSE(TrialLogsPath(1, a).ok());
}

}  // namespace
}  // namespace det::cli
