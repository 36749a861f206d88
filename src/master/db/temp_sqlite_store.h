#pragma once
// For tests: a SqliteStore in a fresh temporary directory named after the running test, removed
// with this object. Use it like a pointer to the store.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "master/db/sqlite_store.h"

namespace det::master {

class TempSqliteStore {
 public:
  explicit TempSqliteStore(const std::string& prefix)
      : dir_(std::filesystem::temp_directory_path() /
             (prefix + "_" + std::to_string(getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(dir_);
    auto store = OpenSqliteStore((dir_ / "det.db").string());
    EXPECT_TRUE(store.ok()) << store.status();
    if (store.ok()) store_ = std::move(*store);
  }
  ~TempSqliteStore() {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  TempSqliteStore(const TempSqliteStore&) = delete;
  TempSqliteStore& operator=(const TempSqliteStore&) = delete;

  SqlStore& operator*() { return *store_; }
  SqlStore* operator->() { return store_.get(); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<SqlStore> store_;
};

}  // namespace det::master
