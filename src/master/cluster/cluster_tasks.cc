// The cluster actor's commands and generic tasks: tasks that run one entrypoint on the shared task
// core (allocation lifecycle in cluster.cc, scheduling in cluster_scheduling.cc).
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/crypto.h"
#include "common/random_id.h"
#include "common/status_macros.h"
#include "common/time_util.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"
#include "master/naming.h"

namespace det::master {

using nlohmann::json;

namespace {

// "Command", "Notebook", ...: how messages and default descriptions name a task of `type`.
const char* KindName(TaskType type) {
  switch (type) {
    case TaskType::kGeneric:
      return "Task";
    case TaskType::kNotebook:
      return "Notebook";
    case TaskType::kShell:
      return "Shell";
    case TaskType::kTensorboard:
      return "TensorBoard";
    default:
      return "Command";
  }
}

// What the runner inside a notebook, shell or TensorBoard reads (docs/interactive.md).
void AddServiceEnvironment(const Task& task, const config::CommandConfig& config,
                           std::map<std::string, std::string>& env) {
  json extra = json::parse(task.service_json, nullptr, false);
  if (!extra.is_object()) extra = json::object();
  switch (task.type) {
    case TaskType::kNotebook:
      env["DET_NOTEBOOK_TOKEN"] = extra.value("token", "");
      env["DET_NOTEBOOK_IDLE_TYPE"] = config.notebook_idle_type;
      break;
    case TaskType::kShell:
      env["DET_SHELL_AUTHORIZED_KEY"] = extra.value("public_key", "");
      break;
    case TaskType::kTensorboard:
      env["DET_TENSORBOARD_SOURCES"] = extra.value("sources", json::array()).dump();
      env["DET_TENSORBOARD_ARGS"] = json(config.tensorboard_args).dump();
      break;
    default:
      break;
  }
}

}  // namespace

std::string Cluster::CommandSpec::Label() const {
  return absl::StrCat(KindName(task_.record.type), " ", task_.record.task_id);
}

JobAttributes Cluster::CommandSpec::Job() const {
  JobAttributes job;
  job.job_id = task_.record.job_id;
  job.submission_order = ToUnixMicros(task_.record.start_time);
  job.priority = config.priority;
  job.weight = config.weight;
  job.max_slots = config.max_slots;
  job.queue_position = task_.record.queue_position;
  job.resource_pool = config.resource_pool;
  job.slots = config.slots;
  job.single_node = true;  // one process
  job.preemptible = false;
  job.preemption_timeout = std::chrono::seconds(config.preemption_timeout);
  return job;
}

absl::StatusOr<LaunchSpec> Cluster::CommandSpec::Launch(const Allocation&) {
  LaunchSpec launch;
  launch.entrypoint = config.entrypoint;
  AddEnvironmentVariables(config.environment_variables, launch.env);
  AddServiceEnvironment(task_.record, config, launch.env);
  launch.download_context = has_context;
  launch.work_dir = config.work_dir;
  for (const config::BindMount& m : config.bind_mounts) launch.mounts.push_back({m.host_path, m.container_path, m.read_only});
  launch.workspace_id = task_.record.workspace_id;
  return launch;
}

void Cluster::LaunchTask(NewTask request, std::function<void(absl::StatusOr<Task>)> done) {
  loop_.Post([this, request = std::move(request), done = std::move(done)]() mutable {
    absl::StatusOr<std::unique_ptr<LiveTask>> task = NewLiveTask(request);
    if (!task.ok()) return done(task.status());
    // Stored behind the loop, with its context and session; it is queued once they are durable. A
    // failure leaves nothing, and the request is answered with it.
    Store::Write insert = [this, t = (*task)->record,
                           context = std::make_shared<const std::string>(std::move(request.context_tgz)),
                           session = Sha256Hex((*task)->user_token),
                           expiry = std::chrono::system_clock::now() + options_.user_session_lifetime] {
      RETURN_IF_ERROR(store_.InsertTask(t, *context));
      return store_.AddSession(session, t.owner_id, expiry);
    };
    state_writer_.WriteOnce(
        std::move(insert),
        [this, task = std::make_shared<std::unique_ptr<LiveTask>>(std::move(*task)), done](absl::Status saved) {
          if (!saved.ok()) return done(saved);
          const std::string id = (*task)->record.task_id;
          LiveTask& ref = *(tasks_[id] = std::move(*task));
          const JobAttributes job = ref.spec->Job();
          RequestTaskAllocation(ref, 1);
          MasterLog(id, ref.allocation_id,
                    absl::StrCat(ref.spec->Label(), " queued: waiting for ", job.slots, " slot(s) in pool ",
                                 job.resource_pool));
          spdlog::info("{} created by {}", ref.spec->Label(), ref.record.username);
          Schedule();
          // Answered once its allocation is stored too: a client looks at it next.
          state_writer_.AfterWritesSoFar([done, record = ref.record] { done(record); });
        });
  });
}

absl::StatusOr<std::unique_ptr<Cluster::LiveTask>> Cluster::NewLiveTask(NewTask& request) {
  config::CommandConfig& c = request.config;
  // Work that could never start is refused now rather than queued forever (unless launch_error is off).
  ASSIGN_OR_RETURN(c.resource_pool, ResolvePool(c.resource_pool, c.slots));
  RETURN_IF_ERROR(CheckLaunchFits(c.resource_pool, c.slots, /*single_node=*/true, *request.warnings));
  c.full["resources"]["resource_pool"] = c.resource_pool;
  if (c.description.empty()) {
    c.description = absl::StrCat(KindName(request.type), " (", GeneratePetName(), ")");
  }
  c.full["description"] = c.description;

  auto task = std::make_unique<LiveTask>();
  Task& t = task->record;
  t.task_id = NewUuid();
  t.type = request.type;
  t.owner_id = request.owner_id;
  t.username = request.owner_username;
  t.workspace_id = request.workspace_id;
  t.job_id = NewUuid();
  t.description = c.description;
  t.config_json = c.full.dump();
  t.state = TaskState::kActive;
  t.start_time = std::chrono::system_clock::now();
  t.forked_from = request.forked_from;
  t.service_json = request.service_json;
  task->idle_timeout = IdleTimeoutFor(t.type, c, options_);
  task->user_token = RandomHex(32);
  auto spec = std::make_unique<CommandSpec>(*this, *task, std::move(request.config));
  spec->has_context = !request.context_tgz.empty();
  task->spec = std::move(spec);
  return task;
}

void Cluster::CommandAllocationEnded(LiveTask& task, const AllocationOutcome& outcome) {
  if (task.record.state == TaskState::kStoppingPaused) {
    task.record.state = TaskState::kPaused;
    SaveTask(task.record);
    MasterLog(task.record.task_id, "", absl::StrCat(task.spec->Label(), " is paused"));
    return;
  }
  if (task.record.state == TaskState::kStoppingCanceled) {
    return FinishTask(task, TaskState::kCanceled, task.stop_reason.empty() ? "killed by request" : task.stop_reason,
                      std::nullopt);
  }
  if (outcome.kind == ExitKind::kAgentLost) {
    return FinishTask(task, TaskState::kError, absl::StrCat("its agent was lost (", outcome.why, ")"), std::nullopt);
  }
  TaskState state = outcome.exit_code == 0 ? TaskState::kCompleted : TaskState::kError;
  FinishTask(task, state, outcome.why, outcome.exit_code);
}

void Cluster::FinishTask(LiveTask& task, TaskState state, const std::string& exit_status, std::optional<int> exit_code) {
  DropQueuedAllocation(task);
  task.record.state = state;
  task.record.end_time = std::chrono::system_clock::now();
  task.record.exit_status = exit_status;
  task.record.exit_code = exit_code;
  SaveTask(task.record);
  Persist(absl::StrCat("task ", task.record.task_id, " session"),
          [this, hash = Sha256Hex(task.user_token)] { return store_.DeleteSession(hash); });
  MasterLog(task.record.task_id, "", absl::StrCat(task.spec->Label(), " is ", Name(state), ": ", exit_status));
  spdlog::info("{} is {}: {}", task.spec->Label(), std::string(Name(state)), exit_status);
  tasks_.erase(task.record.task_id);  // `task` is gone from here on
}

void Cluster::KillTask(const std::string& task_id, std::function<void(absl::Status)> done) {
  loop_.Post([this, task_id, done = std::move(done)] {
    auto t = tasks_.find(task_id);
    // Not live: it has ended (callers found it stored), and there is nothing to do.
    if (t == tasks_.end()) return done(absl::OkStatus());
    LiveTask& task = *t->second;
    if (task.record.type == TaskType::kTrial) {
      auto trial = std::find_if(trials_.begin(), trials_.end(), [&](const auto& kv) { return kv.second->task == &task; });
      if (trial != trials_.end()) StopTrial(*trial->second, api::TrialState::kStoppingKilled);
      return done(absl::OkStatus());
    }
    task.record.state = TaskState::kStoppingCanceled;
    SaveTask(task.record);
    auto a = allocations_.find(task.allocation_id);
    if (a == allocations_.end() || a->second->record.placements.empty()) {
      // Queued (or paused): nothing runs, so it ends now.
      FinishTask(task, TaskState::kCanceled, "killed by request", std::nullopt);
      Schedule();
      return done(absl::OkStatus());
    }
    MasterLog(task_id, task.allocation_id, "Killing the task's process");
    KillProcesses(*a->second);
    done(absl::OkStatus());
  });
}

void Cluster::SetTaskPaused(const std::string& task_id, bool paused, std::function<void(absl::Status)> done) {
  loop_.Post([this, task_id, paused, done = std::move(done)] {
    auto t = tasks_.find(task_id);
    if (t == tasks_.end()) {  // callers found it stored: it has ended
      return done(absl::FailedPreconditionError(absl::StrCat(
          "task ", task_id, " has ended; only a live generic task can be ", paused ? "paused" : "unpaused")));
    }
    LiveTask& task = *t->second;
    if (task.record.type != TaskType::kGeneric) {
      return done(absl::FailedPreconditionError(absl::StrCat("task ", task_id, " is a ", Name(task.record.type),
                                                             " task; only generic tasks can be paused")));
    }
    TaskState target = paused ? TaskState::kStoppingPaused : TaskState::kActive;
    TaskState current = task.record.state;
    if (paused && (current == TaskState::kPaused || current == TaskState::kStoppingPaused)) return done(absl::OkStatus());
    if (!paused && current == TaskState::kActive) return done(absl::OkStatus());
    if (!CanTransition(current, target) || (!paused && current != TaskState::kPaused)) {
      return done(absl::FailedPreconditionError(
          absl::StrCat("task ", task_id, " is ", Name(current), "; it cannot be ", paused ? "paused" : "unpaused")));
    }
    if (!paused) {
      RequestTaskAllocation(task, task.runs + 1);
      task.record.state = TaskState::kActive;
      SaveTask(task.record, std::move(done));  // answered once durable
      MasterLog(task_id, task.allocation_id, absl::StrCat(task.spec->Label(), " is unpaused: queued again"));
      Schedule();
      return;
    }
    auto a = allocations_.find(task.allocation_id);
    if (a == allocations_.end() || a->second->record.placements.empty()) {
      DropQueuedAllocation(task);
      task.record.state = TaskState::kPaused;
      SaveTask(task.record);
      MasterLog(task_id, "", absl::StrCat(task.spec->Label(), " is paused"));
      Schedule();
      return done(absl::OkStatus());
    }
    task.record.state = TaskState::kStoppingPaused;
    SaveTask(task.record);
    MasterLog(task_id, task.allocation_id, absl::StrCat("Pausing ", task.spec->Label(), ": stopping its process"));
    SignalPreemption(*a->second);
    done(absl::OkStatus());
  });
}

absl::Status Cluster::RecoverTask(Task stored) {
  json tmpl = json(nullptr);
  json config = json::parse(stored.config_json, nullptr, false);
  // The stored config is resolved: reading it again needs no defaults and no template.
  ASSIGN_OR_RETURN(config::CommandConfig parsed, config::ParseCommandConfig(json::object(), tmpl, config));
  auto task = std::make_unique<LiveTask>();
  task->record = std::move(stored);
  task->user_token = RandomHex(32);
  RETURN_IF_ERROR(store_.AddSession(Sha256Hex(task->user_token), task->record.owner_id,
                                    std::chrono::system_clock::now() + options_.user_session_lifetime));
  const std::string id = task->record.task_id;
  task->idle_timeout = IdleTimeoutFor(task->record.type, parsed, options_);
  auto spec = std::make_unique<CommandSpec>(*this, *task, std::move(parsed));
  ASSIGN_OR_RETURN(std::string context, store_.GetTaskContext(id));
  spec->has_context = !context.empty();
  task->spec = std::move(spec);
  LiveTask& ref = *task;
  tasks_[id] = std::move(task);
  ASSIGN_OR_RETURN(std::vector<Allocation> allocations, store_.ListAllocations(id));
  ref.runs = static_cast<int>(allocations.size());
  std::optional<Allocation> last;
  if (!allocations.empty()) last = allocations.back();
  bool running = last && !last->placements.empty() &&
                 (last->state == AllocationState::kRunning || last->state == AllocationState::kAssigned);
  if (running) {
    RestoreRunningAllocation(*last, ref.record.state != TaskState::kActive);
    ref.allocation_id = last->allocation_id;
    return absl::OkStatus();
  }
  if (last && last->state != AllocationState::kTerminated) {
    // Queued when the master stopped: its token is lost, so it is queued anew (in the same order).
    Allocation ended = *last;
    ended.state = AllocationState::kTerminated;
    ended.end_time = std::chrono::system_clock::now();
    RETURN_IF_ERROR(store_.UpdateAllocation(ended));
  }
  switch (ref.record.state) {
    case TaskState::kStoppingCanceled:
      FinishTask(ref, TaskState::kCanceled, "killed by request", std::nullopt);
      return absl::OkStatus();
    case TaskState::kStoppingPaused:
      ref.record.state = TaskState::kPaused;
      SaveTask(ref.record);
      return absl::OkStatus();
    case TaskState::kPaused:
      return absl::OkStatus();
    default:
      break;
  }
  if (last && last->state == AllocationState::kTerminated) {
    // It ended while the master was away and nobody was told: the exit is unknown.
    FinishTask(ref, TaskState::kError, "its process ended while the master was down; its exit is unknown",
               last->exit_code);
    return absl::OkStatus();
  }
  RequestTaskAllocation(ref, ref.runs + 1);
  return absl::OkStatus();
}

}  // namespace det::master
