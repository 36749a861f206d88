// The checkpoints area of SqlStore.
#include "master/db/sql_store.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql/sql_dialect.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): this area's half of sql_store_rows.h

namespace {

// Moves the checkpoint totals of the trial's experiment (never below zero).
absl::Status AddToExperimentCheckpointTotals(SqlConnection& db, int64_t trial_id, int64_t size, int64_t count) {
  ASSIGN_OR_RETURN(auto s, db.Prepare(
                               "UPDATE experiments SET "
                               "checkpoint_size = CASE WHEN checkpoint_size + ?1 > 0 THEN checkpoint_size + ?1 ELSE 0 END, "
                               "checkpoint_count = CASE WHEN checkpoint_count + ?2 > 0 THEN checkpoint_count + ?2 ELSE 0 END "
                               "WHERE id = (SELECT experiment_id FROM trials WHERE id = ?3)"));
  return s.Bind(1, size).Bind(2, count).Bind(3, trial_id).Run();
}

// The total size of a checkpoint's resources ({"file": bytes, ...}).
int64_t ResourcesSize(const std::string& resources_json) {
  nlohmann::json resources = nlohmann::json::parse(resources_json, nullptr, false);
  int64_t total = 0;
  if (!resources.is_object()) return 0;
  for (const auto& [name, size] : resources.items()) {
    if (size.is_number()) total += size.get<int64_t>();
  }
  return total;
}

}  // namespace

absl::StatusOr<int64_t> SqlStore::CheckpointStorageId(const std::string& config_json) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto insert,
                   db.Prepare("INSERT INTO checkpoint_storages (config) VALUES (?) ON CONFLICT (config) DO NOTHING"));
  RETURN_IF_ERROR(insert.Bind(1, config_json).Run());
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT id FROM checkpoint_storages WHERE config = ?"));
  s.Bind(1, config_json);
  return One<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); }, "checkpoint storage");
}

absl::Status SqlStore::AddCheckpoint(const Checkpoint& c, int64_t size_bytes) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO checkpoints (uuid, task_id, allocation_id, trial_id, experiment_id, "
                               "report_time, state, resources, metadata, steps_completed, storage_id) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  s.Bind(1, c.uuid).Bind(2, c.task_id).Bind(3, c.allocation_id).Bind(4, c.trial_id).Bind(5, c.experiment_id);
  s.Bind(6, Micros(c.report_time)).Bind(7, c.state).Bind(8, c.resources_json).Bind(9, c.metadata_json);
  s.Bind(10, c.steps_completed).Bind(11, c.storage_id);
  absl::Status st = s.Run();
  if (!st.ok()) {
    if (absl::IsAlreadyExists(st)) {
      return absl::AlreadyExistsError(absl::StrCat("checkpoint ", c.uuid, " was already reported"));
    }
    return st;
  }
  ASSIGN_OR_RETURN(auto u, db.Prepare("UPDATE trials SET latest_checkpoint = ?, checkpoint_count = checkpoint_count + 1, "
                               "total_checkpoint_size = total_checkpoint_size + ? WHERE id = ?"));
  u.Bind(1, c.uuid).Bind(2, size_bytes).Bind(3, c.trial_id);
  RETURN_IF_ERROR(u.Run());
  RETURN_IF_ERROR(AddToExperimentCheckpointTotals(db, c.trial_id, size_bytes, 1));
  return tx.Commit();
}

absl::StatusOr<Checkpoint> SqlStore::GetCheckpoint(const std::string& uuid) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kCheckpointColumns, "WHERE uuid = ?")));
  s.Bind(1, uuid);
  return One<Checkpoint>(s, ReadCheckpoint, absl::StrCat("checkpoint ", uuid));
}

absl::StatusOr<std::vector<Checkpoint>> SqlStore::ListCheckpoints(int64_t experiment_id) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kCheckpointColumns, "WHERE experiment_id = ? ORDER BY report_time")));
  s.Bind(1, experiment_id);
  return All<Checkpoint>(s, ReadCheckpoint);
}

absl::Status SqlStore::SetCheckpointMetadata(const std::string& uuid, const std::string& metadata_json) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE checkpoints SET metadata = ? WHERE uuid = ?"));
  s.Bind(1, metadata_json).Bind(2, uuid);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(absl::StrCat("checkpoint ", uuid, " not found"));
  return absl::OkStatus();
}

namespace {

// The trial resumes from its latest COMPLETED checkpoint: when `uuid` was its latest and is no longer
// whole, the latest one left takes its place (none: ""). Its and its experiment's totals shrink by
// `removed_bytes` and `removed_count` checkpoints.
absl::Status TakeFromTrial(SqlConnection& db, int64_t trial_id, const std::string& uuid, int64_t removed_bytes,
                           int64_t removed_count) {
  ASSIGN_OR_RETURN(auto u, db.Prepare(
                               "UPDATE trials SET "
                               "checkpoint_count = CASE WHEN checkpoint_count > ?4 THEN checkpoint_count - ?4 ELSE 0 END, "
                               "total_checkpoint_size = CASE WHEN total_checkpoint_size > ?1 "
                               "THEN total_checkpoint_size - ?1 ELSE 0 END, "
                               "latest_checkpoint = CASE WHEN latest_checkpoint = ?3 THEN COALESCE("
                               "(SELECT uuid FROM checkpoints WHERE trial_id = ?2 AND state = 'COMPLETED' "
                               "ORDER BY report_time DESC, rowid DESC LIMIT 1), '') ELSE latest_checkpoint END "
                               "WHERE id = ?2"));
  u.Bind(1, removed_bytes).Bind(2, trial_id).Bind(3, uuid).Bind(4, removed_count);
  RETURN_IF_ERROR(u.Run());
  return AddToExperimentCheckpointTotals(db, trial_id, -removed_bytes, -removed_count);
}

// What deleting some or all of a checkpoint's files changes.
struct StoredCheckpoint {
  int64_t trial_id = 0;
  bool deleted = false;
  int64_t size_bytes = 0;  // of its resources: what AddCheckpoint counted, less what went before
};

absl::StatusOr<StoredCheckpoint> ReadStoredCheckpoint(SqlConnection& db, const std::string& uuid) {
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT trial_id, state, resources FROM checkpoints WHERE uuid = ?"));
  s.Bind(1, uuid);
  ASSIGN_OR_RETURN(bool found, s.Step());
  if (!found) return absl::NotFoundError(absl::StrCat("checkpoint ", uuid, " not found"));
  return StoredCheckpoint{
      .trial_id = s.Int(0), .deleted = s.Text(1) == "DELETED", .size_bytes = ResourcesSize(s.Text(2))};
}

}  // namespace

absl::Status SqlStore::MarkCheckpointDeleted(const std::string& uuid) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(StoredCheckpoint stored, ReadStoredCheckpoint(db, uuid));
  if (stored.deleted) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto d, db.Prepare("UPDATE checkpoints SET state = 'DELETED' WHERE uuid = ?"));
  d.Bind(1, uuid);
  RETURN_IF_ERROR(d.Run());
  RETURN_IF_ERROR(TakeFromTrial(db, stored.trial_id, uuid, stored.size_bytes, 1));
  return tx.Commit();
}

absl::Status SqlStore::MarkCheckpointPartiallyDeleted(const std::string& uuid, const std::string& resources_json) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(StoredCheckpoint stored, ReadStoredCheckpoint(db, uuid));
  if (stored.deleted) {
    return absl::FailedPreconditionError(absl::StrCat("checkpoint ", uuid, " is deleted: it has no files left"));
  }
  int64_t removed = std::max<int64_t>(0, stored.size_bytes - ResourcesSize(resources_json));
  ASSIGN_OR_RETURN(auto d,
                   db.Prepare("UPDATE checkpoints SET state = 'PARTIALLY_DELETED', resources = ? WHERE uuid = ?"));
  d.Bind(1, resources_json).Bind(2, uuid);
  RETURN_IF_ERROR(d.Run());
  RETURN_IF_ERROR(TakeFromTrial(db, stored.trial_id, uuid, removed, 0));
  return tx.Commit();
}

absl::Status SqlStore::SetCheckpointGcPending(int64_t experiment_id, bool pending) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE experiments SET checkpoint_gc_pending = ? WHERE id = ?"));
  s.Bind(1, pending ? 1 : 0).Bind(2, experiment_id);
  return s.Run();
}

absl::StatusOr<std::vector<int64_t>> SqlStore::ListCheckpointGcPending() {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("SELECT id FROM experiments WHERE checkpoint_gc_pending = 1 ORDER BY id"));
  return All<int64_t>(s, [](const SqlStatement& st) { return st.Int(0); });
}


}  // namespace det::master
