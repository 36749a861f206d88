#include "master/checkpoint_gc.h"

#include <spdlog/spdlog.h>

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/types.h"
#include "common/status_macros.h"
#include "master/checkpoint_globs.h"
#include "master/metric_summary.h"
#include "master/experiment_rules.h"

namespace det::master {
namespace {

using nlohmann::json;

json StorageConfig(const api::Experiment& experiment) {
  json config = json::parse(experiment.config_json, nullptr, false);
  return config.is_object() ? config.value("checkpoint_storage", json::object()) : json::object();
}

absl::StatusOr<std::vector<api::Checkpoint>> CompletedCheckpoints(Store& store, int64_t experiment_id) {
  ASSIGN_OR_RETURN(std::vector<api::Checkpoint> stored, store.ListCheckpoints(experiment_id));
  std::erase_if(stored, [](const api::Checkpoint& c) { return c.state != "COMPLETED"; });
  return stored;
}

// The checkpoints with files in storage: the completed ones and what is left of partially deleted ones.
absl::StatusOr<std::vector<api::Checkpoint>> StoredCheckpoints(Store& store, int64_t experiment_id) {
  ASSIGN_OR_RETURN(std::vector<api::Checkpoint> stored, store.ListCheckpoints(experiment_id));
  std::erase_if(stored,
                [](const api::Checkpoint& c) { return c.state != "COMPLETED" && c.state != "PARTIALLY_DELETED"; });
  return stored;
}

}  // namespace

CheckpointGcPolicy GcPolicyOf(const api::Experiment& experiment) {
  const json storage = StorageConfig(experiment);
  CheckpointGcPolicy policy;
  for (auto [key, count] : kGcPolicyFields) {
    auto it = storage.find(key);
    if (it != storage.end() && it->is_number_integer()) policy.*count = it->get<int64_t>();
  }
  return policy;
}

absl::StatusOr<std::vector<RankedCheckpoint>> CheckpointsPolicyLetsGo(Store& store, const api::Experiment& experiment,
                                                                      const CheckpointGcPolicy& policy,
                                                                      const std::set<std::string>& keep) {
  ASSIGN_OR_RETURN(std::vector<api::Checkpoint> completed, CompletedCheckpoints(store, experiment.id));
  std::vector<GcCheckpoint> checkpoints;
  std::set<int64_t> trial_ids;
  for (const api::Checkpoint& c : completed) {
    checkpoints.push_back({c.uuid, c.trial_id, c.steps_completed});
    trial_ids.insert(c.trial_id);
  }
  std::vector<GcValidation> validations;
  std::map<std::pair<int64_t, int64_t>, std::string> metrics_at;  // (trial, step) -> its first validation
  for (int64_t trial_id : trial_ids) {
    ASSIGN_OR_RETURN(std::vector<api::MetricsReport> reports, store.GetMetrics(trial_id, "validation", {}));
    for (const api::MetricsReport& r : reports) {
      json metrics = json::parse(r.metrics_json, nullptr, false);
      validations.push_back({r.id, trial_id, r.total_batches, MetricValue(metrics, experiment.searcher_metric)});
      metrics_at.try_emplace({trial_id, r.total_batches}, r.metrics_json);
    }
  }
  // A checkpoint registered in the model registry is kept whatever the policy says.
  std::set<std::string> kept = keep;
  ASSIGN_OR_RETURN(std::vector<Registration> registered, store.ListRegistrations({}, experiment.id));
  for (const Registration& r : registered) kept.insert(r.checkpoint_uuid);
  std::vector<std::string> let_go =
      CheckpointsToDelete(checkpoints, validations, policy, experiment.smaller_is_better, kept);
  std::set<std::string> doomed(let_go.begin(), let_go.end());
  std::vector<RankedCheckpoint> out;
  for (api::Checkpoint& c : completed) {
    if (!doomed.contains(c.uuid)) continue;
    auto metrics = metrics_at.find({c.trial_id, c.steps_completed});
    out.push_back({std::move(c), metrics == metrics_at.end() ? "" : metrics->second});
  }
  return out;
}

CheckpointGc::CheckpointGc(Store& store, CheckpointGcOptions options)
    : store_(store), options_(std::move(options)), worker_([this] { Run(); }) {}

CheckpointGc::~CheckpointGc() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void CheckpointGc::Schedule(int64_t experiment_id, std::set<std::string> keep) {
  if (absl::Status st = store_.SetCheckpointGcPending(experiment_id, true); !st.ok()) {
    spdlog::warn("checkpoint GC of experiment {}: cannot mark it pending ({}); collecting anyway", experiment_id,
                 st.ToString());
  }
  Queue(experiment_id, std::move(keep));
}

void CheckpointGc::Queue(int64_t experiment_id, std::set<std::string> keep) {
  Enqueue({Scope::kPolicy, experiment_id, std::move(keep)});
}

void CheckpointGc::Delete(int64_t experiment_id, std::set<std::string> uuids) {
  Enqueue({Scope::kListed, experiment_id, std::move(uuids)});
}

void CheckpointGc::RemoveFiles(int64_t experiment_id, std::set<std::string> uuids, std::vector<std::string> globs) {
  Enqueue({Scope::kFiles, experiment_id, std::move(uuids), std::move(globs)});
}

void CheckpointGc::DeleteTensorboardFiles(int64_t experiment_id) {
  Enqueue({Scope::kTensorboard, experiment_id, {}});
}

void CheckpointGc::DeleteExperiment(int64_t experiment_id) { Enqueue({Scope::kExperiment, experiment_id, {}}); }

void CheckpointGc::Enqueue(Job job) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(job));
  }
  cv_.notify_all();
}

void CheckpointGc::WaitIdle() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return (queue_.empty() && !busy_) || stopping_; });
}

void CheckpointGc::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Collect(job);
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

void CheckpointGc::Collect(const Job& job) {
  std::chrono::milliseconds delay = options_.first_retry_delay;
  for (int attempt = 1;; ++attempt) {
    absl::Status st = RunOnce(job);
    if (st.ok()) return;
    if (attempt >= options_.max_attempts) {
      if (job.scope == Scope::kExperiment) {
        spdlog::error("deleting experiment {} failed {} times, it is DELETE_FAILED: {}", job.experiment_id,
                      attempt, st.ToString());
        if (absl::Status marked = MarkExperimentDeleteFailed(store_, job.experiment_id); !marked.ok()) {
          spdlog::error("experiment {} stays DELETING: {}", job.experiment_id, marked.ToString());
        }
      } else {
        spdlog::error("checkpoint GC of experiment {} failed {} times, giving up until the master restarts: {}",
                      job.experiment_id, attempt, st.ToString());
      }
      return;
    }
    spdlog::warn("checkpoint GC of experiment {} failed (attempt {} of {}), retrying in {} ms: {}",
                 job.experiment_id, attempt, options_.max_attempts, delay.count(), st.ToString());
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, delay, [this] { return stopping_; })) return;
    delay *= 2;
  }
}

absl::Status CheckpointGc::CollectOnce(int64_t experiment_id, const std::set<std::string>& keep) {
  return RunOnce({Scope::kPolicy, experiment_id, keep});
}

absl::Status CheckpointGc::RunOnce(const Job& job) {
  absl::StatusOr<api::Experiment> found = store_.GetExperiment(job.experiment_id);
  if (absl::IsNotFound(found.status())) return absl::OkStatus();  // deleted since: nothing left to collect
  ASSIGN_OR_RETURN(api::Experiment exp, std::move(found));
  std::vector<std::string> doomed;
  if (job.scope == Scope::kPolicy) {
    ASSIGN_OR_RETURN(std::vector<RankedCheckpoint> let_go,
                     CheckpointsPolicyLetsGo(store_, exp, GcPolicyOf(exp), job.uuids));
    for (const RankedCheckpoint& c : let_go) doomed.push_back(c.checkpoint.uuid);
    RETURN_IF_ERROR(DeleteFromStorage(exp, doomed));
    return store_.SetCheckpointGcPending(job.experiment_id, false);
  }
  if (job.scope == Scope::kFiles) return RemoveFilesFromStorage(exp, job.uuids, job.globs);
  if (job.scope == Scope::kTensorboard) return DeleteTensorboardFilesFromStorage(exp);
  ASSIGN_OR_RETURN(std::vector<api::Checkpoint> stored, StoredCheckpoints(store_, job.experiment_id));
  for (const api::Checkpoint& c : stored) {
    if (job.scope == Scope::kExperiment || job.uuids.contains(c.uuid)) doomed.push_back(c.uuid);
  }
  RETURN_IF_ERROR(DeleteFromStorage(exp, doomed));
  if (job.scope == Scope::kListed) return absl::OkStatus();
  RETURN_IF_ERROR(DeleteTensorboardFilesFromStorage(exp));
  RETURN_IF_ERROR(DeleteExperimentRecords(store_, job.experiment_id));
  spdlog::info("experiment {} is deleted", job.experiment_id);
  return absl::OkStatus();
}

absl::Status CheckpointGc::DeleteFromStorage(const api::Experiment& experiment,
                                             const std::vector<std::string>& uuids) {
  if (uuids.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::unique_ptr<storage::StorageManager> storage,
                   options_.make_storage(StorageConfig(experiment)));
  for (const std::string& uuid : uuids) {
    if (absl::Status st = storage->Delete(uuid); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("deleting checkpoint ", uuid, " from ", storage->Describe(), ": ",
                                                  st.message()));
    }
    RETURN_IF_ERROR(store_.MarkCheckpointDeleted(uuid));
  }
  spdlog::info("experiment {}: deleted {} checkpoint(s) from {}", experiment.id, uuids.size(), storage->Describe());
  return absl::OkStatus();
}

void CheckpointGc::SetClusterId(std::string cluster_id) {
  std::lock_guard lock(mu_);
  cluster_id_ = std::move(cluster_id);
}

absl::Status CheckpointGc::DeleteTensorboardFilesFromStorage(const api::Experiment& experiment) {
  ASSIGN_OR_RETURN(std::unique_ptr<storage::StorageManager> storage,
                   options_.make_storage(StorageConfig(experiment)));
  std::vector<std::string> prefixes = {storage::TensorboardExperimentPrefix(experiment.id)};
  {
    std::lock_guard lock(mu_);
    if (!cluster_id_.empty()) prefixes.push_back(absl::StrCat(cluster_id_, "/", prefixes.front()));
  }
  for (const std::string& prefix : prefixes) {
    absl::StatusOr<std::vector<storage::StoredFile>> files = storage->ListFiles(prefix);
    if (absl::IsUnimplemented(files.status())) return absl::OkStatus();  // a storage that holds no such files
    if (absl::IsNotFound(files.status())) continue;
    RETURN_IF_ERROR(files.status());
    for (const storage::StoredFile& f : *files)
      RETURN_IF_ERROR(storage->DeleteFile(prefix, f.path));
    if (!files->empty()) {
      spdlog::info("experiment {}: deleted {} TensorBoard file(s) under {} from {}", experiment.id, files->size(),
                   prefix, storage->Describe());
    }
  }
  return absl::OkStatus();
}

absl::Status CheckpointGc::RemoveFilesFromStorage(const api::Experiment& experiment, const std::set<std::string>& uuids,
                                                  const std::vector<std::string>& globs) {
  ASSIGN_OR_RETURN(std::unique_ptr<storage::StorageManager> storage,
                   options_.make_storage(StorageConfig(experiment)));
  for (const std::string& uuid : uuids) {
    absl::StatusOr<api::Checkpoint> c = store_.GetCheckpoint(uuid);
    if (absl::IsNotFound(c.status())) continue;  // its experiment was deleted since
    RETURN_IF_ERROR(c.status());
    if (c->state == "DELETED") continue;
    ASSIGN_OR_RETURN(std::vector<storage::StoredFile> files, storage->ListFiles(uuid));
    int removed = 0;
    for (const storage::StoredFile& f : files) {
      if (!AnyGlobNamesFile(globs, f.path)) continue;
      if (absl::Status st = storage->DeleteFile(uuid, f.path); !st.ok()) {
        return absl::Status(st.code(), absl::StrCat("removing files of checkpoint ", uuid, ": ", st.message()));
      }
      ++removed;
    }
    // What is left of its resources: none, and the checkpoint is gone with whatever else was beside them.
    json resources = json::parse(c->resources_json, nullptr, false);
    json left = json::object();
    if (resources.is_object()) {
      for (const auto& [path, size] : resources.items()) {
        if (!AnyGlobNamesFile(globs, path)) left[path] = size;
      }
    }
    if (left.empty()) {
      RETURN_IF_ERROR(storage->Delete(uuid));
      RETURN_IF_ERROR(store_.MarkCheckpointDeleted(uuid));
    } else if (left.size() != resources.size()) {
      RETURN_IF_ERROR(store_.MarkCheckpointPartiallyDeleted(uuid, left.dump()));
    }
    spdlog::info("checkpoint {}: removed {} file(s) matching {} from {}", uuid, removed, json(globs).dump(),
                 storage->Describe());
  }
  return absl::OkStatus();
}

}  // namespace det::master
