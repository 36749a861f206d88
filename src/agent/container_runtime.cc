#include "agent/container_runtime.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "agent/line_splitter.h"
#include "common/file_util.h"

namespace det::agent {

using nlohmann::json;

namespace {

constexpr char kAgentLabel[] = "ai.determined.agent";
constexpr char kAllocationLabel[] = "ai.determined.allocation";

}  // namespace

std::string ContainerRuntime::ContainerName(const std::string& id) {
  std::string name = "det-";
  for (char c : id) name.push_back(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_');
  return name;
}

// Shared by the runtime and the threads that supervise its containers (detached: one follows a container's
// output for as long as it runs, which may outlast the runtime).
struct ContainerRuntime::State {
  struct Container {
    std::string task_id;
    std::string container_id;
    std::string annotation;
    int pid = 0;  // its first process on the host
    uint64_t acknowledged = 0;  // of all its lines
    uint64_t adopted_after = 0;  // lines acknowledged before this runtime adopted it
    bool exited = false;
  };

  std::shared_ptr<ContainerEngine> engine;
  ContainerRuntimeOptions options;
  std::mutex mu;
  std::condition_variable changed;  // a container exited, or the runtime stops
  // The runtime is gone (the agent stops): its supervisors report nothing more and leave the containers
  // and their records to the next agent.
  std::atomic<bool> stopping{false};
  int active = 0;  // supervisors whose on_exit has not returned yet; guarded by mu
  std::map<std::string, std::shared_ptr<Container>> running;  // guarded by mu
  std::map<std::string, Container> orphans;                   // guarded by mu

  std::filesystem::path RecordPath(const std::string& id) const {
    return options.state_root / "containers" / absl::StrCat(ContainerName(id), ".json");
  }

  // Keeps, of the recorded containers (by container id), those the engine lists with this agent's label;
  // removes the listed ones without a record and forgets the records without a container.
  void ReconcileWithEngine(std::map<std::string, Container>& recorded) {
    absl::StatusOr<std::vector<ListedContainer>> listed = engine->List(kAgentLabel, options.agent_id);
    if (!listed.ok()) {
      spdlog::warn("container runtime: listing this agent's containers: {}; adopting by its records alone",
                   listed.status().ToString());
      return;
    }
    std::set<std::string> present;
    for (const ListedContainer& c : *listed) {
      if (recorded.contains(c.id)) {
        present.insert(c.id);
        continue;
      }
      // Created by an agent that stopped before it recorded (and so before it started) the container.
      auto task = c.labels.find(kAllocationLabel);
      spdlog::warn("container runtime: removing container {} of task {}: this agent has no record of it", c.id,
                   task != c.labels.end() ? task->second : "?");
      if (absl::Status removed = engine->Remove(c.id); !removed.ok()) {
        spdlog::warn("container runtime: removing container {}: {}", c.id, removed.ToString());
      }
    }
    for (auto it = recorded.begin(); it != recorded.end();) {
      if (present.contains(it->first)) {
        ++it;
        continue;
      }
      // Removed behind the agent's back: its output and exit code went with it.
      spdlog::warn("container runtime: the container of task {} is gone; the task is not adopted", it->second.task_id);
      std::error_code ec;
      std::filesystem::remove(RecordPath(it->second.task_id), ec);
      it = recorded.erase(it);
    }
  }

  void SaveRecord(const Container& c) const {
    const json record = {{"task_id", c.task_id},
                         {"container_id", c.container_id},
                         {"annotation", c.annotation},
                         {"pid", c.pid},
                         {"acknowledged", c.acknowledged}};
    if (absl::Status saved = WriteFile(RecordPath(c.task_id), record.dump()); !saved.ok()) {
      spdlog::warn("container runtime: saving the record of {}: {}", c.task_id, saved.ToString());
    }
  }

  // Follows the container's output (after `skip` lines), waits for its exit, reports it, removes it.
  static void Supervise(std::shared_ptr<State> s, std::shared_ptr<Container> c, TaskCallbacks callbacks,
                        uint64_t skip) {
    uint64_t delivered = 0;
    auto deliver = [&](StdType type, std::string line) {
      if (++delivered <= skip || s->stopping) return;  // acknowledged before an agent restart; or too late
      if (callbacks.on_line) callbacks.on_line(type, std::move(line));
    };
    LineSplitter out([&](std::string line) { deliver(StdType::kStdout, std::move(line)); });
    LineSplitter err([&](std::string line) { deliver(StdType::kStderr, std::move(line)); });
    absl::Status followed = s->engine->FollowOutput(c->container_id, [&](StdType type, std::string_view data) {
      (type == StdType::kStderr ? err : out).Feed(data);
    });
    out.Finish();
    err.Finish();
    if (!followed.ok()) {
      spdlog::warn("allocation {}: following its container's output: {}", c->task_id, followed.ToString());
    }
    absl::StatusOr<int> exit_code = s->engine->Wait(c->container_id);
    if (s->stopping) return;
    if (!exit_code.ok()) {
      spdlog::warn("allocation {}: waiting for its container: {}", c->task_id, exit_code.status().ToString());
      if (callbacks.on_line) {
        callbacks.on_line(StdType::kStderr, absl::StrCat("determined-agent: the task's container is gone: ",
                                                         exit_code.status().message()));
      }
    }
    {
      std::lock_guard lock(s->mu);
      c->exited = true;
      s->running.erase(c->task_id);
    }
    if (callbacks.on_exit) callbacks.on_exit(exit_code.ok() ? *exit_code : -1);
    if (absl::Status removed = s->engine->Remove(c->container_id); !removed.ok()) {
      spdlog::warn("allocation {}: removing its container: {}", c->task_id, removed.ToString());
    }
    std::error_code ec;
    std::filesystem::remove(s->RecordPath(c->task_id), ec);
    {
      std::lock_guard lock(s->mu);
      --s->active;
    }
    s->changed.notify_all();
  }
};

ContainerRuntime::ContainerRuntime(std::unique_ptr<TaskRuntime> processes, std::shared_ptr<ContainerEngine> engine,
                                   ContainerRuntimeOptions options)
    : processes_(std::move(processes)), state_(std::make_shared<State>()) {
  state_->engine = std::move(engine);
  state_->options = std::move(options);
  std::error_code ec;
  std::filesystem::create_directories(state_->options.state_root / "containers", ec);
}

ContainerRuntime::~ContainerRuntime() {
  {
    std::lock_guard lock(state_->mu);  // a kill timer checks it under the lock before it waits
    state_->stopping = true;
  }
  state_->changed.notify_all();
}

absl::StatusOr<int> ContainerRuntime::Start(const TaskSpec& spec, TaskCallbacks callbacks) {
  if (!spec.container) return processes_->Start(spec, std::move(callbacks));
  const ContainerRuntimeOptions& o = state_->options;
  ContainerConfig config{.name = ContainerName(spec.id),
                         .entrypoint = spec.argv,
                         .env = spec.env,
                         .labels = {{kAgentLabel, o.agent_id}, {kAllocationLabel, spec.id}},
                         .work_dir = spec.work_dir.string(),
                         .settings = *spec.container};
  if (!o.library_path.empty()) {
    std::string& path = config.env["LD_LIBRARY_PATH"];
    path = path.empty() ? o.library_path : absl::StrCat(o.library_path, ":", path);
  }
  if (spec.user) config.user = absl::StrCat(spec.user->uid, ":", spec.user->gid);
  for (const std::filesystem::path& dir : o.read_only_dirs) {
    config.settings.binds.push_back(absl::StrCat(dir.string(), ":", dir.string(), ":ro"));
  }
  ContainerEngine& engine = *state_->engine;
  // A container of an earlier run of the same allocation would hold the name.
  if (absl::Status removed = engine.Remove(config.name); !removed.ok()) return removed;
  absl::StatusOr<std::string> id = engine.Create(config);
  if (!id.ok()) return id.status();
  auto c = std::make_shared<State::Container>(
      State::Container{.task_id = spec.id, .container_id = *id, .annotation = spec.annotation});
  state_->SaveRecord(*c);
  absl::StatusOr<int> pid = engine.Start(*id);
  if (!pid.ok()) {
    engine.Remove(*id).IgnoreError();
    std::error_code ec;
    std::filesystem::remove(state_->RecordPath(spec.id), ec);
    return pid.status();
  }
  // 0 (it ended already) would read as "not started yet" to the agent.
  c->pid = *pid > 0 ? *pid : 1;
  state_->SaveRecord(*c);
  if (callbacks.on_started) callbacks.on_started(c->pid);
  {
    std::lock_guard lock(state_->mu);
    state_->running[spec.id] = c;
    ++state_->active;
  }
  std::thread(&State::Supervise, state_, c, std::move(callbacks), uint64_t{0}).detach();
  return c->pid;
}

absl::Status ContainerRuntime::Kill(const std::string& id, std::chrono::milliseconds grace) {
  std::shared_ptr<State::Container> c;
  {
    std::lock_guard lock(state_->mu);
    auto it = state_->running.find(id);
    if (it == state_->running.end()) return processes_->Kill(id, grace);
    c = it->second;
  }
  if (absl::Status signalled = state_->engine->Kill(c->container_id, "SIGTERM"); !signalled.ok()) return signalled;
  std::thread([s = state_, c, grace] {
    std::unique_lock lock(s->mu);
    s->changed.wait_for(lock, grace, [&] { return s->stopping || c->exited; });
    if (s->stopping || c->exited) return;
    lock.unlock();
    s->engine->Kill(c->container_id, "SIGKILL").IgnoreError();
  }).detach();
  return absl::OkStatus();
}

std::vector<std::string> ContainerRuntime::RunningTasks() const {
  std::vector<std::string> ids = processes_->RunningTasks();
  std::lock_guard lock(state_->mu);
  for (const auto& [id, c] : state_->running) ids.push_back(id);
  return ids;
}

void ContainerRuntime::Acknowledge(const std::string& id, uint64_t lines) {
  std::shared_ptr<State::Container> c;
  {
    std::lock_guard lock(state_->mu);
    auto it = state_->running.find(id);
    if (it == state_->running.end()) return processes_->Acknowledge(id, lines);
    c = it->second;
    // `lines` counts from the Start or Adopt.
    if (c->adopted_after + lines <= c->acknowledged) return;
    c->acknowledged = c->adopted_after + lines;
  }
  state_->SaveRecord(*c);
}

std::vector<OrphanTask> ContainerRuntime::Orphans() {
  std::vector<OrphanTask> out = processes_->Orphans();
  std::map<std::string, State::Container> recorded;  // by container id
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(state_->options.state_root / "containers", ec)) {
    if (entry.path().extension() != ".json") continue;
    absl::StatusOr<std::string> text = ReadFile(entry.path());
    json j = json::parse(text.ok() ? *text : "", nullptr, false);
    if (!j.is_object() || !j.contains("task_id") || !j.contains("container_id")) {
      spdlog::warn("container runtime: skipping the unreadable record {}", entry.path().string());
      std::filesystem::remove(entry.path(), ec);
      continue;
    }
    State::Container c{.task_id = j.value("task_id", ""),
                       .container_id = j.value("container_id", ""),
                       .annotation = j.value("annotation", ""),
                       .pid = j.value("pid", 1),
                       .acknowledged = j.value("acknowledged", uint64_t{0})};
    recorded[c.container_id] = std::move(c);
  }
  state_->ReconcileWithEngine(recorded);
  std::lock_guard lock(state_->mu);
  for (auto& [container_id, c] : recorded) {
    out.push_back({.id = c.task_id, .pid = c.pid, .annotation = c.annotation});
    state_->orphans[c.task_id] = std::move(c);
  }
  return out;
}


absl::Status ContainerRuntime::Adopt(const std::string& id, TaskCallbacks callbacks) {
  std::shared_ptr<State::Container> c;
  {
    std::lock_guard lock(state_->mu);
    auto it = state_->orphans.find(id);
    if (it == state_->orphans.end()) return processes_->Adopt(id, std::move(callbacks));
    c = std::make_shared<State::Container>(std::move(it->second));
    c->adopted_after = c->acknowledged;
    state_->orphans.erase(it);
    state_->running[id] = c;
    ++state_->active;
  }
  std::thread(&State::Supervise, state_, c, std::move(callbacks), c->acknowledged).detach();
  return absl::OkStatus();
}

bool ContainerRuntime::WaitAll(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if (!processes_->WaitAll(timeout)) return false;
  std::unique_lock lock(state_->mu);
  return state_->changed.wait_until(lock, deadline, [this] { return state_->active == 0; });
}

}  // namespace det::agent
