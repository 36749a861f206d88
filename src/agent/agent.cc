#include "agent/agent.h"

#include "agent/container_launch.h"
#include "agent/task_dir_owner.h"
#include "agent/task_mounts.h"

#include <atomic>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace det::agent {

struct Agent::Task {
  api::StartTask start;
  std::shared_ptr<LogShipper> shipper;  // set by the launcher before anything can log
  // Lines the agent itself shipped before the runtime's (an image's pull): not the runtime's to acknowledge.
  std::shared_ptr<std::atomic<uint64_t>> agent_lines = std::make_shared<std::atomic<uint64_t>>(0);
  int pid = 0;                          // 0 until the process runs; guarded by Agent::mu_
  // A KillTask (or shutdown) arrived before the process ran: its grace period. Guarded by
  // Agent::mu_.
  std::optional<std::chrono::milliseconds> pending_kill;
};

bool IsSafeAllocationId(const std::string& id) {
  return !id.empty() && id != "." && id != ".." && id.find('/') == std::string::npos &&
         id.find('\0') == std::string::npos;
}

Agent::Agent(AgentConfig config, AgentDeps deps)
    : config_(std::move(config)), deps_(std::move(deps)) {}

Agent::~Agent() {
  Shutdown();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    for (auto& [serial, t] : launchers_) threads.push_back(std::move(t));
    for (auto& t : finished_launchers_) threads.push_back(std::move(t));
    launchers_.clear();
    finished_launchers_.clear();
  }
  for (auto& t : threads) t.join();
  // The runtime's destructor waits for its supervisors, whose callbacks use this object's members.
  deps_.runtime.reset();
}

api::AgentHello Agent::Hello() const {
  api::AgentHello hello;
  hello.slots = config_.env.slots;
  std::lock_guard lock(mu_);
  std::set<std::string> ids = unwritten_exits_;
  for (const auto& [id, task] : tasks_) ids.insert(id);
  hello.running_allocations.assign(ids.begin(), ids.end());
  return hello;
}

void Agent::Handle(const api::MasterMessage& msg) {
  if (const auto* start = std::get_if<api::StartTask>(&msg)) {
    StartTask(*start);
  } else if (const auto* kill = std::get_if<api::KillTask>(&msg)) {
    KillTask(*kill);
  }
}

void Agent::StartTask(const api::StartTask& start) {
  const std::string& id = start.allocation_id;
  std::unique_lock lock(mu_);
  JoinFinishedLaunchersLocked();
  if (auto it = tasks_.find(id); it != tasks_.end()) {
    // A repeated StartTask (say, resent after a reconnect) is answered, not run twice.
    spdlog::warn("allocation {}: StartTask for a task that is already here; not starting it again",
                 id);
    int pid = it->second->pid;
    lock.unlock();
    if (pid != 0) SendTaskStarted(id, pid);
    return;
  }
  if (unwritten_exits_.count(id) > 0) {
    spdlog::warn("allocation {}: StartTask for a task that just exited; ignoring it", id);
    return;
  }
  std::string refusal;
  if (shutting_down_) {
    refusal = absl::StrCat("agent ", config_.agent_id, " is shutting down");
  } else if (!IsSafeAllocationId(id)) {
    refusal = absl::StrCat("allocation id \"", id, "\" cannot name a directory");
  } else if (start.entrypoint.empty()) {
    refusal = "the task has an empty entrypoint";
  }
  auto task = std::make_shared<Task>();
  task->start = start;
  tasks_[id] = task;
  if (!refusal.empty()) {
    lock.unlock();
    spdlog::warn("allocation {}: not starting it: {}", id, refusal);
    ReportExit(task, -1, refusal);
    return;
  }
  spdlog::info("allocation {}: starting task {} ({})", id, start.task_id, start.task_type);
  uint64_t serial = next_serial_++;
  launchers_[serial] = std::thread(&Agent::Launch, this, task, serial);
}

void Agent::KillTask(const api::KillTask& kill) {
  const std::string& id = kill.allocation_id;
  auto grace = std::chrono::milliseconds(std::max(0, kill.grace_seconds) * 1000LL);
  {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) {
      if (unwritten_exits_.count(id) > 0) return;  // its TaskExited is on the way
    } else if (it->second->pid == 0) {
      // Still launching: the launcher kills it as soon as it runs, or does not start it at all.
      auto& pending = it->second->pending_kill;
      pending = pending ? std::min(*pending, grace) : grace;
      spdlog::info("allocation {}: kill requested while starting", id);
      return;
    } else {
      spdlog::info("allocation {}: killing (grace {} s)", id, grace.count() / 1000);
    }
  }
  // Not under mu_: the runtime's lock is taken by supervisors whose callbacks take mu_.
  absl::Status killed = deps_.runtime->Kill(id, grace);
  if (killed.ok()) return;
  {
    std::lock_guard lock(mu_);
    // NotFound for a task we know: it is exiting right now and will report itself.
    if (tasks_.count(id) > 0 || unwritten_exits_.count(id) > 0) return;
  }
  // The master believes the allocation runs here, but it does not (e.g. this agent restarted):
  // tell it so, or it would wait for an exit that never comes.
  spdlog::warn("allocation {}: KillTask for an allocation that is not running here", id);
  deps_.send(
      api::TaskExited{
          id, -1, absl::StrCat("allocation ", id, " is not running on agent ", config_.agent_id)},
      nullptr);
}

void Agent::Launch(std::shared_ptr<Task> task, uint64_t serial) {
  const api::StartTask& start = task->start;
  const std::string& id = start.allocation_id;
  std::filesystem::path task_dir = config_.work_dir / "tasks" / id;
  task->shipper = MakeShipper(start, task->agent_lines);

  auto finish = [&] {
    std::lock_guard lock(mu_);
    auto it = launchers_.find(serial);
    if (it != launchers_.end()) {
      finished_launchers_.push_back(std::move(it->second));
      launchers_.erase(it);
    }
  };

  std::error_code ec;
  // A directory left by an earlier run of the same allocation must not leak stale files into this
  // one.
  std::filesystem::remove_all(task_dir, ec);
  std::filesystem::create_directories(task_dir, ec);
  if (ec) {
    FailTask(task, absl::StrCat("cannot create the task directory ", task_dir.string(), ": ",
                                ec.message()));
    return finish();
  }
  if (start.download_context) {
    absl::Status downloaded = deps_.download_context(start, task_dir);
    if (!downloaded.ok()) {
      FailTask(task, std::string(downloaded.message()));
      return finish();
    }
  }
  bool killed_early;
  {
    std::lock_guard lock(mu_);
    killed_early = task->pending_kill.has_value() || shutting_down_;
  }
  if (killed_early) {
    FailTask(task, "the task was killed before it started");
    return finish();
  }

  // A task that names an image runs in a container (its mounts are the container's); without an engine, on
  // the host.
  const bool in_container = start.container.has_value() && deps_.engine != nullptr;
  auto say = [&task](StdType type, std::string line) {
    ++*task->agent_lines;
    task->shipper->Add(type, std::move(line));
  };
  if (start.container && !in_container) {
    say(StdType::kStderr,
                       absl::StrCat("determined-agent: agent ", config_.agent_id, " has no container engine "
                                    "(container_socket, DOCKER_HOST): environment.image ", start.container->image,
                                    " is not used; the task runs on the host"));
  }
  absl::Status mounted = in_container ? absl::OkStatus() : ApplyMounts(start.mounts, task_dir);
  absl::StatusOr<std::filesystem::path> work_dir =
      mounted.ok() ? TaskWorkDir(start.work_dir, task_dir) : absl::StatusOr<std::filesystem::path>(mounted);
  if (!work_dir.ok()) {
    FailTask(task, std::string(work_dir.status().message()));
    return finish();
  }
  std::map<std::string, std::string> env = BuildTaskEnv(start, config_.env, task_dir);
  TaskSpec spec{id, WithStartupHook(start.entrypoint, *work_dir, env), std::move(env), *work_dir,
                api::Encode(api::MasterMessage(start))};
  if (start.user) {
    // The task's user gets its directory; the runtime starts the program as it.
    if (absl::Status given = GiveTaskDir(task_dir, start.user->uid, start.user->gid); !given.ok()) {
      FailTask(task, std::string(given.message()));
      return finish();
    }
    spec.user = TaskSpec::User{.uid = start.user->uid, .gid = start.user->gid};
  }
  if (in_container) {
    absl::StatusOr<ContainerSettings> container =
        PrepareContainer(*deps_.engine, start, task_dir, config_.env.slots,
                         [&](std::string line) { say(StdType::kStdout, std::move(line)); });
    if (!container.ok()) {
      FailTask(task, std::string(container.status().message()));
      return finish();
    }
    spec.container = *std::move(container);
  }
  absl::StatusOr<int> pid = deps_.runtime->Start(spec, Callbacks(task));
  if (!pid.ok()) {
    FailTask(task, std::string(pid.status().message()));
    return finish();
  }
  std::optional<std::chrono::milliseconds> kill_grace;
  {
    std::lock_guard lock(mu_);
    kill_grace = task->pending_kill;
  }
  if (kill_grace) {
    spdlog::info("allocation {}: killing (requested while starting)", id);
    deps_.runtime->Kill(id, *kill_grace).IgnoreError();
  }
  finish();
}

std::shared_ptr<LogShipper> Agent::MakeShipper(const api::StartTask& start,
                                               std::shared_ptr<const std::atomic<uint64_t>> agent_lines) {
  const std::string& id = start.allocation_id;
  LogShipperOptions options = deps_.log_options;
  TaskRuntime* runtime = deps_.runtime.get();
  options.on_handled = [runtime, id, agent_lines](uint64_t lines) {
    const uint64_t own = *agent_lines;
    if (lines > own) runtime->Acknowledge(id, lines - own);
  };
  auto container = start.env.find("DET_CONTAINER_ID");
  LogMetadata meta{start.task_id, id, config_.agent_id, container != start.env.end() ? container->second : id};
  return std::make_shared<LogShipper>(deps_.make_log_sink(start, meta), id, options);
}

TaskCallbacks Agent::Callbacks(const std::shared_ptr<Task>& task) {
  const std::string id = task->start.allocation_id;
  std::shared_ptr<LogShipper> shipper = task->shipper;
  TaskCallbacks callbacks;
  callbacks.on_started = [this, task, id](int pid) {
    {
      std::lock_guard lock(mu_);
      task->pid = pid;
    }
    spdlog::info("allocation {}: running as pid {}", id, pid);
    SendTaskStarted(id, pid);
  };
  callbacks.on_line = [shipper](StdType type, std::string line) {
    shipper->Add(type, std::move(line));
  };
  callbacks.on_exit = [this, task, shipper, id](int exit_code) {
    spdlog::info("allocation {}: exited with code {}", id, exit_code);
    shipper->Close();  // every line reaches the master before it learns of the exit
    ReportExit(task, exit_code, "");
    // Its directory (context, links) is not needed again: a later run of the task starts afresh.
    std::error_code ec;
    std::filesystem::remove_all(config_.work_dir / "tasks" / id, ec);
  };
  return callbacks;
}

void Agent::Recover() {
  for (const OrphanTask& orphan : deps_.runtime->Orphans()) {
    auto task = std::make_shared<Task>();
    absl::StatusOr<api::MasterMessage> msg = api::DecodeMasterMessage(orphan.annotation);
    if (const auto* start = msg.ok() ? std::get_if<api::StartTask>(&*msg) : nullptr) {
      task->start = *start;
    } else {
      // Without its StartTask the task's logs cannot be shipped; its exit can still be reported.
      spdlog::warn("allocation {}: its start record is unreadable; its output will not be shipped",
                   orphan.id);
    }
    task->start.allocation_id = orphan.id;
    task->pid = orphan.pid;
    task->shipper = MakeShipper(task->start, task->agent_lines);
    {
      std::lock_guard lock(mu_);
      tasks_[orphan.id] = task;
    }
    absl::Status adopted = deps_.runtime->Adopt(orphan.id, Callbacks(task));
    if (!adopted.ok()) {
      spdlog::error("allocation {}: cannot adopt it: {}", orphan.id, adopted.ToString());
      std::lock_guard lock(mu_);
      tasks_.erase(orphan.id);
      continue;
    }
    spdlog::info("allocation {}: adopted the task left running by an earlier agent (pid {})",
                 orphan.id, orphan.pid);
  }
}

void Agent::FailTask(const std::shared_ptr<Task>& task, const std::string& error) {
  spdlog::warn("allocation {}: could not start: {}", task->start.allocation_id, error);
  if (task->shipper) {
    task->shipper->Add(StdType::kStderr, absl::StrCat("determined-agent: ", error));
    task->shipper->Close();
  }
  ReportExit(task, -1, error);
}

void Agent::ReportExit(const std::shared_ptr<Task>& task, int exit_code, const std::string& error) {
  const std::string& id = task->start.allocation_id;
  {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(id);
    if (it != tasks_.end() && it->second == task) tasks_.erase(it);
    // Until the TaskExited is on the wire, a reconnect's hello still lists the allocation, so the
    // master never takes it for lost and then hears it exited.
    unwritten_exits_.insert(id);
    ++exits_in_flight_;
  }
  // Not under mu_: `send` may call back (on_written) on another thread that takes mu_.
  deps_.send(api::TaskExited{id, exit_code, error}, [this, id] {
    std::lock_guard lock(mu_);
    unwritten_exits_.erase(id);
  });
  {
    std::lock_guard lock(mu_);
    --exits_in_flight_;
  }
  task_gone_.notify_all();
}

void Agent::SendTaskStarted(const std::string& allocation_id, int pid) {
  deps_.send(api::TaskStarted{allocation_id, pid}, nullptr);
}

void Agent::JoinFinishedLaunchersLocked() {
  // Finished launchers only have their return left to run; joining them is immediate.
  for (auto& t : finished_launchers_) t.join();
  finished_launchers_.clear();
}

bool Agent::Shutdown() {
  std::vector<std::string> to_kill;
  {
    std::lock_guard lock(mu_);
    if (!shutting_down_) {
      shutting_down_ = true;
      for (auto& [id, task] : tasks_) {
        if (task->pid != 0) {
          to_kill.push_back(id);
        } else {
          task->pending_kill = task->pending_kill
                                   ? std::min(*task->pending_kill, config_.shutdown_grace)
                                   : config_.shutdown_grace;
        }
      }
    }
  }
  if (!to_kill.empty()) spdlog::info("killing {} running task(s)", to_kill.size());
  for (const std::string& id : to_kill)
    deps_.runtime->Kill(id, config_.shutdown_grace).IgnoreError();
  // Grace, then the runtime's drain, then time for the last log batches to be shipped with retries.
  auto limit = config_.shutdown_grace + std::chrono::seconds(25);
  std::unique_lock lock(mu_);
  bool done =
      task_gone_.wait_for(lock, limit, [this] { return tasks_.empty() && exits_in_flight_ == 0; });
  if (!done)
    spdlog::error("{} task(s) still running after {} s", tasks_.size(), limit.count() / 1000);
  return done;
}

}  // namespace det::agent
