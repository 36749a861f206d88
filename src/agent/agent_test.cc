#include "agent/agent.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "agent/fake_log_sink.h"
#include "agent/orphan_test_util.h"
#include "agent/process_runtime.h"

namespace det::agent {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

// Stands in for the master link: records what the agent sends.
struct SentMessages {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<api::AgentMessage> messages;
  std::vector<std::function<void()>> on_written;
  // The shipped log lines at the moment each TaskExited was sent.
  std::vector<std::vector<std::string>> logs_at_exit;
  std::shared_ptr<FakeLogSink::Shared> sink;

  void Send(const api::AgentMessage& msg, std::function<void()> written) {
    std::vector<std::string> logs;
    if (std::holds_alternative<api::TaskExited>(msg)) logs = sink->Texts();
    std::lock_guard lock(mu);
    if (std::holds_alternative<api::TaskExited>(msg)) logs_at_exit.push_back(std::move(logs));
    messages.push_back(msg);
    if (written) on_written.push_back(std::move(written));
    cv.notify_all();
  }

  // Waits for the n-th TaskExited (1-based) and returns it.
  std::optional<api::TaskExited> WaitExit(size_t n = 1) {
    std::unique_lock lock(mu);
    std::optional<api::TaskExited> found;
    cv.wait_for(lock, 5s, [&] {
      size_t seen = 0;
      for (const auto& m : messages) {
        if (const auto* e = std::get_if<api::TaskExited>(&m); e && ++seen == n) {
          found = *e;
          return true;
        }
      }
      return false;
    });
    return found;
  }

  std::vector<std::string> Kinds() {
    std::lock_guard lock(mu);
    std::vector<std::string> kinds;
    for (const auto& m : messages) {
      kinds.push_back(std::holds_alternative<api::TaskStarted>(m)  ? "started"
                      : std::holds_alternative<api::TaskExited>(m) ? "exited"
                                                                   : "hello");
    }
    return kinds;
  }
};

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/det-agent-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    sent_.sink = sink_;
  }
  void TearDown() override {
    agent_.reset();
    std::filesystem::remove_all(dir_);
  }

  void MakeAgent() {
    AgentConfig config;
    config.agent_id = "agent-1";
    config.env.slots = {{.id = 0, .type = "cpu", .device = "cpu"}, {.id = 1, .type = "cpu", .device = "cpu"}};
    config.work_dir = dir_;
    config.env.master = *ParseMasterUrl("http://127.0.0.1:1234");
    config.env.agent_id = "agent-1";
    config.env.python_dir = "/opt/det/python";
    config.shutdown_grace = 500ms;
    AgentDeps deps;
    deps.runtime = std::make_unique<ProcessRuntime>(dir_ / "runtime", DET_TASK_SHIM);
    deps.send = [this](const api::AgentMessage& m, std::function<void()> w) {
      sent_.Send(m, std::move(w));
    };
    deps.make_log_sink = [this](const api::StartTask&, const LogMetadata& meta) {
      std::lock_guard lock(sent_.mu);  // launchers of several tasks run concurrently
      meta_ = meta;
      return std::make_unique<FakeLogSink>(sink_);
    };
    deps.download_context = [this](const api::StartTask& task, const std::filesystem::path& dest) {
      return download_(task, dest);
    };
    deps.log_options.flush_interval = 20ms;
    deps.log_options.first_retry_delay = 1ms;
    agent_ = std::make_unique<Agent>(config, std::move(deps));
  }

  static api::StartTask Task(const std::string& alloc, const std::string& script) {
    api::StartTask t;
    t.allocation_id = alloc;
    t.task_id = "task-" + alloc;
    t.entrypoint = {"sh", "-c", script};
    t.slot_ids = {0, 1};
    t.session_token = "tok";
    t.env = {{"DET_TRIAL_ID", "7"}};
    return t;
  }

  std::filesystem::path dir_;
  std::shared_ptr<FakeLogSink::Shared> sink_ = std::make_shared<FakeLogSink::Shared>();
  SentMessages sent_;
  LogMetadata meta_;
  std::function<absl::Status(const api::StartTask&, const std::filesystem::path&)> download_ =
      [](const api::StartTask&, const std::filesystem::path& dest) {
        std::ofstream(dest / "model_def.py") << "print('hi')\n";
        return absl::OkStatus();
      };
  std::unique_ptr<Agent> agent_;
};

TEST_F(AgentTest, HelloAnnouncesCpuSlots) {
  MakeAgent();
  api::AgentHello hello = agent_->Hello();
  ASSERT_EQ(hello.slots.size(), 2u);
  EXPECT_EQ(hello.slots[1].id, 1);
  EXPECT_EQ(hello.slots[1].type, "cpu");
  EXPECT_EQ(hello.slots[1].device, "cpu");
  EXPECT_THAT(hello.running_allocations, IsEmpty());
}

TEST_F(AgentTest, RunsTaskAndReportsExitAfterItsLogs) {
  MakeAgent();
  agent_->Handle(Task("a1",
                      "cat model_def.py; echo \"$DET_WORKDIR $DET_SLOT_IDS $DET_TRIAL_ID\"; "
                      "echo oops >&2; exit 4"));
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->allocation_id, "a1");
  EXPECT_EQ(exited->exit_code, 4);
  EXPECT_EQ(exited->error, "");
  EXPECT_THAT(sent_.Kinds(), ElementsAre("started", "exited"));
  std::string workdir = (dir_ / "tasks" / "a1").string();
  std::lock_guard lock(sent_.mu);
  ASSERT_EQ(sent_.logs_at_exit.size(), 1u);
  // Every line was shipped before the exit was reported.
  EXPECT_THAT(sent_.logs_at_exit[0],
              testing::UnorderedElementsAre("print('hi')", workdir + " [0,1] 7", "oops"));
  // (sent_.mu is held)
  EXPECT_EQ(meta_.task_id, "task-a1");
  EXPECT_EQ(meta_.allocation_id, "a1");
  EXPECT_EQ(meta_.agent_id, "agent-1");
  // The task's directory goes once its exit is reported.
  for (int i = 0; i < 100 && std::filesystem::exists(workdir); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(std::filesystem::exists(workdir));
}

TEST_F(AgentTest, RecoverAdoptsATaskAnEarlierAgentLeftRunning) {
  api::StartTask start = Task("a1", "");
  int pid = StartOrphanTask(dir_ / "runtime", "a1",
                            "echo before; while [ ! -e go ]; do sleep 0.02; done; echo after; exit 3",
                            api::Encode(api::MasterMessage(start)), dir_);
  ASSERT_GT(pid, 0);
  MakeAgent();
  agent_->Recover();
  EXPECT_THAT(agent_->Hello().running_allocations, ElementsAre("a1"));
  std::ofstream(dir_ / "go").close();
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->allocation_id, "a1");
  EXPECT_EQ(exited->exit_code, 3);
  EXPECT_THAT(sent_.Kinds(), ElementsAre("exited")) << "it was started before: no TaskStarted";
  std::lock_guard lock(sent_.mu);
  EXPECT_THAT(sent_.logs_at_exit[0], ElementsAre("before", "after"));
  EXPECT_EQ(meta_.task_id, "task-a1") << "shipped with the task's own StartTask";
  ::waitpid(pid, nullptr, 0);
}

TEST_F(AgentTest, DownloadFailureIsReportedAndLogged) {
  download_ = [](const api::StartTask&, const std::filesystem::path&) {
    return absl::UnavailableError("master away");
  };
  MakeAgent();
  agent_->Handle(Task("a1", "true"));
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code, -1);
  EXPECT_THAT(exited->error, HasSubstr("master away"));
  EXPECT_THAT(sent_.Kinds(), ElementsAre("exited"));
  std::vector<std::string> logs = sink_->Texts();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_THAT(logs[0], HasSubstr("master away"));
}

TEST_F(AgentTest, SkipsDownloadWhenNotAsked) {
  download_ = [](const api::StartTask&, const std::filesystem::path&) {
    return absl::InternalError("must not be called");
  };
  MakeAgent();
  api::StartTask t = Task("a1", "true");
  t.download_context = false;
  agent_->Handle(t);
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code, 0);
}

TEST_F(AgentTest, UnknownCommandIsReported) {
  MakeAgent();
  api::StartTask t = Task("a1", "");
  t.entrypoint = {"definitely-not-a-command"};
  agent_->Handle(t);
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code, -1);
  EXPECT_THAT(exited->error, HasSubstr("definitely-not-a-command"));
}

TEST_F(AgentTest, KillTaskTerminatesTheGroup) {
  MakeAgent();
  agent_->Handle(Task("a1", "echo up; sleep 100"));
  // Wait for the task to run before killing it.
  for (int i = 0; i < 200 && sink_->Texts().empty(); ++i) std::this_thread::sleep_for(10ms);
  agent_->Handle(api::KillTask{"a1", 5});
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code, 128 + SIGTERM);
}

TEST_F(AgentTest, KillWhileDownloadingPreventsTheStart) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  download_ = [released](const api::StartTask&, const std::filesystem::path&) {
    released.wait();
    return absl::OkStatus();
  };
  MakeAgent();
  agent_->Handle(Task("a1", "sleep 100"));
  EXPECT_THAT(agent_->Hello().running_allocations, ElementsAre("a1"));
  agent_->Handle(api::KillTask{"a1", 5});
  release.set_value();
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code, -1);
  EXPECT_THAT(exited->error, HasSubstr("killed before it started"));
  EXPECT_THAT(sent_.Kinds(), ElementsAre("exited"));
}

TEST_F(AgentTest, HelloListsExitsNotYetWritten) {
  MakeAgent();
  agent_->Handle(Task("a1", "true"));
  ASSERT_TRUE(sent_.WaitExit().has_value());
  EXPECT_THAT(agent_->Hello().running_allocations, ElementsAre("a1"));
  std::vector<std::function<void()>> written;
  {
    std::lock_guard lock(sent_.mu);
    written = sent_.on_written;
  }
  for (auto& w : written) w();
  EXPECT_THAT(agent_->Hello().running_allocations, IsEmpty());
}

TEST_F(AgentTest, KillOfUnknownAllocationAnswersWithExit) {
  MakeAgent();
  agent_->Handle(api::KillTask{"ghost", 1});
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->allocation_id, "ghost");
  EXPECT_EQ(exited->exit_code, -1);
}

TEST_F(AgentTest, RefusesUnsafeAllocationId) {
  MakeAgent();
  agent_->Handle(Task("../escape", "true"));
  std::optional<api::TaskExited> exited = sent_.WaitExit();
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code, -1);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "escape"));
}

TEST_F(AgentTest, DuplicateStartIsNotRunTwice) {
  MakeAgent();
  agent_->Handle(Task("a1", "echo once; sleep 100"));
  for (int i = 0; i < 200 && sink_->Texts().empty(); ++i) std::this_thread::sleep_for(10ms);
  agent_->Handle(Task("a1", "echo twice"));
  agent_->Handle(api::KillTask{"a1", 0});
  ASSERT_TRUE(sent_.WaitExit().has_value());
  EXPECT_THAT(sink_->Texts(), ElementsAre("once"));
  EXPECT_THAT(sent_.Kinds(), ElementsAre("started", "started", "exited"));
}

TEST_F(AgentTest, ShutdownKillsRunningTasks) {
  MakeAgent();
  agent_->Handle(Task("a1", "trap '' TERM; echo up; while :; do sleep 0.05; done"));
  agent_->Handle(Task("a2", "sleep 100"));
  for (int i = 0; i < 200 && sink_->Texts().empty(); ++i) std::this_thread::sleep_for(10ms);
  for (int i = 0; i < 200 && sent_.Kinds().size() < 2; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(agent_->Shutdown());
  std::vector<int> codes;
  {
    std::lock_guard lock(sent_.mu);
    for (const auto& m : sent_.messages) {
      if (const auto* e = std::get_if<api::TaskExited>(&m)) codes.push_back(e->exit_code);
    }
  }
  EXPECT_THAT(codes, testing::UnorderedElementsAre(128 + SIGKILL, 128 + SIGTERM));
  agent_->Handle(Task("a3", "true"));
  std::optional<api::TaskExited> refused = sent_.WaitExit(3);
  ASSERT_TRUE(refused.has_value());
  EXPECT_THAT(refused->error, HasSubstr("shutting down"));
}

}  // namespace
}  // namespace det::agent
