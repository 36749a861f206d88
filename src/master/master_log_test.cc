#include "master/master_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "spdlog/logger.h"

namespace det::master {
namespace {

std::vector<std::string> Messages(const std::vector<MasterLogEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.message);
  return out;
}

TEST(MasterLogTest, KeepsTheNewestEntriesInOrder) {
  MasterLog log(3);
  for (const char* m : {"a", "b", "c", "d"}) log.Add(WallTime{}, "LOG_LEVEL_INFO", m);
  std::vector<MasterLogEntry> all = log.After(0);
  EXPECT_THAT(Messages(all), ::testing::ElementsAre("b", "c", "d"));
  EXPECT_EQ(all.front().id, 2);
  EXPECT_THAT(Messages(log.After(2)), ::testing::ElementsAre("c", "d"));
  EXPECT_THAT(Messages(log.After(0, 1)), ::testing::ElementsAre("b"));
  EXPECT_TRUE(log.After(4).empty());
}

TEST(MasterLogTest, OffsetsCountFromTheOldestOrBackFromTheNewest) {
  MasterLog log(10);
  for (const char* m : {"a", "b", "c", "d"}) log.Add(WallTime{}, "LOG_LEVEL_INFO", m);
  EXPECT_THAT(Messages(log.After(log.IdBeforeOffset(0))), ::testing::ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(Messages(log.After(log.IdBeforeOffset(1))), ::testing::ElementsAre("b", "c", "d"));
  EXPECT_THAT(Messages(log.After(log.IdBeforeOffset(-2))), ::testing::ElementsAre("c", "d"));
  EXPECT_THAT(Messages(log.After(log.IdBeforeOffset(-10))), ::testing::ElementsAre("a", "b", "c", "d"));
  EXPECT_TRUE(log.After(log.IdBeforeOffset(10)).empty());
  MasterLog empty;
  EXPECT_EQ(empty.IdBeforeOffset(-5), 0);
}

TEST(MasterLogTest, TheSinkKeepsWhatALoggerLogsWithUpstreamLevelNames) {
  auto log = std::make_shared<MasterLog>();
  spdlog::logger logger("test", std::make_shared<MasterLogSink>(log));
  logger.warn("agent {} disconnected", "a1");
  logger.debug("not at this level");
  std::vector<MasterLogEntry> entries = log->After(0);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].message, "agent a1 disconnected");
  EXPECT_EQ(entries[0].level, "LOG_LEVEL_WARNING");
  EXPECT_EQ(std::string(LogLevelName(spdlog::level::err)), "LOG_LEVEL_ERROR");
  EXPECT_EQ(std::string(LogLevelName(spdlog::level::critical)), "LOG_LEVEL_CRITICAL");
  EXPECT_EQ(std::string(LogLevelName(spdlog::level::off)), "LOG_LEVEL_UNSPECIFIED");
  EXPECT_TRUE(IsLogLevelName("LOG_LEVEL_WARNING"));
  EXPECT_FALSE(IsLogLevelName("WARNING"));
}

}  // namespace
}  // namespace det::master
