#include "master/cluster/pending_writes.h"

#include <gtest/gtest.h>

#include <vector>

namespace det::master {
namespace {

// A database that is down until `up` and records what it saved.
struct FakeTable {
  bool up = false;
  std::vector<std::string> saved;
  PendingWrites::Write Save(std::string value) {
    return [this, value] {
      if (!up) return absl::UnavailableError("disk full");
      saved.push_back(value);
      return absl::OkStatus();
    };
  }
};

TEST(PendingWritesTest, KeepsTheNewestFailedWritePerKeyUntilItSucceeds) {
  FakeTable table;
  PendingWrites writes;
  EXPECT_FALSE(writes.Run("trial 1", table.Save("trial 1 RUNNING")).ok());
  EXPECT_FALSE(writes.Run("trial 1", table.Save("trial 1 COMPLETED")).ok());
  EXPECT_FALSE(writes.Run("trial 2", table.Save("trial 2 RUNNING")).ok());
  EXPECT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes.Retry(), 2u) << "still down";
  table.up = true;
  EXPECT_EQ(writes.Retry(), 0u);
  EXPECT_EQ(table.saved, (std::vector<std::string>{"trial 1 COMPLETED", "trial 2 RUNNING"}));
}

TEST(PendingWritesTest, ASucceedingWriteDropsTheKeptOne) {
  FakeTable table;
  PendingWrites writes;
  EXPECT_FALSE(writes.Run("trial 1", table.Save("old")).ok());
  table.up = true;
  EXPECT_TRUE(writes.Run("trial 1", table.Save("new")).ok());
  EXPECT_EQ(writes.size(), 0u);
  EXPECT_EQ(writes.Retry(), 0u);
  EXPECT_EQ(table.saved, std::vector<std::string>{"new"});
}

}  // namespace
}  // namespace det::master
