#include "master/rm/slurm/slurm_cli_client.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A temp dir of fake Slurm commands: each records its argv (one word a line) in NAME.argv and its
// stdin in NAME.stdin, then runs the body the test gave it.
class FakeSlurm {
 public:
  FakeSlurm() {
    char tmpl[] = "/tmp/fake-slurm-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  ~FakeSlurm() { std::filesystem::remove_all(dir_); }

  void Command(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n"
                        << "printf '%s\\n' \"$@\" > \"" << dir_ << "/" << name << ".argv\"\n"
                        << "cat > \"" << dir_ << "/" << name << ".stdin\"\n"
                        << "echo \"$SLURM_CONF\" > \"" << dir_ << "/" << name << ".env\"\n"
                        << body << "\n";
    ::chmod(path.c_str(), 0755);
  }
  std::string Read(const std::string& file) const {
    std::ifstream in(dir_ + "/" + file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  const std::string& dir() const { return dir_; }
  SlurmCliClient Client(std::chrono::milliseconds timeout = std::chrono::seconds(10)) const {
    SlurmCliOptions options;
    options.bin_dir = dir_;
    options.env = {{"SLURM_CONF", "/etc/test/slurm.conf"}};
    options.command_timeout = timeout;
    options.sudo = dir_ + "/sudo";
    return SlurmCliClient(options);
  }

 private:
  std::string dir_;
};

std::string FixtureCat(const std::string& name) {
  return "cat '" + std::string(std::filesystem::absolute(DET_SLURM_TESTDATA_DIR)) + "/" + name + "'";
}

TEST(SlurmCliClientTest, SubmitSendsTheScriptOnStdinAndReturnsTheId) {
  FakeSlurm slurm;
  slurm.Command("sbatch", "echo '42;cluster'");
  SubmitRequest r;
  r.partition = "gpu";
  r.job_name = "det-a1";
  r.gpus_per_node = 2;
  r.script = "#!/bin/sh\nsrun hostname\n";
  r.user_sbatch_args = {"--time=5"};
  auto id = slurm.Client().Submit(r);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, "42");
  EXPECT_EQ(slurm.Read("sbatch.stdin"), r.script);
  EXPECT_EQ(slurm.Read("sbatch.argv"),
            "--parsable\n--partition=gpu\n--job-name=det-a1\n--nodes=1\n--ntasks-per-node=1\n"
            "--gpus-per-node=2\n--export=ALL\n--time=5\n");
  EXPECT_EQ(slurm.Read("sbatch.env"), "/etc/test/slurm.conf\n");
}

TEST(SlurmCliClientTest, SubmitRunsThroughSudoAsTheTaskUser) {
  FakeSlurm slurm;
  slurm.Command("sbatch", "echo 7");
  // The fake sudo records its argv, then runs what follows "-u USER" (here: env K=V sbatch ...).
  slurm.Command("sudo", "shift 3; cat \"" + slurm.dir() + "/sudo.stdin\" | exec \"$@\"");
  SubmitRequest r;
  r.run_as_user = "alice";
  r.script = "#!/bin/sh\n";
  auto id = slurm.Client().Submit(r);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, "7");
  EXPECT_THAT(slurm.Read("sudo.argv"),
              HasSubstr("-n\n-u\nalice\nenv\nSLURM_CONF=/etc/test/slurm.conf\n" + slurm.dir() + "/sbatch\n"));
  EXPECT_EQ(slurm.Read("sbatch.stdin"), "#!/bin/sh\n");
}

TEST(SlurmCliClientTest, SubmitRefusalsCarrySbatchsText) {
  FakeSlurm slurm;
  slurm.Command("sbatch",
                "echo 'sbatch: error: Batch job submission failed: Requested node configuration is not "
                "available' >&2; exit 1");
  SubmitRequest r;
  r.script = "#!/bin/sh\n";
  absl::Status s = slurm.Client().Submit(r).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Batch job submission failed: Requested node configuration is not available"));

  slurm.Command("sbatch", "echo \"sbatch: unrecognized option '--bogus'\" >&2; exit 255");
  r.user_sbatch_args = {"--bogus"};
  EXPECT_THAT(slurm.Client().Submit(r).status().message(), HasSubstr("sbatch: unrecognized option"));
}

TEST(SlurmCliClientTest, SubmitRefusesControlledOptionsWithoutRunningSbatch) {
  FakeSlurm slurm;
  slurm.Command("sbatch", "echo 1");
  SubmitRequest r;
  r.user_sbatch_args = {"-G7"};
  absl::Status s = slurm.Client().Submit(r).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("slurm option -G is not configurable"));
  EXPECT_EQ(slurm.Read("sbatch.argv"), "");  // never ran
}

TEST(SlurmCliClientTest, JobsFiltersSqueueOutputByIds) {
  FakeSlurm slurm;
  slurm.Command("squeue", FixtureCat("squeue_mixed.json"));
  auto jobs = slurm.Client().Jobs({"2", "3", "99"});
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].state, "RUNNING");
  EXPECT_EQ((*jobs)[1].reason, "Resources");
  EXPECT_EQ(slurm.Read("squeue.argv"), "--json\n--jobs=2,3,99\n");
  auto all = slurm.Client().Jobs({});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 4u);
  EXPECT_EQ(slurm.Read("squeue.argv"), "--json\n");
}

TEST(SlurmCliClientTest, JobsErrors) {
  FakeSlurm slurm;
  slurm.Command("squeue",
                "echo 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2; exit 1");
  absl::Status s = slurm.Client().Jobs({}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("Unable to contact slurm controller"));
  slurm.Command("squeue", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
  auto none = slurm.Client().Jobs({"5"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(SlurmCliClientTest, SignalAndCancel) {
  FakeSlurm slurm;
  slurm.Command("scancel", "exit 0");
  EXPECT_TRUE(slurm.Client().Signal("12", 15).ok());
  EXPECT_EQ(slurm.Read("scancel.argv"), "--signal=15\n--full\n12\n");
  EXPECT_TRUE(slurm.Client().Cancel("12").ok());
  EXPECT_EQ(slurm.Read("scancel.argv"), "12\n");

  // 22.05 on a pending job: nothing to signal.
  slurm.Command("scancel",
                "echo 'scancel: error: Kill job error on job id 3: Job can not be altered now, try again later' "
                ">&2; exit 228");
  EXPECT_TRUE(slurm.Client().Signal("3", 15).ok());

  slurm.Command("scancel",
                "echo 'scancel: error: Kill job error on job id 999: Invalid job id specified' >&2; exit 1");
  EXPECT_EQ(slurm.Client().Signal("999", 15).code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(slurm.Client().Cancel("999").ok());

  slurm.Command("scancel", "echo 'scancel: error: Access/permission denied' >&2; exit 1");
  absl::Status denied = slurm.Client().Cancel("5");
  EXPECT_FALSE(denied.ok());
  EXPECT_THAT(denied.message(), HasSubstr("Access/permission denied"));
}

TEST(SlurmCliClientTest, NodesAndPartitions) {
  FakeSlurm slurm;
  slurm.Command("sinfo", FixtureCat("sinfo_idle.json"));
  slurm.Command("scontrol", FixtureCat("scontrol_show_partition.txt"));
  auto nodes = slurm.Client().Nodes();
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ((*nodes)[0].gpus, 2);
  auto partitions = slurm.Client().Partitions();
  ASSERT_TRUE(partitions.ok()) << partitions.status();
  ASSERT_EQ(partitions->size(), 2u);
  EXPECT_EQ((*partitions)[1].name, "gpu");
  EXPECT_EQ((*partitions)[1].total_gpus, 2);
  EXPECT_EQ(slurm.Read("scontrol.argv"), "show\npartition\n--oneliner\n");
}

TEST(SlurmCliClientTest, MissingProgramAndTimeout) {
  FakeSlurm slurm;
  EXPECT_EQ(slurm.Client().Nodes().status().code(), absl::StatusCode::kNotFound);
  slurm.Command("sinfo", "sleep 5");
  absl::Status s = slurm.Client(std::chrono::milliseconds(200)).Nodes().status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(s.message(), HasSubstr("ran longer than 200 ms"));
}

TEST(SlurmCliClientTest, ALargeScriptTravelsWhole) {
  FakeSlurm slurm;
  slurm.Command("sbatch", "echo 1");
  SubmitRequest r;
  r.script = "#!/bin/sh\n" + std::string(1 << 20, '#') + "\n";
  ASSERT_TRUE(slurm.Client().Submit(r).ok());
  EXPECT_EQ(slurm.Read("sbatch.stdin").size(), r.script.size());
}

}  // namespace
}  // namespace det::master::slurm
