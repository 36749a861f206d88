// The cluster actor's commands, generic tasks, notebooks, shells and TensorBoards: launched, killed,
// paused and recovered here, on the shared task core (allocation lifecycle in cluster.cc, scheduling
// in cluster_scheduling.cc); what differs between their types is their spec's (*_spec.cc).
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

void Cluster::LaunchTask(NewTask request, std::function<void(absl::StatusOr<Task>)> done) {
  loop_.Post([this, request = std::move(request), done = std::move(done)]() mutable {
    absl::StatusOr<std::unique_ptr<LiveTask>> task = NewLiveTask(request);
    if (!task.ok()) return done(task.status());
    // Stored behind the loop, with its context and session; it is queued once they are durable. A
    // failure leaves nothing, and the request is answered with it.
    Store::Write insert = [this, t = (*task)->record,
                           context = std::make_shared<const std::string>(std::move(request.context_tgz)),
                           session = Sha256Hex((*task)->user_token),
                           expiry = loop_.Now() + options_.user_session_lifetime] {
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
  auto task = std::make_unique<LiveTask>();
  std::unique_ptr<CommandSpec> spec = CommandSpec::Of(request.type, *this, *task, std::move(request.config));
  config::CommandConfig& config = spec->config();
  if (config.description.empty()) config.description = absl::StrCat(spec->Kind(), " (", GeneratePetName(), ")");
  config.full["description"] = config.description;
  Task& t = task->record;
  t.task_id = NewUuid();
  t.type = request.type;
  t.owner_id = request.owner_id;
  t.username = request.owner_username;
  t.workspace_id = request.workspace_id;
  t.job_id = NewUuid();
  t.description = config.description;
  t.config_json = config.full.dump();
  t.state = TaskState::kActive;
  t.start_time = NewSubmissionTime();
  t.forked_from = request.forked_from;
  t.service_json = request.service_json;
  task->user_token = RandomHex(32);
  spec->has_context = !request.context_tgz.empty();
  task->spec = std::move(spec);
  return task;
}

void Cluster::FinishTask(LiveTask& task, TaskState state, const std::string& exit_status, std::optional<int> exit_code) {
  DropQueuedAllocation(task);
  task.record.state = state;
  task.record.end_time = loop_.Now();
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
    t->second->spec->Kill();
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
    t->second->spec->SetPaused(paused, std::move(done));
  });
}

absl::Status Cluster::RecoverTask(Task stored) {
  last_submission_ = std::max(last_submission_, stored.start_time);
  json tmpl = json(nullptr);
  json config = json::parse(stored.config_json, nullptr, false);
  // The stored config is resolved: reading it again needs no defaults and no template.
  ASSIGN_OR_RETURN(config::CommandConfig parsed, config::ParseCommandConfig(json::object(), tmpl, config));
  auto task = std::make_unique<LiveTask>();
  task->record = std::move(stored);
  task->user_token = RandomHex(32);
  RETURN_IF_ERROR(store_.AddSession(Sha256Hex(task->user_token), task->record.owner_id,
                                    loop_.Now() + options_.user_session_lifetime));
  const std::string id = task->record.task_id;
  std::unique_ptr<CommandSpec> spec = CommandSpec::Of(task->record.type, *this, *task, std::move(parsed));
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
    ended.end_time = loop_.Now();
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
