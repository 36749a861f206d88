#include "api/agent_protocol.h"

#include <gtest/gtest.h>

namespace det::api {
namespace {

TEST(AgentProtocolTest, StartTaskRoundTrips) {
  StartTask in{.allocation_id = "a.1",
               .task_id = "t",
               .task_type = "TRIAL",
               .entrypoint = {"sh", "-c", "python3 train.py"},
               .env = {{"DET_TRIAL_ID", "1"}},
               .slot_ids = {0, 1},
               .session_token = "tok",
               .download_context = true};
  auto out = DecodeMasterMessage(Encode(MasterMessage(in)));
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& m = std::get<StartTask>(*out);
  EXPECT_EQ(m.allocation_id, "a.1");
  EXPECT_EQ(m.entrypoint.size(), 3u);
  EXPECT_EQ(m.env.at("DET_TRIAL_ID"), "1");
  EXPECT_EQ(m.slot_ids, (std::vector<int>{0, 1}));
}

TEST(AgentProtocolTest, AgentMessagesRoundTrip) {
  auto hello = DecodeAgentMessage(Encode(AgentMessage(AgentHello{.slots = {{0, "cpu", "cpu"}}, .running_allocations = {"x"}})));
  ASSERT_TRUE(hello.ok());
  EXPECT_EQ(std::get<AgentHello>(*hello).slots.size(), 1u);
  auto exited = DecodeAgentMessage(Encode(AgentMessage(TaskExited{.allocation_id = "a", .exit_code = 3, .error = ""})));
  ASSERT_TRUE(exited.ok());
  EXPECT_EQ(std::get<TaskExited>(*exited).exit_code, 3);
}

TEST(AgentProtocolTest, RejectsUnknownAndMalformed) {
  EXPECT_FALSE(DecodeAgentMessage(R"({"type":"bogus"})").ok());
  EXPECT_FALSE(DecodeAgentMessage(R"({"type":"task_exited"})").ok());
  EXPECT_FALSE(DecodeMasterMessage("not json").ok());
}

}  // namespace
}  // namespace det::api
