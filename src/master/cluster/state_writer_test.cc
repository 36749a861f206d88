#include "master/cluster/state_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <string>
#include <vector>

#include "master/db/temp_sqlite_store.h"
#include "master/manual_loop.h"

namespace det::master {
namespace {

using std::chrono::milliseconds;

class StateWriterTest : public ::testing::Test {
 protected:
  // Saves template `name` with `value` as its whole state.
  Store::Write Put(const std::string& name, const std::string& value) {
    return [this, name, value] { return store_->PutTemplate({.name = name, .config_json = value}); };
  }
  std::string Saved(const std::string& name) {
    absl::StatusOr<Template> got = store_->GetTemplate(name);
    return got.ok() ? got->config_json : std::string(got.status().message());
  }
  // Keeps the writer's thread busy in a write until the returned promise is set.
  std::promise<void> BlockWriter(StateWriter& writer) {
    std::promise<void> release;
    std::promise<void> started;
    writer.Write("blocker", [&started, released = release.get_future().share()] {
      started.set_value();
      released.wait();
      return absl::OkStatus();
    });
    started.get_future().wait();
    return release;
  }

  TempSqliteStore store_{"state_writer"};
  ManualLoop loop_;
};

TEST_F(StateWriterTest, WritesHandedInMeanwhileCommitAsOneTransactionAndReportOnTheLoop) {
  StateWriter writer(*store_, loop_);
  std::promise<void> release = BlockWriter(writer);
  std::vector<std::string> reported;
  std::string seen_by_the_batch;
  std::string seen_by_a_reader;
  writer.Write("a", Put("a", R"({"v":1})"), [&](absl::Status st) { reported.push_back("a " + st.ToString()); });
  writer.Write("b", [&] {
    seen_by_the_batch = Saved("a");  // the writer's own transaction
    std::thread([&] { seen_by_a_reader = Saved("a"); }).join();  // another connection: not committed yet
    return store_->PutTemplate({.name = "b", .config_json = R"({"v":2})"});
  }, [&](absl::Status st) { reported.push_back("b " + st.ToString()); });
  release.set_value();

  EXPECT_TRUE(writer.WaitIdle());
  EXPECT_TRUE(reported.empty()) << "outcomes run on the loop, not on the writer's thread";
  loop_.RunPending();
  EXPECT_EQ(reported, (std::vector<std::string>{"a OK", "b OK"}));
  EXPECT_EQ(seen_by_the_batch, R"({"v":1})") << "a later write of the batch reads what an earlier one wrote";
  EXPECT_NE(seen_by_a_reader, R"({"v":1})") << "a and b were one transaction";
  EXPECT_EQ(Saved("a"), R"({"v":1})");
  EXPECT_EQ(Saved("b"), R"({"v":2})");
  EXPECT_FALSE(writer.WaitIdle()) << "nothing new since";
}

TEST_F(StateWriterTest, AFailedWriteIsUndoneAloneKeptAndMadeAgainUntilItSucceeds) {
  std::atomic<bool> up = false;  // before the writer, which may still run the kept write as it stops
  StateWriter writer(*store_, loop_, milliseconds(10));
  auto put_when_up = [&](const std::string& value) -> Store::Write {
    return [&, value] {
      absl::Status st = store_->PutTemplate({.name = "t", .config_json = value});  // undone when the write fails
      if (!up) return absl::UnavailableError("database is unreachable");
      return st;
    };
  };
  absl::Status outcome;
  writer.Write("t", put_when_up(R"({"v":1})"), [&](absl::Status st) { outcome = st; });
  writer.Write("other", Put("other", "{}"));
  writer.WaitIdle();
  loop_.RunPending();
  EXPECT_TRUE(absl::IsUnavailable(outcome)) << outcome;
  EXPECT_EQ(Saved("other"), "{}") << "the rest of the batch committed";
  EXPECT_NE(Saved("t"), R"({"v":1})") << "the failed write left nothing";
  EXPECT_EQ(writer.kept(), 1u);
  ASSERT_TRUE(writer.Unavailable().has_value());
  EXPECT_EQ(writer.Unavailable()->message(), "database is unreachable");

  // A newer write of the key replaces the kept one.
  writer.Write("t", put_when_up(R"({"v":2})"));
  writer.WaitIdle();
  EXPECT_EQ(writer.kept(), 1u);

  up = true;
  for (int i = 0; i < 500 && writer.kept() > 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(writer.kept(), 0u);
  EXPECT_FALSE(writer.Unavailable().has_value());
  EXPECT_EQ(Saved("t"), R"({"v":2})");
}

TEST_F(StateWriterTest, AWriteTheDatabaseJudgedIsNotMadeAgain) {
  StateWriter writer(*store_, loop_, milliseconds(10));
  absl::Status outcome;
  writer.Write("missing", [&] { return store_->UpdateTemplateConfig("missing", "{}"); },
               [&](absl::Status st) { outcome = st; });
  writer.WaitIdle();
  loop_.RunPending();
  EXPECT_EQ(outcome.code(), absl::StatusCode::kNotFound) << outcome;
  EXPECT_EQ(writer.kept(), 0u);
}

TEST_F(StateWriterTest, AKeptCreationHoldsItsKeysWritesAndLaterCreationsBehindItUntilItIsSaved) {
  std::atomic<bool> creations_up = false;
  std::vector<std::string> made;  // the writes that did something, in order (the writer's thread only)
  auto create = [&](const std::string& name) -> Store::Write {
    return [&, name] {
      if (!creations_up) return absl::UnavailableError("database is unreachable");
      made.push_back("create " + name);
      return store_->PutTemplate({.name = name, .config_json = R"({"v":0})"});
    };
  };
  auto update = [&](const std::string& name, const std::string& value) -> Store::Write {
    return [&, name, value] {
      made.push_back("update " + name + " " + value);
      return store_->UpdateTemplateConfig(name, value);  // NotFound before its creation
    };
  };
  int caught_up = 0;
  StateWriter writer(*store_, loop_, milliseconds(10), [&] { ++caught_up; });
  writer.Create("t", create("t"));
  writer.WaitIdle();
  ASSERT_TRUE(writer.CreationKept());

  absl::Status updated;
  writer.Write("t", update("t", R"({"v":1})"));
  writer.Write("t", update("t", R"({"v":2})"), [&](absl::Status st) { updated = st; });
  writer.Create("u", create("u"));
  writer.Write("other", Put("other", "{}"));
  writer.WaitIdle();
  loop_.RunPending();
  EXPECT_EQ(updated.message(), "database is unreachable") << "it waits behind its creation";
  EXPECT_EQ(Saved("other"), "{}") << "other keys go on";
  EXPECT_EQ(writer.kept(), 2u);
  EXPECT_EQ(caught_up, 0);

  std::this_thread::sleep_for(milliseconds(35));  // a retry runs while creations still fail
  creations_up = true;
  for (int i = 0; i < 500 && writer.kept() > 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(writer.kept(), 0u);
  EXPECT_EQ(made, (std::vector<std::string>{"create t", R"(update t {"v":2})", "create u"}))
      << "in the order handed in, the newest of t's writes after its creation";
  EXPECT_EQ(Saved("t"), R"({"v":2})");
  EXPECT_EQ(Saved("u"), R"({"v":0})");
  EXPECT_FALSE(writer.CreationKept());
  loop_.RunPending();
  EXPECT_EQ(caught_up, 1);
}

TEST_F(StateWriterTest, AFailedWriteOnceIsReportedAndNotKept) {
  StateWriter writer(*store_, loop_, milliseconds(10));
  absl::Status outcome;
  writer.WriteOnce([] { return absl::UnavailableError("database is unreachable"); },
                   [&](absl::Status st) { outcome = st; });
  writer.WaitIdle();
  loop_.RunPending();
  EXPECT_TRUE(absl::IsUnavailable(outcome)) << outcome;
  EXPECT_EQ(writer.kept(), 0u);
  EXPECT_FALSE(writer.Unavailable().has_value());
}

TEST_F(StateWriterTest, WhatWasHandedInIsCommittedAtShutdownAndLateOutcomesAreDropped) {
  bool reported = false;
  {
    StateWriter writer(*store_, loop_);
    std::promise<void> release = BlockWriter(writer);
    writer.Write("a", Put("a", "{}"), [&](absl::Status) { reported = true; });
    release.set_value();
  }
  EXPECT_EQ(Saved("a"), "{}");
  loop_.RunPending();
  EXPECT_FALSE(reported) << "the writer is gone, and what it answered to with it";
}

}  // namespace
}  // namespace det::master
