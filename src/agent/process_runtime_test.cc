#include "agent/process_runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/orphan_test_util.h"

namespace det::agent {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

// Records one task's callbacks and lets a test wait for its exit.
class Recorder {
 public:
  TaskCallbacks Callbacks() {
    TaskCallbacks cb;
    cb.on_started = [this](int pid) {
      std::lock_guard lock(mu_);
      started_pid_ = pid;
    };
    cb.on_line = [this](StdType type, std::string line) {
      std::lock_guard lock(mu_);
      (type == StdType::kStdout ? out_ : err_).push_back(std::move(line));
    };
    cb.on_exit = [this](int code) {
      std::lock_guard lock(mu_);
      exit_code_ = code;
      cv_.notify_all();
    };
    return cb;
  }

  // The exit code, or nullopt on timeout.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [this] { return exit_code_.has_value(); });
    return exit_code_;
  }
  std::vector<std::string> out() {
    std::lock_guard lock(mu_);
    return out_;
  }
  std::vector<std::string> err() {
    std::lock_guard lock(mu_);
    return err_;
  }
  int started_pid() {
    std::lock_guard lock(mu_);
    return started_pid_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> out_, err_;
  std::optional<int> exit_code_;
  int started_pid_ = 0;
};

bool WaitGoneOrZombie(int pid) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    if (!(stat >> pid_field >> comm >> state) || state == "Z") return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

class ProcessRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/det-agent-rt-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    runtime_ = std::make_unique<ProcessRuntime>(state_root(), DET_TASK_SHIM);
  }
  void TearDown() override {
    runtime_.reset();
    for (int pid : orphans_) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path state_root() const { return dir_ / "runtime"; }

  TaskSpec Shell(const std::string& id, const std::string& script) {
    return TaskSpec{id, {"sh", "-c", script}, {{"PATH", "/usr/bin:/bin"}}, dir_};
  }

  // A dead agent's task, left running.
  int StartOrphan(const std::string& id, const std::string& script) {
    int pid = StartOrphanTask(state_root(), id, script, "annotation of " + id, dir_);
    EXPECT_GT(pid, 0);
    orphans_.push_back(pid);
    return pid;
  }

  // Waits until `path` holds `text`.
  static bool WaitForContent(const std::filesystem::path& path, const std::string& text) {
    for (int i = 0; i < 500; ++i) {
      std::ifstream in(path);
      std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (content == text) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  std::filesystem::path dir_;
  std::unique_ptr<ProcessRuntime> runtime_;
  std::vector<int> orphans_;
};

TEST_F(ProcessRuntimeTest, CapturesStdoutStderrAndExitCode) {
  Recorder r;
  absl::StatusOr<int> pid = runtime_->Start(
      Shell("t1", "echo out; echo err >&2; printf 'a\\rb\\r\\nno-newline'; exit 3"), r.Callbacks());
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(r.started_pid(), *pid);
  EXPECT_EQ(r.WaitExit(), 3);
  EXPECT_THAT(r.out(), ElementsAre("out", "a", "b", "no-newline"));
  EXPECT_THAT(r.err(), ElementsAre("err"));
  EXPECT_TRUE(runtime_->RunningTasks().empty());
}

TEST_F(ProcessRuntimeTest, AppliesEnvironmentAndWorkingDirectory) {
  Recorder r;
  TaskSpec spec =
      Shell("t1", "echo \"$FOO\"; pwd; echo \"${HOME:-unset}\"; cat; cut -d' ' -f5 /proc/$$/stat");
  spec.env["FOO"] = "bar baz";
  ASSERT_TRUE(runtime_->Start(spec, r.Callbacks()).ok());
  EXPECT_EQ(r.WaitExit(), 0);
  std::vector<std::string> out = r.out();
  ASSERT_GE(out.size(), 3u);
  EXPECT_EQ(out[0], "bar baz");
  EXPECT_EQ(std::filesystem::canonical(out[1]), std::filesystem::canonical(dir_));
  EXPECT_EQ(out[2], "unset");  // nothing leaks from the agent's environment
  // stdin is /dev/null, so `cat` ends at once; the task leads its own process group.
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[3], std::to_string(r.started_pid()));
}

TEST_F(ProcessRuntimeTest, KillSendsSigtermToTheGroup) {
  Recorder r;
  ASSERT_TRUE(runtime_->Start(Shell("t1", "sleep 100"), r.Callbacks()).ok());
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(runtime_->Kill("t1", 5s).ok());
  EXPECT_EQ(r.WaitExit(), 128 + SIGTERM);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(ProcessRuntimeTest, SigkillAfterGraceWhenSigtermIsIgnored) {
  Recorder r;
  ASSERT_TRUE(runtime_
                  ->Start(Shell("t1", "trap '' TERM; echo ready; while :; do sleep 0.05; done"),
                         r.Callbacks())
                  .ok());
  // Wait until the trap is installed, or SIGTERM could land first.
  for (int i = 0; i < 200 && r.out().empty(); ++i) std::this_thread::sleep_for(10ms);
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(runtime_->Kill("t1", 300ms).ok());
  EXPECT_EQ(r.WaitExit(), 128 + SIGKILL);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 290ms);
  EXPECT_LT(took, 2s);
}

TEST_F(ProcessRuntimeTest, KillsLeftoversOfTheGroupWhenMainExits) {
  Recorder r;
  // The background sleep keeps stdout open; the runtime must not wait for it.
  ASSERT_TRUE(runtime_->Start(Shell("t1", "sleep 100 & echo bg $!"), r.Callbacks()).ok());
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(r.WaitExit(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
  std::vector<std::string> out = r.out();
  ASSERT_EQ(out.size(), 1u);
  int bg = std::stoi(out[0].substr(3));
  // The straggler is gone (or a zombie, reparented to an init that has not reaped it yet).
  EXPECT_TRUE(WaitGoneOrZombie(bg));
}

TEST_F(ProcessRuntimeTest, ReportsUnknownCommand) {
  Recorder r;
  absl::StatusOr<int> pid = runtime_->Start(
      TaskSpec{"t1", {"no-such-command-xyz"}, {{"PATH", "/usr/bin:/bin"}}, dir_}, r.Callbacks());
  ASSERT_FALSE(pid.ok());
  EXPECT_THAT(pid.status().message(), HasSubstr("no-such-command-xyz"));
  EXPECT_EQ(r.started_pid(), 0);
}

TEST_F(ProcessRuntimeTest, ReportsExecFailure) {
  std::filesystem::path script = dir_ / "not-executable.sh";
  std::ofstream(script) << "echo hi\n";
  Recorder r;
  absl::StatusOr<int> pid =
      runtime_->Start(TaskSpec{"t1", {"./not-executable.sh"}, {}, dir_}, r.Callbacks());
  ASSERT_FALSE(pid.ok());
  EXPECT_THAT(pid.status().message(), HasSubstr("Permission denied"));
}

TEST_F(ProcessRuntimeTest, RejectsDuplicateIdAndUnknownKill) {
  Recorder r1, r2;
  ASSERT_TRUE(runtime_->Start(Shell("t1", "sleep 100"), r1.Callbacks()).ok());
  EXPECT_EQ(runtime_->Start(Shell("t1", "true"), r2.Callbacks()).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(runtime_->RunningTasks(), ElementsAre("t1"));
  EXPECT_EQ(runtime_->Kill("nope", 1s).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(runtime_->Kill("t1", 0ms).ok());
  EXPECT_EQ(r1.WaitExit(), 128 + SIGKILL);
  EXPECT_TRUE(runtime_->WaitAll(1s));
}

TEST_F(ProcessRuntimeTest, ManyLinesArriveInOrder) {
  Recorder r;
  ASSERT_TRUE(
      runtime_
          ->Start(Shell("t1", "i=0; while [ $i -lt 3000 ]; do echo line$i; i=$((i+1)); done"),
                 r.Callbacks())
          .ok());
  EXPECT_EQ(r.WaitExit(), 0);
  std::vector<std::string> out = r.out();
  ASSERT_EQ(out.size(), 3000u);
  EXPECT_EQ(out.front(), "line0");
  EXPECT_EQ(out.back(), "line2999");
}

TEST_F(ProcessRuntimeTest, OutputAndExitStatusLiveInTheStateDirectoryUntilTheEnd) {
  Recorder r;
  TaskSpec spec = Shell("t1", "echo a; echo b >&2; while [ ! -e go ]; do sleep 0.02; done");
  spec.annotation = "start record";
  ASSERT_TRUE(runtime_->Start(spec, r.Callbacks()).ok());
  TaskState state(state_root() / "t1");
  EXPECT_TRUE(WaitForContent(state.stdout_path(), "a\n"));
  EXPECT_TRUE(WaitForContent(state.stderr_path(), "b\n"));
  EXPECT_EQ(state.ReadRecord()->annotation, "start record");
  std::ofstream(dir_ / "go").close();
  EXPECT_EQ(r.WaitExit(), 0);
  runtime_->WaitAll(5s);
  EXPECT_FALSE(std::filesystem::exists(state.dir())) << "removed once the exit was reported";
}

TEST_F(ProcessRuntimeTest, AcknowledgedLinesAreRecordedAsALogPosition) {
  Recorder r;
  ASSERT_TRUE(runtime_
                  ->Start(Shell("t1", "echo aa; echo b >&2; echo c; sleep 100"), r.Callbacks())
                  .ok());
  for (int i = 0; i < 500 && r.out().size() + r.err().size() < 3; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(r.out().size() + r.err().size(), 3u);
  TaskState state(state_root() / "t1");
  runtime_->Acknowledge("t1", 2);
  LogPosition position = state.ReadLogPosition();
  // Two of the three lines: "aa\n" and "b\n" if stderr's came second, else "aa\nc\n".
  EXPECT_TRUE((position.stdout_offset == 3 && position.stderr_offset == 2) ||
              (position.stdout_offset == 5 && position.stderr_offset == 0))
      << position.stdout_offset << " " << position.stderr_offset;
  runtime_->Acknowledge("t1", 1);  // going back is ignored
  EXPECT_EQ(state.ReadLogPosition().stdout_offset, position.stdout_offset);
  runtime_->Acknowledge("unknown", 1);
  ASSERT_TRUE(runtime_->Kill("t1", 0ms).ok());
  EXPECT_EQ(r.WaitExit(), 128 + SIGKILL);
}

TEST_F(ProcessRuntimeTest, AdoptsARunningOrphanFromItsLogPosition) {
  int pid = StartOrphan("t1", "echo one; echo two; while [ ! -e go ]; do sleep 0.02; done; "
                              "echo three; echo err >&2; exit 5");
  TaskState state(state_root() / "t1");
  ASSERT_TRUE(WaitForContent(state.stdout_path(), "one\ntwo\n"));
  ASSERT_TRUE(state.WriteLogPosition({4, 0}).ok());  // "one\n" was shipped by the dead agent

  std::vector<OrphanTask> orphans = runtime_->Orphans();
  ASSERT_EQ(orphans.size(), 1u);
  EXPECT_EQ(orphans[0].id, "t1");
  EXPECT_EQ(orphans[0].pid, pid);
  EXPECT_EQ(orphans[0].annotation, "annotation of t1");
  EXPECT_EQ(runtime_->Start(Shell("t1", "true"), Recorder().Callbacks()).status().code(),
            absl::StatusCode::kAlreadyExists);

  Recorder r;
  ASSERT_TRUE(runtime_->Adopt("t1", r.Callbacks()).ok());
  EXPECT_THAT(runtime_->RunningTasks(), ElementsAre("t1"));
  EXPECT_EQ(runtime_->Adopt("t1", r.Callbacks()).code(), absl::StatusCode::kNotFound);
  for (int i = 0; i < 500 && r.out().empty(); ++i) std::this_thread::sleep_for(10ms);
  std::ofstream(dir_ / "go").close();
  EXPECT_EQ(r.WaitExit(), 5);
  EXPECT_THAT(r.out(), ElementsAre("two", "three"));
  EXPECT_THAT(r.err(), ElementsAre("err"));
  EXPECT_EQ(r.started_pid(), 0) << "an adopted task was started before";
}

TEST_F(ProcessRuntimeTest, AdoptsAnOrphanThatEndedMeanwhile) {
  StartOrphan("t1", "echo done; exit 7");
  TaskState state(state_root() / "t1");
  ASSERT_TRUE(WaitForContent(state.exit_status_path(), "7\n"));
  ASSERT_EQ(runtime_->Orphans().size(), 1u);
  Recorder r;
  ASSERT_TRUE(runtime_->Adopt("t1", r.Callbacks()).ok());
  EXPECT_EQ(r.WaitExit(), 7);
  EXPECT_THAT(r.out(), ElementsAre("done"));
  EXPECT_EQ(runtime_->Kill("t1", 0ms).code(), absl::StatusCode::kNotFound);
}

TEST_F(ProcessRuntimeTest, KillsAnAdoptedTask) {
  StartOrphan("t1", "echo up; sleep 100");
  ASSERT_TRUE(WaitForContent(TaskState(state_root() / "t1").stdout_path(), "up\n"));
  ASSERT_EQ(runtime_->Orphans().size(), 1u);
  Recorder r;
  ASSERT_TRUE(runtime_->Adopt("t1", r.Callbacks()).ok());
  ASSERT_TRUE(runtime_->Kill("t1", 5s).ok());
  EXPECT_EQ(r.WaitExit(), 128 + SIGTERM);
}

TEST_F(ProcessRuntimeTest, UnreadableRecordsAreCleanedUp) {
  TaskState state(state_root() / "half-started");
  ASSERT_TRUE(state.Create().ok());
  EXPECT_TRUE(runtime_->Orphans().empty());
  EXPECT_FALSE(std::filesystem::exists(state.dir()));
}

}  // namespace
}  // namespace det::agent
