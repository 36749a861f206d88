#include "master/db/postgres/postgres_database.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "master/db/store_test_backends.h"

namespace det::master {
namespace {

TEST(PostgresPlaceholdersTest, NumbersEachMarkAndKeepsQuotedText) {
  PostgresSql plain = ToPostgresPlaceholders("SELECT a FROM t WHERE b = ? AND c IN (?, ?)");
  EXPECT_EQ(plain.text, "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)");
  EXPECT_EQ(plain.params, 3);
  PostgresSql numbered = ToPostgresPlaceholders("UPDATE t SET a = ?1 WHERE b = ?12 OR c = ?1");
  EXPECT_EQ(numbered.text, "UPDATE t SET a = $1 WHERE b = $12 OR c = $1");
  EXPECT_EQ(numbered.params, 12);
  PostgresSql quoted = ToPostgresPlaceholders("SELECT '?', \"a?\", '$9' FROM t WHERE x = ? AND y LIKE 'it''s ?'");
  EXPECT_EQ(quoted.text, "SELECT '?', \"a?\", '$9' FROM t WHERE x = $1 AND y LIKE 'it''s ?'");
  EXPECT_EQ(quoted.params, 1) << "quoted text counts for nothing";
}

// A connection killed under the store: the next use connects again; a transaction it was in fails
// as a whole and nothing of it is left.
TEST(PostgresConnectionTest, AKilledConnectionReconnectsAndItsTransactionIsLost) {
  PostgresTestBackend backend;
  auto db = PostgresDatabase::Open(backend.ConnectionString());
  ASSERT_TRUE(db.ok()) << db.status();
  SqlLease writer = (*db)->Writer();
  ASSERT_TRUE(writer->Exec("CREATE TABLE t (v BIGINT)").ok());
  auto kill = [&] {
    auto admin = PostgresConnection::Connect(backend.ConnectionString());
    auto s = admin->Prepare(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid()");
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_TRUE(s->Run().ok());
  };

  {
    SqlTransaction tx(*writer);
    ASSERT_TRUE(tx.Begin().ok());
    auto insert = writer->Prepare("INSERT INTO t VALUES (?)");
    ASSERT_TRUE(insert.ok());
    ASSERT_TRUE(insert->Bind(1, int64_t{1}).Run().ok());
    kill();
    auto second = writer->Prepare("INSERT INTO t VALUES (?)");
    absl::Status st = second.ok() ? second->Bind(1, int64_t{2}).Run() : second.status();
    EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
    EXPECT_NE(st.message().find("database is unreachable"), std::string::npos) << st;
  }  // rolled back
  auto count = writer->Prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(count.ok()) << count.status();
  ASSERT_TRUE(*count->Step());
  EXPECT_EQ(count->Int(0), 0) << "nothing of the lost transaction was committed";

  // Outside a transaction a query runs again on a new connection by itself; a write fails once
  // (it may have been committed before the connection went) and works when retried.
  kill();
  auto query = writer->Prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(query.ok()) << query.status();
  absl::StatusOr<bool> row = query->Step();
  ASSERT_TRUE(row.ok()) << row.status();
  auto insert = [&] {
    auto s = writer->Prepare("INSERT INTO t VALUES (3)");
    return s.ok() ? s->Run() : s.status();
  };
  ASSERT_TRUE(insert().ok());  // prepared on this connection from here on
  kill();
  EXPECT_EQ(insert().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(insert().ok());

  // Nothing is sent before a statement is first prepared, or before BEGIN: both go on a new
  // connection by themselves (the first use of a connection after the server restarted).
  kill();
  auto fresh = writer->Prepare("SELECT count(*) + 1 FROM t");
  EXPECT_TRUE(fresh.ok()) << fresh.status();
  kill();
  SqlTransaction tx(*writer);
  EXPECT_TRUE(tx.Begin().ok());
}

// Arrays go as the server's binary form: any bytes of text (quotes, backslashes, braces, commas,
// multi-byte UTF-8, empty strings) and the whole int64 range come back as they went, in order.
TEST(PostgresConnectionTest, ArrayParametersRoundTripThroughUnnest) {
  PostgresTestBackend backend;
  auto connection = PostgresConnection::Connect(backend.ConnectionString());
  const std::vector<int64_t> ints = {0, -1, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 42};
  const std::vector<std::string_view> texts = {"plain", "", "{\"a\": [1, 2]}", "back\\slash, comma", "żółw 🐢"};
  auto s = connection->Prepare("SELECT i, t FROM unnest(?::bigint[], ?::text[]) WITH ORDINALITY AS u(i, t, n) ORDER BY n");
  ASSERT_TRUE(s.ok()) << s.status();
  s->BindArray(1, ints).BindArray(2, texts);
  for (size_t k = 0; k < ints.size(); ++k) {
    absl::StatusOr<bool> row = s->Step();
    ASSERT_TRUE(row.ok()) << row.status();
    ASSERT_TRUE(*row) << "row " << k;
    EXPECT_EQ(s->Int(0), ints[k]);
    EXPECT_EQ(s->Text(1), texts[k]);
  }
  EXPECT_FALSE(*s->Step());

  auto empty = connection->Prepare("SELECT count(*) FROM unnest(?::bigint[])");
  ASSERT_TRUE(empty.ok()) << empty.status();
  ASSERT_TRUE(*empty->BindArray(1, std::span<const int64_t>()).Step());
  EXPECT_EQ(empty->Int(0), 0);

  auto mistyped = connection->Prepare("SELECT count(*) FROM unnest(?::text[])");
  ASSERT_TRUE(mistyped.ok()) << mistyped.status();
  EXPECT_EQ(mistyped->BindArray(1, ints).Step().status().code(), absl::StatusCode::kInternal)
      << "an array of another element type is refused by the server, not misread";
}

TEST(PostgresConnectionTest, UniqueViolationsAreAlreadyExistsAndOthersInternal) {
  PostgresTestBackend backend;
  auto connection = PostgresConnection::Connect(backend.ConnectionString());
  ASSERT_TRUE(connection->Exec("CREATE TABLE u (k TEXT PRIMARY KEY)").ok());
  ASSERT_TRUE(connection->Exec("INSERT INTO u VALUES ('a')").ok());
  EXPECT_EQ(connection->Exec("INSERT INTO u VALUES ('a')").code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(connection->Exec("INSERT INTO nowhere VALUES (1)").code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace det::master
