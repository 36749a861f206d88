#include "agent/agent_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::agent {
namespace {

absl::StatusOr<AgentFileConfig> Load(const std::string& yaml,
                                     std::map<std::string, std::string> env = {},
                                     config::FlagValues flags = {}) {
  return LoadAgentConfig(yaml, env, flags);
}

TEST(AgentConfigTest, ReadsTheFile) {
  auto c = Load(R"(
master_host: master.example.com
master_port: 9000
agent_id: a1
resource_pool: gpu
slots: 4
work_dir: /scratch
container_master_host: 10.0.0.1
container_master_port: 9001
log: {level: debug}
security:
  tls: {enabled: false, master_cert: /ca.pem}
)");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->master_host, "master.example.com");
  EXPECT_EQ(c->master_port, 9000);
  EXPECT_EQ(c->agent_id, "a1");
  EXPECT_EQ(c->resource_pool, "gpu");
  EXPECT_EQ(c->slots, 4);
  EXPECT_EQ(c->work_dir, "/scratch");
  EXPECT_EQ(c->container_master_host, "10.0.0.1");
  EXPECT_EQ(c->container_master_port, 9001);
  EXPECT_EQ(c->log_level, "debug");
  EXPECT_FALSE(c->tls.enabled);
  EXPECT_EQ(c->tls.master_cert, "/ca.pem");
}

TEST(AgentConfigTest, DefaultsAndMasterUrl) {
  auto c = Load("", {{"DET_MASTER_URL", "http://127.0.0.1:4321"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->master_host, "127.0.0.1");
  EXPECT_EQ(c->master_port, 4321);
  EXPECT_EQ(c->agent_id, "");
  EXPECT_EQ(c->resource_pool, "") << "the master's default compute pool";
  EXPECT_EQ(c->slots, 1);
  EXPECT_EQ(c->log_level, "info");

  auto host_only = Load("master_host: m\n");
  ASSERT_TRUE(host_only.ok());
  EXPECT_EQ(host_only->master_port, 8080);
}

TEST(AgentConfigTest, FlagsBeatEnvWhichBeatsTheFile) {
  auto c = Load("master_host: file\nslots: 2\nresource_pool: filepool\n",
                {{"DET_MASTER_HOST", "env"}, {"DET_SLOTS", "3"}, {"DET_RESOURCE_POOL", "envpool"}},
                {{"slots", "5"}, {"id", "x"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->master_host, "env");
  EXPECT_EQ(c->slots, 5);
  EXPECT_EQ(c->resource_pool, "envpool");
  EXPECT_EQ(c->agent_id, "x");
}

TEST(AgentConfigTest, MasterUrlIsHostAndPortAtItsLayer) {
  auto flag_wins = Load("master_host: file\nmaster_port: 1\n", {{"DET_MASTER_HOST", "env"}},
                        {{"master-url", "http://flag:7"}});
  ASSERT_TRUE(flag_wins.ok()) << flag_wins.status();
  EXPECT_EQ(flag_wins->master_host, "flag");
  EXPECT_EQ(flag_wins->master_port, 7);

  auto env_host_wins = Load("master_url: http://file:2\n", {{"DET_MASTER_HOST", "env"}});
  ASSERT_TRUE(env_host_wins.ok()) << env_host_wins.status();
  EXPECT_EQ(env_host_wins->master_host, "env");
  EXPECT_EQ(env_host_wins->master_port, 2);

  EXPECT_FALSE(Load("", {}, {{"master-url", "http://a:1"}, {"master-host", "b"}}).ok());
  EXPECT_FALSE(Load("", {{"DET_MASTER_URL", "ftp://x"}}).ok());
}

TEST(AgentConfigTest, SlotAliases) {
  auto c = Load("master_host: m\nartificial_slots: 6\n");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->slots, 6);
  auto none = Load("master_host: m\nslot_type: none\n");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->slots, 0);
  EXPECT_EQ(none->slot_type, SlotType::kNone);
}

TEST(AgentConfigTest, SlotTypesAndVisibleGpus) {
  auto defaults = Load("master_host: m\n");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->slot_type, SlotType::kAuto);
  EXPECT_TRUE(defaults->visible_gpus.empty());
  auto from_file = Load("master_host: m\nslot_type: cuda\nvisible_gpus: [0, 2]\n");
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(from_file->slot_type, SlotType::kCuda);
  EXPECT_EQ(from_file->visible_gpus, (std::vector<int>{0, 2}));
  auto from_env = Load("master_host: m\n", {{"DET_SLOT_TYPE", "rocm"}, {"DET_VISIBLE_GPUS", "1,3"}});
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ(from_env->slot_type, SlotType::kRocm);
  EXPECT_EQ(from_env->visible_gpus, (std::vector<int>{1, 3}));
  auto from_flags = Load("master_host: m\n", {}, {{"slot-type", "cpu"}, {"visible-gpus", "0"}});
  ASSERT_TRUE(from_flags.ok()) << from_flags.status();
  EXPECT_EQ(from_flags->slot_type, SlotType::kCpu);
  EXPECT_EQ(from_flags->visible_gpus, (std::vector<int>{0}));
  auto bad = Load("master_host: m\nslot_type: tpu\nvisible_gpus: one\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::AllOf(::testing::HasSubstr("slot_type: must be one of auto, cuda, rocm, cpu, none, got \"tpu\""),
                               ::testing::HasSubstr("visible_gpus: must list GPU indexes such as 0,2, got \"one\"")));
}

TEST(AgentConfigTest, ReportsEveryProblem) {
  auto c = Load(R"(
master_url: http://a:1
master_host: b
slots: -1
agent_id: a/b
bogus: 1
log: {level: loud}
security: {tls: {client_cert: /c.pem}}
fluent: {}
)");
  ASSERT_FALSE(c.ok());
  std::string err(c.status().message());
  for (const char* want :
       {"master_url: give either", "slots: must be between 0 and 4096",
        "agent_id: must not contain '/'", "bogus: unknown key", "log.level: must be one of",
        "security.tls: client_cert and client_key", "fluent: no longer supported"}) {
    EXPECT_NE(err.find(want), std::string::npos) << "missing \"" << want << "\" in:\n" << err;
  }
  auto missing = Load("");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("master_host: required"), std::string::npos);
}

TEST(AgentConfigTest, UpstreamKeysAreAcceptedWithAWarning) {
  auto c = Load("master_host: m\ncontainer_runtime: docker\nagent_reconnect_attempts: 5\n");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("agent_reconnect_attempts, container_runtime"), std::string::npos);
}

}  // namespace
}  // namespace det::agent

namespace det::agent {
namespace {

TEST(AgentConfigTest, HttpsMasterUrlEnablesTls) {
  auto file = Load("master_url: https://m.example:9443\nsecurity: {tls: {master_cert: /ca.pem}}\n");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->tls.enabled);
  EXPECT_EQ(file->master_host, "m.example");
  EXPECT_EQ(file->master_port, 9443);
  EXPECT_EQ(file->tls.master_cert, "/ca.pem");

  auto env = Load("", {{"DET_MASTER_URL", "https://m:1"}});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_TRUE(env->tls.enabled);

  auto flags = Load("", {},
                    {{"master-url", "https://m"},
                     {"security-tls-master-cert-name", "master.internal"},
                     {"security-tls-skip-verify", "true"}});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_TRUE(flags->tls.enabled);
  EXPECT_EQ(flags->master_port, 8443);
  EXPECT_EQ(flags->tls.master_cert_name, "master.internal");
  EXPECT_TRUE(flags->tls.skip_verify);

  auto plain = Load("", {}, {{"master-url", "http://m:1"}});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->tls.enabled);
}

}  // namespace
}  // namespace det::agent
