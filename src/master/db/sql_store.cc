#include "master/db/sql_store.h"

#include "common/status_macros.h"
#include "master/db/migrations.h"

namespace det::master {

absl::StatusOr<std::unique_ptr<SqlStore>> SqlStore::Open(std::unique_ptr<SqlDatabase> db) {
  std::unique_ptr<SqlStore> store(new SqlStore(std::move(db)));
  ASSIGN_OR_RETURN(store->created_, ApplyMigrations(*store->db_));
  return store;
}

std::vector<absl::Status> SqlStore::WriteBatch(const std::vector<Write>& writes) {
  std::vector<absl::Status> outcomes(writes.size());
  // The writer stays leased for the whole batch: the writes' own leases get this connection again.
  SqlLease db = Writer();
  SqlTransaction batch(*db);
  absl::Status begun = batch.Begin();
  for (size_t i = 0; i < writes.size() && begun.ok(); ++i) {
    SqlTransaction one(*db);  // a savepoint: a failed write is undone alone
    outcomes[i] = one.Begin();
    if (outcomes[i].ok()) outcomes[i] = writes[i]();
    if (outcomes[i].ok()) outcomes[i] = one.Commit();
  }
  absl::Status committed = begun.ok() ? batch.Commit() : begun;
  if (!committed.ok()) {
    for (absl::Status& outcome : outcomes) {
      if (outcome.ok()) outcome = committed;
    }
  }
  return outcomes;
}

}  // namespace det::master
