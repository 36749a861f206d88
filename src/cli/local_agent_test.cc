#include "cli/local_agent.h"

#include <gtest/gtest.h>

#include <sstream>

namespace det::cli {
namespace {

TEST(LocalAgentTest, TheMasterUrlTakesThePortUnlessTheUrlHasOne) {
  EXPECT_EQ(AgentMasterUrl("10.0.0.5", 8080), "http://10.0.0.5:8080");
  EXPECT_EQ(AgentMasterUrl("master.example", 9000), "http://master.example:9000");
  EXPECT_EQ(AgentMasterUrl("https://master.example", 8443), "https://master.example:8443");
  EXPECT_EQ(AgentMasterUrl("http://127.0.0.1:4321", 8080), "http://127.0.0.1:4321");
}

TEST(LocalAgentTest, StoppingAnAgentNobodyStartedSaysSo) {
  std::ostringstream out;
  absl::StatusOr<int> down = AgentDown(::testing::TempDir(), "never-started", out);
  EXPECT_TRUE(absl::IsNotFound(down.status())) << down.status();
  EXPECT_NE(down.status().message().find("never-started"), std::string::npos);
  EXPECT_TRUE(AgentDown(::testing::TempDir(), "", out).ok()) << "none recorded: nothing to stop";
}

TEST(LocalAgentTest, ABadNameIsRefusedBeforeAnythingStarts) {
  std::ostringstream out;
  AgentUpOptions options;
  options.name = "a/b";
  EXPECT_TRUE(absl::IsInvalidArgument(AgentUp(options, out).status()));
}

}  // namespace
}  // namespace det::cli
