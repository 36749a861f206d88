#include "master/db/sqlite/storage_health.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <thread>

#include "master/db/sqlite/sqlite_database.h"

namespace det::master {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST(StorageHealthTest, RefusesForTheRetryIntervalAfterAFailure) {
  StorageHealth health("/data/determined.db", 1000ms);
  auto t0 = StorageHealth::Clock::now();
  EXPECT_TRUE(health.MayStartWrite(t0));
  health.WriteFailed("database or disk is full", t0);
  EXPECT_FALSE(health.MayStartWrite(t0 + 999ms));
  EXPECT_TRUE(health.MayStartWrite(t0 + 1000ms)) << "then writes are tried again";
  absl::Status refusal = health.Refusal();
  EXPECT_EQ(refusal.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refusal.message(), HasSubstr("/data/determined.db: database or disk is full"));
  health.WriteFailed("disk I/O error", t0 + 1000ms);
  EXPECT_FALSE(health.MayStartWrite(t0 + 1500ms)) << "a failed retry starts another interval";
  health.WriteSucceeded();
  EXPECT_EQ(health.problem(), std::nullopt);
  EXPECT_TRUE(health.MayStartWrite(t0 + 1500ms));
}

TEST(StorageHealthTest, ClassifiesSqliteResults) {
  EXPECT_TRUE(IsStorageFailure(SQLITE_FULL));
  EXPECT_TRUE(IsStorageFailure(SQLITE_IOERR_WRITE));
  EXPECT_TRUE(IsStorageFailure(SQLITE_READONLY));
  EXPECT_FALSE(IsStorageFailure(SQLITE_CONSTRAINT));
  EXPECT_FALSE(IsStorageFailure(SQLITE_ERROR));
}

// A real database that runs out of room: SQLite's max_page_count makes it answer SQLITE_FULL as
// a full disk would.
class WatchedDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = SqliteConnection::Open(":memory:", 200ms);
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    ASSERT_TRUE(Run("CREATE TABLE t (v TEXT)").ok());
  }

  absl::Status Run(const std::string& sql) {
    absl::StatusOr<SqlStatement> s = db_->Prepare(sql);
    if (!s.ok()) return s.status();
    return s->Run();
  }
  absl::Status Fill() {
    for (int i = 0; i < 1000; ++i) {
      absl::Status st = Run("INSERT INTO t VALUES (printf('%.*c', 3000, 'x'))");
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  const StorageHealth& health() const { return db_->health(); }

  std::unique_ptr<SqliteConnection> db_;
};

TEST_F(WatchedDatabaseTest, AFullDatabaseRefusesWritesAndRecovers) {
  ASSERT_EQ(db_->Exec("PRAGMA max_page_count = 20"), absl::OkStatus());
  absl::Status full = Fill();
  ASSERT_EQ(full.code(), absl::StatusCode::kUnavailable) << full;
  EXPECT_THAT(full.message(), HasSubstr("full"));
  EXPECT_TRUE(health().problem().has_value());

  // Refused at once, before SQLite is asked, with the same error; reads go on.
  absl::Status refused = Run("DELETE FROM t");
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), full.message());
  absl::StatusOr<SqlStatement> count = db_->Prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(count.ok());
  ASSERT_TRUE(*count->Step());
  int rows = static_cast<int>(count->Int(0));
  EXPECT_GT(rows, 0);

  // Room again (a bigger limit); after the interval the next write goes through and ends it.
  ASSERT_EQ(db_->Exec("PRAGMA max_page_count = 100000"), absl::OkStatus());
  EXPECT_EQ(Run("INSERT INTO t VALUES ('x')").code(), absl::StatusCode::kUnavailable);
  std::this_thread::sleep_for(250ms);
  EXPECT_TRUE(Run("INSERT INTO t VALUES ('x')").ok());
  EXPECT_EQ(health().problem(), std::nullopt);
  EXPECT_TRUE(Run("DELETE FROM t").ok());
}

TEST_F(WatchedDatabaseTest, OtherErrorsStayInternal) {
  absl::Status st = Run("INSERT INTO nowhere VALUES (1)");
  EXPECT_EQ(st.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(health().problem(), std::nullopt);
}

}  // namespace
}  // namespace det::master
