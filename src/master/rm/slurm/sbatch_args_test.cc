#include "master/rm/slurm/sbatch_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Refused(const std::vector<std::string>& args) {
  absl::Status s = CheckUserSbatchArgs(args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << "args accepted: " << args.size();
  return std::string(s.message());
}

TEST(SbatchArgsTest, UpstreamsMessageForGpusInShortForm) {
  // upstream's e2e unsupported-slurm-option.yaml: sbatch_args [-G7, --error=xxx]
  const std::string message = Refused({"-G7", "--error=xxx"});
  EXPECT_THAT(message, HasSubstr("slurm option -G is not configurable"));
  EXPECT_THAT(message, HasSubstr("slurm.sbatch_args \"--error=xxx\": slurm option --error is not configurable"));
}

TEST(SbatchArgsTest, RefusesEveryControlledOptionInEveryForm) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-G", "-G"},           {"--gpus=2", "--gpus"},     {"--gpus", "--gpus"},
      {"-N2", "-N"},          {"--nodes=2", "--nodes"},   {"--nodes 2", "--nodes"},
      {"-n", "-n"},           {"--ntasks=4", "--ntasks"}, {"--ntasks-per-node=2", "--ntasks-per-node"},
      {"-D/tmp", "-D"},       {"--chdir=/x", "--chdir"},  {"-e", "-e"},
      {"-o/x/%j.out", "-o"},  {"--output=x", "--output"}, {"-pdebug", "-p"},
      {"--partition=debug", "--partition"},             {"--part=debug", "--partition"},
      {"--requeue", "--requeue"},                        {"--gpus-per-node=1", "--gpus-per-node"},
      {"--gpus-per-task=1", "--gpus-per-task"},          {"-Jx", "-J"},
      {"--job-name=x", "--job-name"},                    {"--wckey=w", "--wckey"},
      {"--export=NONE", "--export"},                     {"--array=1-3", "--array"},
      {"--wrap=hostname", "--wrap"},                     {"-W", "-W"},
      {"--test-only", "--test-only"},                    {"-vN2", "-N"},
  };
  for (const auto& [arg, option] : cases) {
    EXPECT_THAT(Refused({arg}), HasSubstr("slurm option " + option + " is not configurable")) << arg;
  }
}

TEST(SbatchArgsTest, RefusesGpuGresButNotOtherGres) {
  EXPECT_THAT(Refused({"--gres=gpu:2"}), HasSubstr("--gres may not be used to configure GPU resources"));
  EXPECT_THAT(Refused({"--gres=nic:1,gpu:a100:1"}), HasSubstr("configure GPU resources"));
  EXPECT_THAT(Refused({"--gres", "gpu:1"}), HasSubstr("configure GPU resources"));
  EXPECT_THAT(Refused({"--gres gpu"}), HasSubstr("configure GPU resources"));
  EXPECT_TRUE(CheckUserSbatchArgs({"--gres=nic:1"}).ok());
  EXPECT_TRUE(CheckUserSbatchArgs({"--gres", "license:2"}).ok());
  EXPECT_TRUE(CheckUserSbatchArgs({"--gres-flags=enforce-binding"}).ok());
}

TEST(SbatchArgsTest, AllowsWhatTheUserControls) {
  EXPECT_TRUE(CheckUserSbatchArgs({}).ok());
  EXPECT_TRUE(CheckUserSbatchArgs({"--time=01:00:00", "--mem=4G", "-A", "proj", "--qos=high", "-c4",
                                   "--exclusive", "--constraint=a100", "-t", "10", "--nodelist=vm",
                                   "--ntasks-per-core=1", "--no-requeue", "--comment=x", "-v"})
                  .ok());
}

TEST(SbatchArgsTest, AValueInTheNextWordIsNotReadAsAnOption) {
  // -A's value "-N" is an account name, not -N.
  EXPECT_TRUE(CheckUserSbatchArgs({"-A", "-N"}).ok());
  EXPECT_TRUE(CheckUserSbatchArgs({"-t", "5", "-c", "2"}).ok());
}

TEST(SbatchArgsTest, BuildsDeterminedsOptionsThenTheUsers) {
  SubmitRequest r;
  r.partition = "gpu";
  r.job_name = "det-alloc-1";
  r.wckey = "proj";
  r.nodes = 2;
  r.gpus_per_node = 4;
  r.cpus_per_task = 8;
  r.output_path = "/jobs/alloc-1/%j.out";
  r.env = {{"DET_MASTER", "http://m:8080"}, {"A", "1"}};
  r.user_sbatch_args = {"--time=10", "--qos", "high"};
  auto args = SbatchArgs(r);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_THAT(*args, ElementsAre("--parsable", "--partition=gpu", "--job-name=det-alloc-1", "--wckey=proj",
                                 "--nodes=2", "--ntasks-per-node=1", "--cpus-per-task=8",
                                 "--gpus-per-node=4", "--output=/jobs/alloc-1/%j.out",
                                 "--export=ALL,A=1,DET_MASTER=http://m:8080", "--time=10", "--qos", "high"));
}

TEST(SbatchArgsTest, GresFormAndGpuType) {
  SubmitRequest r;
  r.gpus_per_node = 2;
  r.gpu_type = "a100";
  auto tres = SbatchArgs(r);
  ASSERT_TRUE(tres.ok());
  EXPECT_THAT(*tres, ::testing::Contains("--gpus-per-node=a100:2"));
  r.gres = true;
  auto gres = SbatchArgs(r);
  ASSERT_TRUE(gres.ok());
  EXPECT_THAT(*gres, ::testing::Contains("--gres=gpu:a100:2"));
  r.gpu_type = "";
  EXPECT_THAT(*SbatchArgs(r), ::testing::Contains("--gres=gpu:2"));
}

TEST(SbatchArgsTest, TasksSlurmPlacesEachWithItsGpus) {
  SubmitRequest r;
  r.ntasks = 2;
  r.gpus_per_task = 1;
  r.gpu_type = "h200";
  auto args = SbatchArgs(r);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_THAT(*args, ElementsAre("--parsable", "--ntasks=2", "--gpus-per-task=h200:1", "--export=ALL"));
  r.gres = true;
  EXPECT_THAT(SbatchArgs(r).status().message(), HasSubstr("gpus_per_task needs ntasks and TRES"));
}

TEST(SbatchArgsTest, MinimalRequestLeavesSlurmDefaults) {
  auto args = SbatchArgs(SubmitRequest{});
  ASSERT_TRUE(args.ok());
  EXPECT_THAT(*args, ElementsAre("--parsable", "--nodes=1", "--ntasks-per-node=1", "--export=ALL"));
}

TEST(SbatchArgsTest, RefusesBadRequests) {
  SubmitRequest r;
  r.nodes = 0;
  EXPECT_THAT(SbatchArgs(r).status().message(), HasSubstr("nodes must be >= 1, got 0"));
  r = {};
  r.env = {{"X", "a,b"}};
  EXPECT_THAT(SbatchArgs(r).status().message(), HasSubstr("X=\"a,b\" contains ','"));
  r = {};
  r.user_sbatch_args = {"-G7"};
  EXPECT_THAT(SbatchArgs(r).status().message(), HasSubstr("slurm option -G is not configurable"));
}

}  // namespace
}  // namespace det::master::slurm
