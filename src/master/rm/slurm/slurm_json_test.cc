#include "master/rm/slurm/slurm_json.h"

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(DET_SLURM_TESTDATA_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const SlurmJob* Find(const std::vector<SlurmJob>& jobs, const std::string& id) {
  for (const SlurmJob& j : jobs) {
    if (j.id == id) return &j;
  }
  return nullptr;
}

TEST(SlurmJsonTest, SqueueRunningPendingAndFailedJobs) {
  auto jobs = ParseSqueueJson(Fixture("squeue_mixed.json"));
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 4u);

  const SlurmJob* failed = Find(*jobs, "1");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->name, "det-failed");
  EXPECT_EQ(failed->state, "FAILED");
  EXPECT_EQ(failed->reason, "NonZeroExitCode");
  EXPECT_EQ(failed->exit_code, 3);  // the script's "exit 3" (wait status 768)
  EXPECT_THAT(failed->nodes, ElementsAre("vm"));

  const SlurmJob* running = Find(*jobs, "2");
  ASSERT_NE(running, nullptr);
  EXPECT_EQ(running->state, "RUNNING");
  EXPECT_EQ(running->reason, "");  // "None"
  EXPECT_EQ(running->partition, "gpu");
  EXPECT_THAT(running->nodes, ElementsAre("vm"));
  EXPECT_EQ(running->exit_code, std::nullopt);

  const SlurmJob* pending = Find(*jobs, "3");
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->name, "det-pending");
  EXPECT_EQ(pending->state, "PENDING");
  EXPECT_EQ(pending->reason, "Resources");
  EXPECT_TRUE(pending->nodes.empty());
  EXPECT_EQ(pending->exit_code, std::nullopt);
}

TEST(SlurmJsonTest, SqueueCancelledAndUnsatisfiableJobs) {
  auto jobs = ParseSqueueJson(Fixture("squeue_all_states.json"));
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(Find(*jobs, "4")->state, "CANCELLED");
  EXPECT_EQ(Find(*jobs, "4")->exit_code, 0);
  EXPECT_EQ(Find(*jobs, "5")->reason, "PartitionConfig");
  EXPECT_EQ(Find(*jobs, "7")->state, "FAILED");
  EXPECT_EQ(Find(*jobs, "7")->reason, "BadConstraints");
  // 22.05 ignores -j with --json: every job comes back.
  auto j23 = ParseSqueueJson(Fixture("squeue_j23.json"));
  ASSERT_TRUE(j23.ok());
  EXPECT_EQ(j23->size(), 4u);
}

TEST(SlurmJsonTest, SqueueLaterShapes) {
  // 23.02+: job_state a list, numbers as {set,infinite,number}, exit_code an object.
  auto jobs = ParseSqueueJson(R"({"jobs": [
      {"job_id": 9, "job_state": ["FAILED"], "state_reason": "NonZeroExitCode", "nodes": "n[01-02]",
       "exit_code": {"status": ["EXIT_CODE"], "return_code": {"set": true, "infinite": false, "number": 2}}},
      {"job_id": {"set": true, "infinite": false, "number": 10}, "job_state": ["CANCELLED"],
       "exit_code": {"status": ["SIGNALED"], "return_code": {"set": false, "number": 0},
                     "signal": {"signal_id": {"set": true, "number": 15}, "name": "TERM"}}}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].state, "FAILED");
  EXPECT_EQ((*jobs)[0].exit_code, 2);
  EXPECT_THAT((*jobs)[0].nodes, ElementsAre("n01", "n02"));
  EXPECT_EQ((*jobs)[1].id, "10");
  EXPECT_EQ((*jobs)[1].exit_code, 128 + 15);
}

TEST(SlurmJsonTest, SqueueToleratesMissingFieldsAndNamesMalformedOnes) {
  auto minimal = ParseSqueueJson(R"({"jobs": [{"job_id": 5}]})");
  ASSERT_TRUE(minimal.ok()) << minimal.status();
  EXPECT_EQ((*minimal)[0].id, "5");
  EXPECT_TRUE(ParseSqueueJson(R"({"meta": {}})")->empty());

  EXPECT_THAT(ParseSqueueJson("slurm_load_jobs error").status().message(),
              HasSubstr("squeue --json: output is not a JSON object"));
  EXPECT_THAT(ParseSqueueJson(R"({"jobs": [{"job_id": 5, "name": 3}]})").status().message(),
              HasSubstr("squeue --json: jobs[0].name: expected a string, got 3"));
  EXPECT_THAT(ParseSqueueJson(R"({"jobs": [{"name": "x"}]})").status().message(),
              HasSubstr("jobs[0]: no job_id"));
  EXPECT_THAT(ParseSqueueJson(R"({"jobs": {}})").status().message(), HasSubstr("jobs: expected a list"));
  absl::Status errors =
      ParseSqueueJson(R"({"errors": [{"error": "Unable to contact slurm controller", "errno": 1}], "jobs": []})")
          .status();
  EXPECT_EQ(errors.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(errors.message(), HasSubstr("Unable to contact slurm controller"));
}

TEST(SlurmJsonTest, SinfoNodesWithGpus) {
  auto idle = ParseSinfoJson(Fixture("sinfo_idle.json"));
  ASSERT_TRUE(idle.ok()) << idle.status();
  ASSERT_EQ(idle->size(), 1u);
  EXPECT_EQ((*idle)[0].name, "vm");
  EXPECT_EQ((*idle)[0].state, "idle");
  EXPECT_EQ((*idle)[0].cpus, 2);
  EXPECT_EQ((*idle)[0].gpus, 2);
  EXPECT_EQ((*idle)[0].gpu_type, "a100");
  EXPECT_THAT((*idle)[0].partitions, ElementsAre("debug", "gpu"));

  auto allocated = ParseSinfoJson(Fixture("sinfo_allocated.json"));
  ASSERT_TRUE(allocated.ok());
  EXPECT_EQ((*allocated)[0].state, "allocated");
  EXPECT_THAT(ParseSinfoJson(R"({"nodes": [{"name": "a", "cpus": "x"}]})").status().message(),
              HasSubstr("sinfo --json: nodes[0].cpus: expected a number"));
}

TEST(SlurmJsonTest, ScontrolPartitionsWithGpusFromNodes) {
  auto nodes = ParseSinfoJson(Fixture("sinfo_idle.json"));
  ASSERT_TRUE(nodes.ok());
  auto partitions = ParseScontrolPartitions(Fixture("scontrol_show_partition.txt"), *nodes);
  ASSERT_TRUE(partitions.ok()) << partitions.status();
  ASSERT_EQ(partitions->size(), 2u);
  EXPECT_EQ((*partitions)[0].name, "debug");
  EXPECT_TRUE((*partitions)[0].is_default);
  EXPECT_EQ((*partitions)[0].state, "UP");
  EXPECT_EQ((*partitions)[0].total_cpus, 2);
  EXPECT_EQ((*partitions)[0].total_gpus, 2);
  EXPECT_THAT((*partitions)[0].nodes, ElementsAre("vm"));
  EXPECT_EQ((*partitions)[1].name, "gpu");
  EXPECT_FALSE((*partitions)[1].is_default);
  EXPECT_THAT(ParseScontrolPartitions("Nodes=vm\n", {}).status().message(), HasSubstr("line 1 has no PartitionName"));
}

TEST(SlurmJsonTest, HostListsAndGres) {
  EXPECT_THAT(*ExpandHostList("vm"), ElementsAre("vm"));
  EXPECT_THAT(*ExpandHostList("n[1-3,7],gpu[08-10]x"),
              ElementsAre("n1", "n2", "n3", "n7", "gpu08x", "gpu09x", "gpu10x"));
  EXPECT_TRUE(ExpandHostList("")->empty());
  EXPECT_FALSE(ExpandHostList("n[1-").ok());
  EXPECT_FALSE(ExpandHostList("n[a-b]").ok());
  std::string type;
  EXPECT_EQ(GpusInGres("gpu:a100:2(S:0-1),nic:1", &type), 2);
  EXPECT_EQ(type, "a100");
  EXPECT_EQ(GpusInGres("gpu:4"), 4);
  EXPECT_EQ(GpusInGres("gpu"), 1);
  EXPECT_EQ(GpusInGres("gpu:a100:2,gpu:v100:1"), 3);
  EXPECT_EQ(GpusInGres(""), 0);
  EXPECT_EQ(GpusInGres("(null)"), 0);
}

}  // namespace
}  // namespace det::master::slurm
