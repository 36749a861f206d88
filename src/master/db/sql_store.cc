#include "master/db/sql_store.h"

#include "common/status_macros.h"
#include "master/db/migrations.h"

namespace det::master {

absl::StatusOr<std::unique_ptr<SqlStore>> SqlStore::Open(std::unique_ptr<SqlDatabase> db) {
  std::unique_ptr<SqlStore> store(new SqlStore(std::move(db)));
  ASSIGN_OR_RETURN(store->created_, ApplyMigrations(*store->db_));
  return store;
}

}  // namespace det::master
