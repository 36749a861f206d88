#include "cli/local_cluster.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "cli/process_util.h"
#include "common/file_util.h"
#include "common/test_temp_dir.h"

namespace det::cli {
namespace {

namespace fs = std::filesystem;

class LocalClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = dir_ / "bin";
    data_ = dir_ / "data";
    fs::create_directories(bin_);
  }
  void TearDown() override {
    for (pid_t pid : Pids()) {
      if (ProcessAlive(pid)) ::kill(pid, SIGKILL);
    }
  }

  void Script(const std::string& name, const std::string& body) {
    fs::path p = bin_ / name;
    ASSERT_TRUE(
        WriteFile(p, "#!/bin/sh\necho $$ >> " + (dir_ / "pids").string() + "\n" + body).ok());
    ::chmod(p.c_str(), 0755);
  }

  // A daemon that runs until SIGTERM.
  static std::string Forever() { return "trap 'exit 0' TERM\nwhile true; do sleep 0.05; done\n"; }

  std::vector<pid_t> Pids() {
    std::vector<pid_t> out;
    absl::StatusOr<std::string> text = ReadFile(dir_ / "pids");
    if (!text.ok()) return out;
    for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
      int pid = 0;
      if (absl::SimpleAtoi(line, &pid)) out.push_back(pid);
    }
    return out;
  }

  ClusterUpOptions Options() {
    ClusterUpOptions o;
    o.agents = 2;
    o.slots = 1;
    o.master_port = 0;
    o.data_dir = data_;
    o.bin_dir = bin_;
    o.timeout_seconds = 2;
    return o;
  }

  TestTempDir tmp_{"det_cli_local"};
  const fs::path dir_ = tmp_.path();
  fs::path bin_, data_;
};

TEST(ClusterRecordTest, JsonRoundTrip) {
  ClusterRecord r{"http://127.0.0.1:8080", 100, {101, 102}};
  nlohmann::json j = ClusterRecordToJson(r);
  EXPECT_EQ(j["master_url"], "http://127.0.0.1:8080");
  EXPECT_EQ(j["master_pid"], 100);
  EXPECT_EQ(j["agent_pids"], nlohmann::json({101, 102}));
  absl::StatusOr<ClusterRecord> back = ClusterRecordFromJson(j);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->master_url, r.master_url);
  EXPECT_EQ(back->master_pid, 100);
  EXPECT_EQ(back->agent_pids, (std::vector<pid_t>{101, 102}));
  EXPECT_FALSE(ClusterRecordFromJson(nlohmann::json::array()).ok());
}

TEST(LocalClusterDefaultsTest, DataDirFromEnv) {
  ::setenv("DET_LOCAL_DATA_DIR", "/somewhere/det", 1);
  EXPECT_EQ(DefaultLocalDataDir(), fs::path("/somewhere/det"));
  ::unsetenv("DET_LOCAL_DATA_DIR");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultLocalDataDir(), fs::path("/home/u/.local/share/determined-cpp/local"));
}

TEST_F(LocalClusterTest, MissingBinariesAreNamed) {
  absl::StatusOr<int> r = ClusterUp(Options(), std::cout);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("determined-master"), std::string::npos);
}

TEST_F(LocalClusterTest, MasterDyingAtStartupIsReported) {
  Script("determined-master", "echo boom: port in use\nexit 3\n");
  Script("determined-agent", Forever());
  absl::StatusOr<int> r = ClusterUp(Options(), std::cout);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("exited with status 3"), std::string::npos) << r.status();
  absl::StatusOr<std::string> log = ReadFile(data_ / "master.log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("boom"), std::string::npos);
  EXPECT_FALSE(fs::exists(data_ / "cluster.json"));
}

TEST_F(LocalClusterTest, TimeoutStopsEverythingItStarted) {
  // The fake master announces port 1, where nothing listens, so the agents never show up.
  Script("determined-master",
         "while [ $# -gt 0 ]; do case \"$1\" in --port-file) pf=\"$2\"; shift;; esac; shift; done\n"
         "echo 1 > \"$pf\"\n" +
             Forever());
  Script("determined-agent", "echo \"agent args: $*\"\n" + Forever());
  absl::StatusOr<int> r = ClusterUp(Options(), std::cout);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_NE(r.status().message().find("0 of 2 agents"), std::string::npos) << r.status();
  std::vector<pid_t> pids = Pids();
  ASSERT_EQ(pids.size(), 3u);
  for (pid_t pid : pids) EXPECT_FALSE(ProcessAlive(pid)) << pid;
  EXPECT_FALSE(fs::exists(data_ / "cluster.json"));
  absl::StatusOr<std::string> log = ReadFile(data_ / "agent-1.log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("--master-url http://127.0.0.1:1 --id agent-1 --slots 1 --work-dir " +
                      (data_ / "agent-1").string()),
            std::string::npos)
      << *log;
}

TEST_F(LocalClusterTest, DownStopsRecordedProcessesAndUpRefusesWhileRunning) {
  Script("determined-master", Forever());
  Script("determined-agent", Forever());
  fs::create_directories(data_);
  absl::StatusOr<pid_t> master =
      SpawnDaemon({(bin_ / "determined-master").string()}, data_ / "m.log");
  absl::StatusOr<pid_t> agent =
      SpawnDaemon({(bin_ / "determined-agent").string()}, data_ / "a.log");
  ASSERT_TRUE(master.ok() && agent.ok());
  ClusterRecord rec{"http://127.0.0.1:1", *master, {*agent}};
  ASSERT_TRUE(WriteFile(data_ / "cluster.json", ClusterRecordToJson(rec).dump()).ok());
  // Wait until both scripts run (their command lines name the binaries).
  for (int i = 0; i < 100 && (Pids().size() < 2); ++i) ::usleep(20000);

  absl::StatusOr<int> up = ClusterUp(Options(), std::cout);
  ASSERT_FALSE(up.ok());
  EXPECT_EQ(up.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(up.status().message().find("cluster-down"), std::string::npos);

  std::ostringstream out;
  absl::StatusOr<int> down = ClusterDown(data_, out);
  ASSERT_TRUE(down.ok()) << down.status();
  EXPECT_EQ(*down, 0);
  EXPECT_FALSE(ProcessAlive(*master));
  EXPECT_FALSE(ProcessAlive(*agent));
  EXPECT_FALSE(fs::exists(data_ / "cluster.json"));
  EXPECT_NE(out.str().find("master (pid"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("1 agent"), std::string::npos) << out.str();

  std::ostringstream again;
  ASSERT_TRUE(ClusterDown(data_, again).ok());
  EXPECT_NE(again.str().find("nothing to stop"), std::string::npos);
}

TEST_F(LocalClusterTest, SpawnDaemonReportsExecFailure) {
  absl::StatusOr<pid_t> r = SpawnDaemon({(bin_ / "nope").string()}, dir_ / "x.log");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nope"), std::string::npos);
}

TEST(ProcessUtilTest, TailOfFile) {
  char tmpl[] = "/tmp/det_cli_tail_XXXXXX";
  int fd = ::mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ASSERT_TRUE(WriteFile(tmpl, "a\nb\nc\nd\n").ok());
  EXPECT_EQ(TailOfFile(tmpl, 2), "c\nd\n");
  EXPECT_EQ(TailOfFile(tmpl, 10), "a\nb\nc\nd\n");
  ::unlink(tmpl);
  EXPECT_EQ(TailOfFile("/nonexistent/file", 3), "");
}

}  // namespace
}  // namespace det::cli
