#include "agent/task_env.h"

#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "config/task_container_defaults.h"

namespace det::agent {
namespace {

AgentEnvironment TestAgent() {
  AgentEnvironment agent;
  agent.master = *ParseMasterUrl("http://10.0.0.5:8080");
  agent.agent_id = "agent-1";
  agent.python_dir = "/opt/det/python";
  agent.bin_dir = "/opt/det/bin";
  agent.agent_path = "/opt/bin:/usr/local/bin";
  agent.inherited = {{"HOME", "/home/u"}, {"USER", "u"}};
  return agent;
}

TEST(TaskEnvTest, AddsAgentSideContractVariables) {
  api::StartTask task;
  task.slot_ids = {0, 1};
  task.env = {{"DET_TRIAL_ID", "7"}, {"DET_MASTER", "http://wrong:1"}, {"HOME", "/master-home"}};
  auto env = BuildTaskEnv(task, TestAgent(), "/work/tasks/a1");
  EXPECT_EQ(env["DET_MASTER"], "http://10.0.0.5:8080");
  EXPECT_EQ(env["DET_MASTER_HOST"], "10.0.0.5");
  EXPECT_EQ(env["DET_MASTER_ADDR"], "10.0.0.5");
  EXPECT_EQ(env["DET_MASTER_PORT"], "8080");
  EXPECT_EQ(env["DET_AGENT_ID"], "agent-1");
  EXPECT_EQ(env["DET_SLOT_IDS"], "[0,1]");
  EXPECT_EQ(env["DET_WORKDIR"], "/work/tasks/a1");
  EXPECT_EQ(env.count("CUDA_VISIBLE_DEVICES"), 1u);
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "");
  // The agent's directory first: `det` in a task is the one of this cluster.
  EXPECT_EQ(env["PATH"], "/opt/det/bin:/usr/bin:/bin:/usr/sbin:/sbin:/opt/bin:/usr/local/bin");
  EXPECT_EQ(env["PYENV_VERSION"], "system");
  EXPECT_EQ(env["PYTHONUNBUFFERED"], "1");
  EXPECT_EQ(env["PYTHONPATH"], "/opt/det/python");
  EXPECT_EQ(env["DET_TRIAL_ID"], "7");
  EXPECT_EQ(env["HOME"], "/master-home");  // master-side values beat the agent's own
  EXPECT_EQ(env["USER"], "u");
  EXPECT_EQ(env["LANG"], "C.UTF-8");
}

TEST(TaskEnvTest, ATaskSeesExactlyItsOwnGpus) {
  AgentEnvironment agent = TestAgent();
  agent.slots = {{.id = 0, .type = "cuda", .device = "NVIDIA H200", .uuid = "GPU-a"},
                 {.id = 1, .type = "cuda", .device = "NVIDIA H200", .uuid = "GPU-b"},
                 {.id = 2, .type = "cuda", .device = "NVIDIA H200", .uuid = "GPU-c"},
                 {.id = 4, .type = "cuda", .device = "NVIDIA A100 MIG 1g.5gb", .uuid = "MIG-d"}};
  api::StartTask task;
  task.slot_ids = {2, 4};
  task.env = {{"CUDA_VISIBLE_DEVICES", "0,1,2"}};  // what a user's environment_variables asked: not theirs to set
  auto env = BuildTaskEnv(task, agent, "/work/tasks/a1");
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "GPU-c,MIG-d");
  EXPECT_EQ(env["ROCR_VISIBLE_DEVICES"], "");
  EXPECT_EQ(env["DET_SLOT_IDS"], "[2,4]");
  api::StartTask zero_slots;
  EXPECT_EQ(BuildTaskEnv(zero_slots, agent, "/work/tasks/a2")["CUDA_VISIBLE_DEVICES"], "");

  AgentEnvironment amd = TestAgent();
  amd.slots = {{.id = 0, .type = "rocm", .device = "AMD Instinct MI210", .uuid = "0x1"},
               {.id = 1, .type = "rocm", .device = "AMD Instinct MI210", .uuid = "0x2"}};
  api::StartTask on_amd;
  on_amd.slot_ids = {1};
  auto amd_env = BuildTaskEnv(on_amd, amd, "/work/tasks/a3");
  EXPECT_EQ(amd_env["ROCR_VISIBLE_DEVICES"], "1");
  EXPECT_EQ(amd_env["CUDA_VISIBLE_DEVICES"], "");
}

TEST(TaskEnvTest, KeepsTaskPythonPathAfterHarness) {
  api::StartTask task;
  task.env = {{"PYTHONPATH", "/extra"}};
  auto env = BuildTaskEnv(task, TestAgent(), "/w");
  EXPECT_EQ(env["PYTHONPATH"], "/opt/det/python:/extra");
  EXPECT_EQ(env["DET_SLOT_IDS"], "[]");
}

TEST(TaskEnvTest, NoTrailingColonWithoutAgentPath) {
  AgentEnvironment agent = TestAgent();
  agent.agent_path = "";
  auto env = BuildTaskEnv(api::StartTask{}, agent, "/w");
  EXPECT_EQ(env["PATH"], "/opt/det/bin:/usr/bin:/bin:/usr/sbin:/sbin");
}

TEST(TaskEnvTest, TlsMasterGivesTasksTheCertificate) {
  AgentEnvironment agent = TestAgent();
  api::StartTask task;
  task.env = {{"DET_USE_TLS", "false"}, {"DET_MASTER_CERT_FILE", "/wrong"}};
  EXPECT_EQ(BuildTaskEnv(task, agent, "/w")["DET_USE_TLS"], "false");
  EXPECT_EQ(BuildTaskEnv(task, agent, "/w").count("DET_MASTER_CERT_FILE"), 0u);

  agent.master = *ParseMasterUrl("https://10.0.0.5:8443");
  agent.master_cert_file = "/etc/det/master.crt";
  agent.master_cert_name = "master.internal";
  auto env = BuildTaskEnv(task, agent, "/w");
  EXPECT_EQ(env["DET_MASTER"], "https://10.0.0.5:8443");
  EXPECT_EQ(env["DET_USE_TLS"], "true");
  EXPECT_EQ(env["DET_MASTER_CERT_FILE"], "/etc/det/master.crt");
  EXPECT_EQ(env["DET_MASTER_CERT_NAME"], "master.internal");

  agent.skip_verify = true;
  EXPECT_EQ(BuildTaskEnv(task, agent, "/w")["DET_MASTER_CERT_FILE"], "noverify");
}

TEST(TaskEnvTest, PythonDirFromProcessIsAbsolute) {
  AgentEnvironment agent = AgentEnvironmentFromProcess(*ParseMasterUrl("http://m:1"), "a");
  EXPECT_TRUE(agent.python_dir.is_absolute());
  EXPECT_EQ(agent.python_dir.filename(), "python");
  EXPECT_EQ(agent.python_dir.string().find(".."), std::string::npos);
}

TEST(TaskEnvTest, AStartupHookAtTheTopOfTheWorkDirIsSourcedBeforeTheEntrypoint) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "startup_hook_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  std::vector<std::string> argv = {"python3", "train.py", "--x"};
  EXPECT_EQ(WithStartupHook(argv, dir, {}), argv);
  { std::ofstream(dir / "sub" / "startup-hook.sh") << "export A=1\n"; }  // only the top counts
  EXPECT_EQ(WithStartupHook(argv, dir, {}), argv);
  { std::ofstream(dir / "startup-hook.sh") << "export A=1\n"; }
  std::vector<std::string> wrapped = WithStartupHook(argv, dir, {});
  ASSERT_EQ(wrapped.size(), 7u);
  EXPECT_EQ(wrapped[0], "bash");
  EXPECT_EQ(wrapped[1], "-c");
  EXPECT_NE(wrapped[2].find("source ./startup-hook.sh"), std::string::npos);
  EXPECT_EQ(wrapped[2].find("eval"), std::string::npos) << "no pool hook to run";
  EXPECT_EQ(wrapped[3], "startup-hook.sh");  // $0 of the wrapper; the entrypoint is "$@"
  EXPECT_EQ(std::vector<std::string>(wrapped.begin() + 4, wrapped.end()), argv);
  std::filesystem::remove_all(dir);
}

TEST(TaskEnvTest, ThePoolsStartupHookRunsFirstWithOrWithoutTheContextsOwn) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "pool_hook_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::string> wrapped =
      WithStartupHook({"true"}, dir, {{config::kStartupHookVariable, "export FROM_POOL=1"}});
  ASSERT_EQ(wrapped.size(), 5u);
  EXPECT_EQ(wrapped[0], "bash");
  const std::string& script = wrapped[2];
  EXPECT_LT(script.find(absl::StrCat("eval \"$", config::kStartupHookVariable, "\"")),
            script.find("source ./startup-hook.sh"));
  EXPECT_EQ(WithStartupHook({"true"}, dir, {{config::kStartupHookVariable, ""}}), std::vector<std::string>{"true"});
  std::filesystem::remove_all(dir);
}

TEST(TaskEnvTest, AStartupHookThatIsNotAFileIsIgnored) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "startup_hook_dir_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "startup-hook.sh");
  EXPECT_EQ(WithStartupHook({"true"}, dir, {}), std::vector<std::string>{"true"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace det::agent
