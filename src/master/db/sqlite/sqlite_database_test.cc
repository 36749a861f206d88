#include "master/db/sqlite/sqlite_database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace det::master {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// SQLite has no array parameters: a statement given one fails when run, naming the parameter,
// rather than running with the parameter unbound (NULL); once reset it runs again.
TEST(SqliteConnectionTest, ArrayParametersFailTheStatementClearly) {
  auto db = SqliteConnection::Open(":memory:", 200ms);
  ASSERT_TRUE(db.ok()) << db.status();
  auto s = (*db)->Prepare("SELECT ?");
  ASSERT_TRUE(s.ok()) << s.status();
  const std::vector<int64_t> ints = {1, 2};
  absl::StatusOr<bool> row = s->BindArray(1, ints).Step();
  EXPECT_EQ(row.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(row.status().message(), HasSubstr("parameter 1: SQLite has no array parameters"));
  s->Reset();
  row = s->Bind(1, int64_t{7}).Step();
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(*row);
  EXPECT_EQ(s->Int(0), 7);
}

}  // namespace
}  // namespace det::master
