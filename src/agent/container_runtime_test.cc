// The container runtime over an in-memory engine (a ContainerEngine fake in this file): tasks with a container
// run in one, the others go to the wrapped runtime; output is delivered in lines, the exit follows it and the
// container goes; kill is TERM then KILL; a new runtime adopts the containers the engine lists with its agent's
// label, skipping acknowledged lines, and removes those it has no record of.
// Real engines are the end-to-end tests' (tests/e2e/test_containers.py).
#include "agent/container_runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "common/test_temp_dir.h"

namespace det::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FakeEngine : public ContainerEngine {
 public:
  absl::StatusOr<std::string> Describe() override { return "fake"; }
  absl::StatusOr<bool> HasImage(const std::string&) override { return true; }
  absl::Status Pull(const std::string&, const std::optional<RegistryAuth>&,
                    const std::function<void(const PullMessage&)>&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Create(const ContainerConfig& config) override {
    std::lock_guard lock(mu);
    created.push_back(config);
    const std::string id = "c" + std::to_string(created.size());
    containers[id] = {.labels = config.labels};
    return id;
  }
  absl::StatusOr<int> Start(const std::string&) override { return 4242; }
  absl::Status FollowOutput(const std::string& id,
                            const std::function<void(StdType, std::string_view)>& on_output) override {
    std::unique_lock lock(mu);
    size_t sent = 0;
    while (true) {
      auto& c = containers[id];
      while (sent < c.output.size()) {
        auto [type, data] = c.output[sent++];
        lock.unlock();
        on_output(type, data);
        lock.lock();
      }
      if (c.exit_code) return absl::OkStatus();
      changed.wait(lock);
    }
  }
  absl::StatusOr<int> Wait(const std::string& id) override {
    std::unique_lock lock(mu);
    changed.wait(lock, [&] { return containers[id].exit_code.has_value(); });
    return *containers[id].exit_code;
  }
  absl::Status Kill(const std::string& id, const std::string& signal) override {
    std::lock_guard lock(mu);
    calls.push_back(signal);
    if (signal == "SIGKILL" || !ignore_term) containers[id].exit_code = signal == "SIGKILL" ? 137 : 143;
    changed.notify_all();
    return absl::OkStatus();
  }
  absl::Status Remove(const std::string& id) override {
    std::lock_guard lock(mu);
    calls.push_back("remove " + id);
    if (auto it = containers.find(id); it != containers.end()) it->second.removed = true;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<ListedContainer>> List(const std::string& key, const std::string& value) override {
    std::lock_guard lock(mu);
    if (!list_error.ok()) return list_error;
    std::vector<ListedContainer> out;
    for (const auto& [id, c] : containers) {
      auto label = c.labels.find(key);
      if (!c.removed && label != c.labels.end() && label->second == value) out.push_back({id, c.labels});
    }
    return out;
  }

  void Print(const std::string& id, StdType type, const std::string& data) {
    std::lock_guard lock(mu);
    containers[id].output.emplace_back(type, data);
    changed.notify_all();
  }
  void Exit(const std::string& id, int code) {
    std::lock_guard lock(mu);
    containers[id].exit_code = code;
    changed.notify_all();
  }

  struct Fake {
    std::map<std::string, std::string> labels;
    std::vector<std::pair<StdType, std::string>> output;
    std::optional<int> exit_code;
    bool removed = false;
  };
  std::mutex mu;
  std::condition_variable changed;
  std::vector<ContainerConfig> created;
  std::map<std::string, Fake> containers;
  std::vector<std::string> calls;
  bool ignore_term = false;
  absl::Status list_error;
};

// A runtime that must not be used: every task here has a container.
class NoProcesses : public TaskRuntime {
 public:
  absl::StatusOr<int> Start(const TaskSpec& spec, TaskCallbacks) override {
    started.push_back(spec.id);
    return 42;
  }
  absl::Status Kill(const std::string&, std::chrono::milliseconds) override { return absl::NotFoundError("none"); }
  std::vector<std::string> RunningTasks() const override { return {}; }
  void Acknowledge(const std::string&, uint64_t) override {}
  std::vector<OrphanTask> Orphans() override { return {}; }
  absl::Status Adopt(const std::string&, TaskCallbacks) override { return absl::NotFoundError("none"); }
  bool WaitAll(std::chrono::milliseconds) override { return true; }
  std::vector<std::string> started;
};

struct Recorded {
  std::mutex mu;
  std::vector<std::string> lines;
  std::optional<int> exit_code;
  TaskCallbacks Callbacks() {
    return {.on_started = [](int) {},
            .on_line = [this](StdType t, std::string l) {
              std::lock_guard lock(mu);
              lines.push_back((t == StdType::kStderr ? "err: " : "") + l);
            },
            .on_exit = [this](int code) {
              std::lock_guard lock(mu);
              exit_code = code;
            }};
  }
};

class ContainerRuntimeTest : public ::testing::Test {
 protected:
  std::unique_ptr<ContainerRuntime> MakeRuntime() {
    auto processes = std::make_unique<NoProcesses>();
    processes_ = processes.get();
    return std::make_unique<ContainerRuntime>(
        std::move(processes), engine_,
        ContainerRuntimeOptions{.agent_id = "agent-1", .state_root = tmp_.path(),
                                .read_only_dirs = {"/opt/det/bin"}, .library_path = "/opt/det/lib"});
  }
  TaskSpec Spec(const std::string& id) {
    return TaskSpec{.id = id, .argv = {"python3", "train.py"}, .env = {{"PATH", "/opt/det/bin:/usr/bin"}},
                    .work_dir = "/tasks/" + id, .annotation = "start-" + id,
                    .user = TaskSpec::User{.uid = 1001, .gid = 1002},
                    .container = ContainerSettings{.image = "det-test/python:bookworm", .binds = {"/tasks/" + id + ":/tasks/" + id}}};
  }
  bool WaitExit(Recorded& r) {
    for (int i = 0; i < 2000; ++i) {
      {
        std::lock_guard lock(r.mu);
        if (r.exit_code) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }

  TestTempDir tmp_{"det_container_runtime"};
  std::shared_ptr<FakeEngine> engine_ = std::make_shared<FakeEngine>();
  NoProcesses* processes_ = nullptr;
};

TEST_F(ContainerRuntimeTest, RunsTheTaskInItsContainerAndReportsItsLinesThenItsExit) {
  auto runtime = MakeRuntime();
  Recorded r;
  EXPECT_EQ(*runtime->Start(Spec("a1"), r.Callbacks()), 4242) << "the container's first process";
  ASSERT_EQ(engine_->created.size(), 1u);
  const ContainerConfig& c = engine_->created[0];
  EXPECT_EQ(c.name, "det-a1");
  EXPECT_EQ(c.settings.image, "det-test/python:bookworm");
  EXPECT_EQ(c.entrypoint, (std::vector<std::string>{"python3", "train.py"}));
  EXPECT_EQ(c.user, "1001:1002");
  EXPECT_EQ(c.work_dir, "/tasks/a1");
  EXPECT_EQ(c.env.at("LD_LIBRARY_PATH"), "/opt/det/lib");
  EXPECT_EQ(c.labels.at("ai.determined.allocation"), "a1");
  EXPECT_THAT(c.settings.binds, ElementsAre("/tasks/a1:/tasks/a1", "/opt/det/bin:/opt/det/bin:ro"));
  EXPECT_THAT(runtime->RunningTasks(), ElementsAre("a1"));
  engine_->Print("c1", StdType::kStdout, "one\ntw");
  engine_->Print("c1", StdType::kStderr, "oops\n");
  engine_->Print("c1", StdType::kStdout, "o\n");
  engine_->Exit("c1", 3);
  ASSERT_TRUE(WaitExit(r));
  EXPECT_THAT(r.lines, ElementsAre("one", "err: oops", "two"));
  EXPECT_EQ(*r.exit_code, 3);
  EXPECT_TRUE(runtime->WaitAll(std::chrono::seconds(5)));
  EXPECT_THAT(engine_->calls, ElementsAre("remove det-a1", "remove c1")) << "a stale container of the name goes first";
  EXPECT_TRUE(processes_->started.empty());
}

TEST_F(ContainerRuntimeTest, TasksWithoutAContainerAreTheWrappedRuntimes) {
  auto runtime = MakeRuntime();
  TaskSpec spec = Spec("p1");
  spec.container.reset();
  Recorded r;
  EXPECT_EQ(*runtime->Start(spec, r.Callbacks()), 42);
  EXPECT_THAT(processes_->started, ElementsAre("p1"));
  EXPECT_TRUE(engine_->created.empty());
}

TEST_F(ContainerRuntimeTest, KillIsTermThenKillAfterTheGrace) {
  auto runtime = MakeRuntime();
  engine_->ignore_term = true;
  Recorded r;
  ASSERT_TRUE(runtime->Start(Spec("a1"), r.Callbacks()).ok());
  ASSERT_TRUE(runtime->Kill("a1", std::chrono::milliseconds(20)).ok());
  ASSERT_TRUE(WaitExit(r));
  EXPECT_EQ(*r.exit_code, 137);
  std::lock_guard lock(engine_->mu);
  EXPECT_THAT(engine_->calls, ::testing::IsSupersetOf({"SIGTERM", "SIGKILL"}));
}

TEST_F(ContainerRuntimeTest, ANewRuntimeAdoptsTheContainerAfterItsAcknowledgedLines) {
  Recorded before;
  {
    auto first = MakeRuntime();
    ASSERT_TRUE(first->Start(Spec("a1"), before.Callbacks()).ok());
    engine_->Print("c1", StdType::kStdout, "one\ntwo\n");
    first->Acknowledge("a1", 1);
  }  // the agent stops; the container runs on
  engine_->Print("c1", StdType::kStdout, "three\n");
  auto second = MakeRuntime();
  std::vector<OrphanTask> orphans = second->Orphans();
  ASSERT_EQ(orphans.size(), 1u);
  EXPECT_EQ(orphans[0].id, "a1");
  EXPECT_EQ(orphans[0].annotation, "start-a1");
  EXPECT_EQ(orphans[0].pid, 4242);
  Recorded r;
  ASSERT_TRUE(second->Adopt("a1", r.Callbacks()).ok());
  engine_->Exit("c1", 0);
  ASSERT_TRUE(WaitExit(r));
  EXPECT_THAT(r.lines, ElementsAre("two", "three"));
  std::lock_guard lock(before.mu);
  EXPECT_FALSE(before.exit_code) << "the stopped runtime reports nothing more";
  EXPECT_TRUE(second->WaitAll(std::chrono::seconds(5)));
  EXPECT_TRUE(second->Orphans().empty()) << "its record went with it";
}

TEST_F(ContainerRuntimeTest, AContainerOfThisAgentWithoutARecordIsRemovedNotAdopted) {
  {
    std::lock_guard lock(engine_->mu);
    // Created by an agent that stopped before it recorded it; and one of another agent.
    engine_->containers["lost"] = {.labels = {{"ai.determined.agent", "agent-1"}, {"ai.determined.allocation", "a9"}}};
    engine_->containers["other"] = {.labels = {{"ai.determined.agent", "agent-2"}}};
  }
  auto runtime = MakeRuntime();
  EXPECT_TRUE(runtime->Orphans().empty());
  std::lock_guard lock(engine_->mu);
  EXPECT_THAT(engine_->calls, ElementsAre("remove lost"));
}

TEST_F(ContainerRuntimeTest, ARecordWhoseContainerIsGoneIsForgotten) {
  Recorded before;
  {
    auto first = MakeRuntime();
    ASSERT_TRUE(first->Start(Spec("a1"), before.Callbacks()).ok());
  }
  ASSERT_TRUE(engine_->Remove("c1").ok());  // e.g. `docker rm -f` while the agent was away
  auto second = MakeRuntime();
  EXPECT_TRUE(second->Orphans().empty());
  EXPECT_TRUE(MakeRuntime()->Orphans().empty()) << "its record went too";
  engine_->Exit("c1", 137);  // ends the first runtime's supervisor
}

TEST_F(ContainerRuntimeTest, AnEngineThatCannotListLeavesTheRecordsToDecide) {
  Recorded before;
  {
    auto first = MakeRuntime();
    ASSERT_TRUE(first->Start(Spec("a1"), before.Callbacks()).ok());
  }
  engine_->list_error = absl::UnavailableError("engine down");
  auto second = MakeRuntime();
  std::vector<OrphanTask> orphans = second->Orphans();
  ASSERT_EQ(orphans.size(), 1u);
  EXPECT_EQ(orphans[0].id, "a1");
  engine_->Exit("c1", 0);  // ends the first runtime's supervisor
}

TEST_F(ContainerRuntimeTest, AcknowledgementsAfterAnAdoptionCountFromIt) {
  Recorded first_lines, second_lines, third_lines;
  {
    auto first = MakeRuntime();
    ASSERT_TRUE(first->Start(Spec("a1"), first_lines.Callbacks()).ok());
    engine_->Print("c1", StdType::kStdout, "one\n");
    first->Acknowledge("a1", 1);
  }
  {
    auto second = MakeRuntime();
    second->Orphans();
    ASSERT_TRUE(second->Adopt("a1", second_lines.Callbacks()).ok());
    engine_->Print("c1", StdType::kStdout, "two\n");
    second->Acknowledge("a1", 1);  // its first line: "two", the task's second
  }
  engine_->Print("c1", StdType::kStdout, "three\n");
  auto third = MakeRuntime();
  third->Orphans();
  ASSERT_TRUE(third->Adopt("a1", third_lines.Callbacks()).ok());
  engine_->Exit("c1", 0);
  ASSERT_TRUE(WaitExit(third_lines));
  EXPECT_THAT(third_lines.lines, ElementsAre("three"));
}

}  // namespace
}  // namespace det::agent
