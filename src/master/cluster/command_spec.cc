// Cluster::CommandSpec: a command, one process that runs its entrypoint once; and the factory of the
// single-process task types built on it.
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "common/time_util.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"

namespace det::master {

using nlohmann::json;

std::unique_ptr<Cluster::CommandSpec> Cluster::CommandSpec::Of(TaskType type, Cluster& cluster, LiveTask& task,
                                                               config::CommandConfig config) {
  switch (type) {
    case TaskType::kGeneric:
      return std::make_unique<GenericTaskSpec>(cluster, task, std::move(config));
    case TaskType::kNotebook:
      return std::make_unique<NotebookSpec>(cluster, task, std::move(config));
    case TaskType::kShell:
      return std::make_unique<ShellSpec>(cluster, task, std::move(config));
    case TaskType::kTensorboard:
      return std::make_unique<TensorboardSpec>(cluster, task, std::move(config));
    default:
      return std::make_unique<CommandSpec>(cluster, task, std::move(config));
  }
}

std::string Cluster::CommandSpec::Label() const { return absl::StrCat(Kind(), " ", task_.record.task_id); }

JobAttributes Cluster::CommandSpec::Job() const {
  JobAttributes job;
  job.job_id = task_.record.job_id;
  job.submission_order = ToUnixMicros(task_.record.start_time);
  job.priority = config_.priority;
  job.weight = config_.weight;
  job.max_slots = config_.max_slots;
  job.queue_position = task_.record.queue_position;
  job.resource_pool = config_.resource_pool;
  job.slots = config_.slots;
  job.single_node = true;  // one process
  job.preemptible = false;
  job.preemption_timeout = std::chrono::seconds(config_.preemption_timeout);
  return job;
}

absl::StatusOr<LaunchSpec> Cluster::CommandSpec::Launch(const Allocation&) {
  LaunchSpec launch;
  launch.entrypoint = config_.entrypoint;
  AddEnvironmentVariables(config_.environment_variables, launch.env);
  AddEnvironment(launch.env);
  launch.download_context = has_context;
  launch.work_dir = config_.work_dir;
  for (const config::BindMount& m : config_.bind_mounts) {
    launch.mounts.push_back({m.host_path, m.container_path, m.read_only});
  }
  launch.workspace_id = task_.record.workspace_id;
  launch.environment = config_.full.value("environment", nlohmann::json());
  launch.resources = config_.full.value("resources", nlohmann::json());
  launch.slurm = config_.full.value("slurm", nlohmann::json());
  return launch;
}

void Cluster::CommandSpec::AllocationEnded(const AllocationOutcome& outcome) {
  if (task_.record.state == TaskState::kStoppingPaused) {
    task_.record.state = TaskState::kPaused;
    cluster_.SaveTask(task_.record);
    cluster_.MasterLog(task_.record.task_id, "", absl::StrCat(Label(), " is paused"));
    return;
  }
  if (task_.record.state == TaskState::kStoppingCanceled) {
    return cluster_.FinishTask(task_, TaskState::kCanceled,
                               task_.stop_reason.empty() ? "killed by request" : task_.stop_reason, std::nullopt);
  }
  if (outcome.kind == ExitKind::kAgentLost) {
    return cluster_.FinishTask(task_, TaskState::kError, absl::StrCat("its agent was lost (", outcome.why, ")"),
                               std::nullopt);
  }
  TaskState state = outcome.exit_code == 0 ? TaskState::kCompleted : TaskState::kError;
  cluster_.FinishTask(task_, state, outcome.why, outcome.exit_code);
}

void Cluster::CommandSpec::Kill() {
  task_.record.state = TaskState::kStoppingCanceled;
  cluster_.SaveTask(task_.record);
  auto a = cluster_.allocations_.find(task_.allocation_id);
  if (a == cluster_.allocations_.end() || a->second->record.placements.empty()) {
    // Queued (or paused): nothing runs, so it ends now. The task, and this spec with it, is gone after.
    Cluster& cluster = cluster_;
    cluster.FinishTask(task_, TaskState::kCanceled, "killed by request", std::nullopt);
    return cluster.Schedule();
  }
  cluster_.MasterLog(task_.record.task_id, task_.allocation_id, "Killing the task's process");
  cluster_.KillProcesses(*a->second);
}

void Cluster::CommandSpec::SetPaused(bool, std::function<void(absl::Status)> done) {
  done(absl::FailedPreconditionError(absl::StrCat("task ", task_.record.task_id, " is a ", Name(task_.record.type),
                                                  " task; only generic tasks can be paused")));
}

void Cluster::CommandSpec::ChangeJob(const JobSettings& next, std::function<void(absl::Status)> done) {
  Task record = task_.record;
  json config = json::parse(record.config_json, nullptr, false);
  if (!config.is_object()) config = config_.full;
  json& resources = config["resources"];
  resources["priority"] = next.priority ? json(*next.priority) : json();
  resources["weight"] = next.weight;
  resources["max_slots"] = next.max_slots ? json(*next.max_slots) : json();
  resources["resource_pool"] = next.pool;
  record.config_json = config.dump();
  record.queue_position = next.position;
  cluster_.SaveTask(record, std::move(done));
  task_.record = std::move(record);
  config_.full = std::move(config);
  config_.priority = next.priority;
  config_.weight = next.weight;
  config_.max_slots = next.max_slots;
  config_.resource_pool = next.pool;
}

json Cluster::CommandSpec::ServiceJson() const {
  json extra = json::parse(task_.record.service_json, nullptr, false);
  return extra.is_object() ? extra : json::object();
}

std::optional<std::chrono::milliseconds> Cluster::CommandSpec::IdleTimeoutOr(std::chrono::seconds fallback) const {
  if (config_.idle_timeout) return config_.idle_timeout;
  if (fallback.count() <= 0) return std::nullopt;
  return fallback;
}

}  // namespace det::master
