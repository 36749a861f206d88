#include "api/agent_protocol.h"

#include <gtest/gtest.h>

#include <climits>

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
  EXPECT_FALSE(m.user.has_value()) << "the agent's own user";

  in.user = TaskUser{.uid = 1001, .gid = 1002, .user = "alice", .group = "ml"};
  out = DecodeMasterMessage(Encode(MasterMessage(in)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(std::get<StartTask>(*out).user, in.user);
  EXPECT_FALSE(std::get<StartTask>(*out).container.has_value()) << "a process on the host";

  in.container = TaskContainer{.image = "reg:5000/det-test/python:bookworm",
                               .force_pull = true,
                               .registry_auth = {{"username", "det"}, {"password", "pw"}},
                               .add_capabilities = {"SYS_PTRACE"},
                               .drop_capabilities = {"CHOWN"},
                               .devices = {"/dev/fuse"},
                               .shm_size = 1 << 30,
                               .network_mode = "bridge"};
  out = DecodeMasterMessage(Encode(MasterMessage(in)));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(std::get<StartTask>(*out).container, in.container);
}

TEST(AgentProtocolTest, AgentMessagesRoundTrip) {
  auto hello = DecodeAgentMessage(Encode(AgentMessage(AgentHello{
      .slots = {{0, "cpu", "cpu", ""}, {1, "cuda", "NVIDIA H200", "GPU-7033"}}, .running_allocations = {"x"}})));
  ASSERT_TRUE(hello.ok());
  const auto& slots = std::get<AgentHello>(*hello).slots;
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[1].type, "cuda");
  EXPECT_EQ(slots[1].device, "NVIDIA H200");
  EXPECT_EQ(slots[1].uuid, "GPU-7033");
  // An agent from before GPUs sends no uuid.
  auto old = DecodeAgentMessage(
      R"({"type":"agent_hello","slots":[{"id":0,"type":"cpu","device":"cpu"}],"running_allocations":[]})");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(std::get<AgentHello>(*old).slots[0].uuid, "");
  auto exited = DecodeAgentMessage(Encode(AgentMessage(TaskExited{.allocation_id = "a", .exit_code = 3, .error = ""})));
  ASSERT_TRUE(exited.ok());
  EXPECT_EQ(std::get<TaskExited>(*exited).exit_code, 3);
}

TEST(AgentProtocolTest, AgentRefusedRoundTrips) {
  auto refused = DecodeMasterMessage(Encode(MasterMessage(AgentRefused{"pool \"default\" has cpu slots"})));
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(std::get<AgentRefused>(*refused).reason, "pool \"default\" has cpu slots");
}

TEST(AgentProtocolTest, RejectsUnknownAndMalformed) {
  EXPECT_FALSE(DecodeAgentMessage(R"({"type":"bogus"})").ok());
  EXPECT_FALSE(DecodeAgentMessage(R"({"type":"task_exited"})").ok());
  EXPECT_FALSE(DecodeMasterMessage("not json").ok());
}

// Found by fuzz_agent_protocol: out-of-range numbers were cast to int (1e300: undefined behavior;
// 2^32 + 1 silently became 1).
TEST(AgentProtocolTest, RejectsIntegersOutOfRange) {
  for (const char* pid :
       {"1e300", "-1e300", "4294967297", "2147483648", "18446744073709551615", "1.5", "\"3\""}) {
    std::string msg =
        std::string(R"({"type":"task_started","allocation_id":"a","pid":)") + pid + "}";
    auto out = DecodeAgentMessage(msg);
    ASSERT_FALSE(out.ok()) << msg;
    EXPECT_NE(out.status().message().find("pid"), std::string::npos) << out.status();
  }
  EXPECT_FALSE(DecodeMasterMessage(
                   R"({"type":"start_task","allocation_id":"a","task_id":"t","task_type":"TRIAL",)"
                   R"("entrypoint":[],"env":{},"slot_ids":[0,4294967296],"session_token":"",)"
                   R"("download_context":true})")
                   .ok());
  auto ok = DecodeAgentMessage(
      R"({"type":"task_exited","allocation_id":"a","exit_code":-2147483648,"error":""})");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(std::get<TaskExited>(*ok).exit_code, INT_MIN);
}

}  // namespace
}  // namespace det::api
