// The cluster actor's side of the proxy: ready allocations' services (registered with the proxy
// and stored with the allocation), notebooks' idle reports, and the idle timeout of notebooks and
// TensorBoards.
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "master/cluster/cluster.h"
#include "master/cluster/cluster_state.h"
#include "master/proxy/service_registry.h"

namespace det::master {
namespace {

// "4s", "5m", "1h30m"; "150ms" below a second.
std::string FormatDuration(std::chrono::milliseconds d) {
  absl::Duration unit = d < std::chrono::seconds(1) ? absl::Milliseconds(1) : absl::Seconds(1);
  return absl::FormatDuration(absl::Trunc(absl::FromChrono(d), unit));
}

}  // namespace

void Cluster::AllocationReady(const std::string& allocation_id, int port, std::string user,
                              std::function<void(absl::Status)> done) {
  loop_.Post([this, allocation_id, port, user = std::move(user), done = std::move(done)] {
    auto a = allocations_.find(allocation_id);
    if (a == allocations_.end()) {
      return done(absl::FailedPreconditionError(absl::StrCat("allocation ", allocation_id, " is not running")));
    }
    LiveAllocation& alloc = *a->second;
    if (alloc.record.placements.empty()) {
      return done(absl::FailedPreconditionError(absl::StrCat("allocation ", allocation_id, " has not started")));
    }
    std::optional<std::string> address = alloc.manager->ChiefAddress(allocation_id);
    if (!address) {
      return done(absl::FailedPreconditionError(
          absl::StrCat("allocation ", allocation_id, ": the address of its agent is not known")));
    }
    alloc.record.ready = true;
    // Port 0: ready, serving nothing through the proxy.
    if (port > 0) alloc.record.service_address = absl::StrCat(*address, ":", port);
    alloc.record.service_user = user;
    SaveAllocation(alloc.record, std::move(done));  // answered once durable
    RegisterService(alloc);
    if (auto t = tasks_.find(alloc.record.task_id); t != tasks_.end()) {
      t->second->last_reported_activity = loop_.SteadyNow();
      MasterLog(alloc.record.task_id, allocation_id,
                port == 0 ? absl::StrCat(t->second->spec->Label(), " is ready")
                          : absl::StrCat(t->second->spec->Label(), " is ready: serving on ",
                                         alloc.record.service_address, ", reached at /proxy/",
                                         alloc.record.task_id, "/"));
    }
    ArmIdleCheck();
  });
}

void Cluster::ReportIdle(const std::string& task_id, bool idle, std::function<void(absl::Status)> done) {
  loop_.Post([this, task_id, idle, done = std::move(done)] {
    auto t = tasks_.find(task_id);
    if (t == tasks_.end()) return done(absl::FailedPreconditionError(absl::StrCat("task ", task_id, " is not running")));
    if (!idle) t->second->last_reported_activity = loop_.SteadyNow();
    done(absl::OkStatus());
  });
}

void Cluster::RegisterService(const LiveAllocation& alloc) {
  if (options_.services == nullptr || !alloc.record.ready) return;
  auto t = tasks_.find(alloc.record.task_id);
  std::optional<std::pair<std::string, int>> address = SplitServiceAddress(alloc.record.service_address);
  if (t == tasks_.end() || !address) return;
  const Task& task = t->second->record;
  Service service;
  service.id = task.task_id;
  service.owner_id = task.owner_id;
  service.workspace_id = task.workspace_id;
  service.host = address->first;
  service.port = address->second;
  ServiceAccess access = t->second->spec->Service();
  service.tcp = access.tcp;
  service.token = std::move(access.token);
  options_.services->Register(std::move(service));
}

void Cluster::UnregisterService(const LiveAllocation& alloc) {
  if (options_.services != nullptr && alloc.record.ready) options_.services->Unregister(alloc.record.task_id);
}

void Cluster::ArmIdleCheck() {
  if (idle_check_armed_ || options_.services == nullptr) return;
  idle_check_armed_ = true;
  loop_.PostAfter(options_.idle_check_interval, [this] {
    idle_check_armed_ = false;
    CheckIdleTasks();
  });
}

void Cluster::CheckIdleTasks() {
  const auto now = loop_.SteadyNow();
  bool watching = false;
  std::vector<std::pair<LiveTask*, LiveAllocation*>> idle;
  for (auto& [id, task] : tasks_) {
    std::optional<std::chrono::milliseconds> idle_timeout = task->spec->IdleTimeout();
    if (!idle_timeout || task->record.state != TaskState::kActive) continue;
    auto a = allocations_.find(task->allocation_id);
    if (a == allocations_.end() || !a->second->record.ready) continue;
    auto last = std::max(task->last_reported_activity,
                         options_.services->LastRequested(id).value_or(task->last_reported_activity));
    if (now - last <= *idle_timeout) {
      watching = true;
      continue;
    }
    task->stop_reason = absl::StrCat(
        "killed after ", FormatDuration(std::chrono::duration_cast<std::chrono::milliseconds>(now - last)),
        " without use (idle_timeout ", FormatDuration(*idle_timeout), ")");
    idle.emplace_back(task.get(), a->second.get());
  }
  for (auto [task, alloc] : idle) {
    MasterLog(task->record.task_id, alloc->record.allocation_id,
              absl::StrCat(task->spec->Label(), " is idle: ", task->stop_reason));
    spdlog::info("{} is idle: {}", task->spec->Label(), task->stop_reason);
    task->record.state = TaskState::kStoppingCanceled;
    SaveTask(task->record);
    KillProcesses(*alloc);
  }
  if (watching) ArmIdleCheck();
}

}  // namespace det::master
