#include "harness/worker_group.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "harness/test_util.h"

namespace det::harness {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Runs `body(group)` on `size` threads, one per rank, each with its own joined group.
void RunGroup(int size, const std::function<void(WorkerGroup&)>& body) {
  int port = FreePort();
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([=, &body] {
      auto group = WorkerGroup::Join({.rank = rank, .size = size, .chief_ip = "127.0.0.1", .port = port,
                                      .join_timeout = std::chrono::seconds(20)});
      ASSERT_TRUE(group.ok()) << group.status();
      body(**group);
    });
  }
  for (std::thread& t : threads) t.join();
}

TEST(WorkerGroupTest, GatherGivesTheChiefEveryonesDataInRankOrder) {
  RunGroup(3, [](WorkerGroup& g) {
    auto all = g.Gather("from " + std::to_string(g.rank()));
    ASSERT_TRUE(all.ok()) << all.status();
    if (g.rank() == 0) {
      ASSERT_TRUE(all->has_value());
      EXPECT_THAT(**all, ElementsAre("from 0", "from 1", "from 2"));
    } else {
      EXPECT_FALSE(all->has_value());
    }
  });
}

TEST(WorkerGroupTest, AllGatherAndBroadcastReachEveryone) {
  RunGroup(3, [](WorkerGroup& g) {
    auto all = g.AllGather(std::string(g.rank(), 'x'));  // rank 0 sends an empty string
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_THAT(*all, ElementsAre("", "x", "xx"));
    auto chiefs = g.Broadcast(g.rank() == 0 ? "chief's" : "ignored");
    ASSERT_TRUE(chiefs.ok()) << chiefs.status();
    EXPECT_EQ(*chiefs, "chief's");
  });
}

TEST(WorkerGroupTest, LargeDataArrivesWhole) {
  RunGroup(2, [](WorkerGroup& g) {
    std::string big(8 << 20, static_cast<char>('a' + g.rank()));
    auto all = g.AllGather(big);
    ASSERT_TRUE(all.ok()) << all.status();
    ASSERT_EQ(all->size(), 2u);
    EXPECT_EQ((*all)[1], std::string(8 << 20, 'b'));
  });
}

TEST(WorkerGroupTest, ASizeOfOneNeedsNoNetwork) {
  auto group = WorkerGroup::Join({.rank = 0, .size = 1});
  ASSERT_TRUE(group.ok());
  EXPECT_THAT(*(*group)->AllGather("me"), ElementsAre("me"));
  EXPECT_EQ(*(*group)->Broadcast("me"), "me");
}

TEST(WorkerGroupTest, TheChiefGivesUpOnAWorkerThatNeverComes) {
  auto group = WorkerGroup::Join({.rank = 0, .size = 2, .port = FreePort(),
                                  .join_timeout = std::chrono::milliseconds(200)});
  ASSERT_FALSE(group.ok());
  EXPECT_THAT(group.status().message(), HasSubstr("only 1 of 2 workers joined"));
}

TEST(WorkerGroupTest, AWorkerGivesUpOnAChiefThatNeverListens) {
  auto group = WorkerGroup::Join({.rank = 1, .size = 2, .port = FreePort(),
                                  .join_timeout = std::chrono::milliseconds(300)});
  ASSERT_FALSE(group.ok());
  EXPECT_THAT(group.status().message(), HasSubstr("could not reach the chief"));
}

TEST(WorkerGroupTest, BadRanksAreRefused) {
  EXPECT_FALSE(WorkerGroup::Join({.rank = 2, .size = 2}).ok());
  EXPECT_FALSE(WorkerGroup::Join({.rank = -1, .size = 2}).ok());
  EXPECT_FALSE(WorkerGroup::Join({.rank = 0, .size = 2, .port = 70000}).ok());
}

TEST(WorkerGroupTest, AWorkerThatDiesIsAnErrorNotAHang) {
  int port = FreePort();
  std::thread worker([port] {
    auto group = WorkerGroup::Join({.rank = 1, .size = 2, .port = port, .join_timeout = std::chrono::seconds(20)});
    ASSERT_TRUE(group.ok()) << group.status();
    // Leaves without taking part in the gather: its socket closes.
  });
  auto chief = WorkerGroup::Join({.rank = 0, .size = 2, .port = port, .join_timeout = std::chrono::seconds(20)});
  worker.join();
  ASSERT_TRUE(chief.ok()) << chief.status();
  auto all = (*chief)->Gather("x");
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(all.status().message(), HasSubstr("closed its connection"));
}

}  // namespace
}  // namespace det::harness
