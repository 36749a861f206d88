#include "agent/pod_launch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::agent {
namespace {

std::map<std::string, std::string> PodEnv() {
  return {{"DET_TASK_SPEC", R"({"entrypoint": ["python3", "train.py"], "work_dir": "", "download_context": true,
                                "pods": 2, "slots_per_pod": 4})"},
          {"DET_ALLOCATION_ID", "7.1.1"},
          {"DET_TASK_ID", "7.1"},
          {"DET_MASTER", "http://master:8080"},
          {"DET_SESSION_TOKEN", "tok"},
          {"JOB_COMPLETION_INDEX", "1"},
          {"PATH", "/usr/bin"},
          {"HOSTNAME", "det-7-1-1-1-abcde"}};
}

TEST(PodLaunchTest, ReadsTheLaunchAndThisPodsRank) {
  absl::StatusOr<PodLaunch> launch = ReadPodLaunch(PodEnv());
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(launch->entrypoint, (std::vector<std::string>{"python3", "train.py"}));
  EXPECT_EQ(launch->pods, 2);
  EXPECT_EQ(launch->slots_per_pod, 4);
  EXPECT_EQ(launch->rank, 1);
  EXPECT_EQ(launch->resources_id, "7.1.1.1") << "a gang's pods are told apart as the agents' processes are";
  EXPECT_EQ(launch->session_token, "tok");
}

TEST(PodLaunchTest, ASinglePodIsTheAllocationItself) {
  auto env = PodEnv();
  env["DET_TASK_SPEC"] = R"({"entrypoint": ["true"]})";
  env.erase("JOB_COMPLETION_INDEX");
  absl::StatusOr<PodLaunch> launch = ReadPodLaunch(env);
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(launch->resources_id, "7.1.1");
  EXPECT_EQ(launch->rank, 0);
}

TEST(PodLaunchTest, SaysWhatIsMissingOrWrong) {
  for (const auto& [name, value, want] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"DET_TASK_SPEC", "", "DET_TASK_SPEC is not set"},
           {"DET_TASK_SPEC", "{\"entrypoint\": []}", "non-empty \"entrypoint\""},
           {"DET_MASTER", "", "DET_MASTER is not set"},
           {"JOB_COMPLETION_INDEX", "x", "JOB_COMPLETION_INDEX: want a number"},
           {"JOB_COMPLETION_INDEX", "2", "not below the task's 2 pod(s)"}}) {
    auto env = PodEnv();
    env[name] = value;
    absl::StatusOr<PodLaunch> launch = ReadPodLaunch(env);
    ASSERT_FALSE(launch.ok()) << name;
    EXPECT_NE(launch.status().message().find(want), std::string::npos) << launch.status();
  }
}

TEST(PodLaunchTest, TheEntrypointGetsThePodsEnvironmentAndTheHarness) {
  absl::StatusOr<PodLaunch> launch = ReadPodLaunch(PodEnv());
  ASSERT_TRUE(launch.ok());
  auto env = PodTaskEnv(PodEnv(), *launch, "/opt/det/bin", "/run/determined/workdir", std::string("{\"r\":1}"));
  EXPECT_EQ(env["PATH"], "/opt/det/bin:/usr/bin");
  EXPECT_EQ(env["PYTHONPATH"].rfind("/opt/det/python", 0), 0u) << env["PYTHONPATH"];
  EXPECT_EQ(env["DET_WORKDIR"], "/run/determined/workdir");
  EXPECT_EQ(env["DET_RESOURCES_ID"], "7.1.1.1");
  EXPECT_EQ(env["DET_CONTAINER_ID"], "7.1.1.1");
  EXPECT_EQ(env["DET_RENDEZVOUS_INFO"], "{\"r\":1}");
  EXPECT_EQ(env["DET_SESSION_TOKEN"], "tok") << "the pod's variables pass through";
  EXPECT_EQ(env.count("DET_TASK_SPEC"), 0u) << "the runner's own input is not the task's";
}

TEST(PodLaunchTest, RendezvousReplyBecomesTheHarnessVariable) {
  absl::StatusOr<std::string> info =
      RendezvousInfoJson(R"({"rendezvousInfo": {"addresses": ["10.0.0.1", "10.0.0.2"], "rank": 1, "slots": [4, 4]}})");
  ASSERT_TRUE(info.ok()) << info.status();
  nlohmann::json parsed = nlohmann::json::parse(*info);
  EXPECT_EQ(parsed["container_addrs"], nlohmann::json({"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ(parsed["container_rank"], 1);
  EXPECT_EQ(parsed["container_slot_counts"], nlohmann::json({4, 4}));
  EXPECT_FALSE(RendezvousInfoJson("{}").ok());
}

std::map<std::string, std::string> SlurmTaskEnv() {
  auto env = PodEnv();
  env.erase("JOB_COMPLETION_INDEX");
  env["DET_TASK_SPEC"] = R"({"entrypoint": ["true"], "pods": 3, "slots_per_pod": 2, "platform": "slurm"})";
  env["SLURM_PROCID"] = "2";
  env["SLURM_NTASKS"] = "3";
  return env;
}

TEST(PodLaunchTest, OnSlurmTheRankIsTheTasksProcid) {
  absl::StatusOr<PodLaunch> launch = ReadPodLaunch(SlurmTaskEnv());
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(launch->platform, RunnerPlatform::kSlurm);
  EXPECT_EQ(launch->rank, 2);
  EXPECT_EQ(launch->resources_id, "7.1.1.2");
}

TEST(PodLaunchTest, OnSlurmTheStepMustHoldEveryProcess) {
  auto env = SlurmTaskEnv();
  env["SLURM_NTASKS"] = "1";
  absl::StatusOr<PodLaunch> launch = ReadPodLaunch(env);
  ASSERT_FALSE(launch.ok());
  EXPECT_NE(launch.status().message().find("SLURM_NTASKS \"1\" is not the task's 3 process(es)"), std::string::npos)
      << launch.status();
  env = SlurmTaskEnv();
  env["DET_TASK_SPEC"] = R"({"entrypoint": ["true"], "platform": "pbs"})";
  EXPECT_FALSE(ReadPodLaunch(env).ok());
}

TEST(PodLaunchTest, SlurmRendezvousLaysTasksOutInBlocksOverTheHosts) {
  absl::StatusOr<std::string> info = SlurmRendezvousJson("n1 n2 n3 n4", "2(x3),1", 5, 1);
  ASSERT_TRUE(info.ok()) << info.status();
  nlohmann::json parsed = nlohmann::json::parse(*info);
  EXPECT_EQ(parsed["container_addrs"], nlohmann::json({"n1", "n1", "n2", "n2", "n3", "n3", "n4"}));
  EXPECT_EQ(parsed["container_rank"], 5);
  EXPECT_EQ(parsed["container_slot_counts"], nlohmann::json({1, 1, 1, 1, 1, 1, 1}));

  info = SlurmRendezvousJson("vm", "2", 1, 1);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(nlohmann::json::parse(*info)["container_addrs"], nlohmann::json({"vm", "vm"}));

  EXPECT_FALSE(SlurmRendezvousJson("n1", "1(x2)", 0, 1).ok()) << "more nodes than hosts";
  EXPECT_FALSE(SlurmRendezvousJson("n1", "2(x", 0, 1).ok());
  EXPECT_FALSE(SlurmRendezvousJson("n1", "2", 2, 1).ok()) << "rank past the tasks";
}

}  // namespace
}  // namespace det::agent
