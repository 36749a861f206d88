#include "agent/log_shipper.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "agent/fake_log_sink.h"

namespace det::agent {
namespace {

using ::testing::ElementsAre;
using namespace std::chrono_literals;

LogShipperOptions FastOptions() {
  LogShipperOptions o;
  o.flush_interval = 50ms;
  o.first_retry_delay = 1ms;
  o.max_retry_delay = 4ms;
  return o;
}

TEST(LogShipperTest, BatchesAtMaxBatchAndFlushesRestOnClose) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  LogShipperOptions o = FastOptions();
  o.flush_interval = 10s;  // only the size limit and Close() may flush
  o.max_batch = 10;
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", o);
  for (int i = 0; i < 25; ++i) shipper.Add(StdType::kStdout, "l" + std::to_string(i));
  shipper.Close();
  std::lock_guard lock(shared->mu);
  ASSERT_EQ(shared->batches.size(), 3u);
  EXPECT_EQ(shared->batches[0].size(), 10u);
  EXPECT_EQ(shared->batches[1].size(), 10u);
  EXPECT_EQ(shared->batches[2].size(), 5u);
  EXPECT_EQ(shared->batches[0][0].text, "l0");
  EXPECT_EQ(shared->batches[2][4].text, "l24");
  EXPECT_EQ(shipper.shipped(), 25u);
}

TEST(LogShipperTest, FlushesAfterInterval) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", FastOptions());
  shipper.Add(StdType::kStderr, "hello");
  {
    std::unique_lock lock(shared->mu);
    ASSERT_TRUE(shared->cv.wait_for(lock, 2s, [&] { return !shared->batches.empty(); }));
    EXPECT_EQ(shared->batches[0][0].stdtype, StdType::kStderr);
  }
  EXPECT_THAT(shared->Texts(), ElementsAre("hello"));
}

TEST(LogShipperTest, RetriesFailedPosts) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  shared->fail_next = 3;
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", FastOptions());
  shipper.Add(StdType::kStdout, "a");
  shipper.Close();
  EXPECT_THAT(shared->Texts(), ElementsAre("a"));
  EXPECT_EQ(shared->posts, 4);
  EXPECT_EQ(shipper.dropped(), 0u);
}

TEST(LogShipperTest, WaitsForTheMasterWhileTheTaskRuns) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  shared->fail_next = 12;  // far more than max_attempts
  LogShipperOptions o = FastOptions();
  o.max_attempts = 3;
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", o);
  shipper.Add(StdType::kStdout, "a");
  {
    std::unique_lock lock(shared->mu);
    ASSERT_TRUE(shared->cv.wait_for(lock, 5s, [&] { return !shared->batches.empty(); }));
  }
  shipper.Close();
  EXPECT_THAT(shared->Texts(), ElementsAre("a"));
  EXPECT_EQ(shared->posts, 13);
  EXPECT_EQ(shipper.dropped(), 0u);
}

TEST(LogShipperTest, DropsAfterMaxAttemptsAndCountsIt) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  shared->fail_next = 100;
  LogShipperOptions o = FastOptions();
  o.max_attempts = 3;
  o.flush_interval = 10s;  // one batch, flushed by Close()
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", o);
  shipper.Add(StdType::kStdout, "a");
  shipper.Add(StdType::kStdout, "b");
  shipper.Close();
  EXPECT_EQ(shipper.dropped(), 2u);
  EXPECT_EQ(shipper.shipped(), 0u);
  EXPECT_EQ(shared->posts, 3);
}

TEST(LogShipperTest, PermanentErrorsAreNotRetried) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  shared->fail_next = 1;
  shared->failure = absl::NotFoundError("no such allocation");
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", FastOptions());
  shipper.Add(StdType::kStdout, "a");
  shipper.Close();
  EXPECT_EQ(shared->posts, 1);
  EXPECT_EQ(shipper.dropped(), 1u);
}

TEST(LogShipperTest, CapsBufferedLines) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  LogShipperOptions o = FastOptions();
  o.flush_interval = 10s;
  o.max_batch = 1000;
  o.max_buffered = 5;
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", o);
  for (int i = 0; i < 8; ++i) shipper.Add(StdType::kStdout, std::to_string(i));
  shipper.Close();
  EXPECT_THAT(shared->Texts(), ElementsAre("0", "1", "2", "3", "4"));
  EXPECT_EQ(shipper.dropped(), 3u);
  shipper.Add(StdType::kStdout, "after close");  // ignored, not a crash
}

TEST(LogShipperTest, ReportsHandledLinesAfterEachBatch) {
  auto shared = std::make_shared<FakeLogSink::Shared>();
  shared->fail_next = 100;  // every batch is given up on, and still counts as handled
  LogShipperOptions o = FastOptions();
  o.flush_interval = 10s;
  o.max_batch = 4;
  o.max_attempts = 1;
  std::vector<uint64_t> handled;
  o.on_handled = [&handled](uint64_t lines) { handled.push_back(lines); };
  LogShipper shipper(std::make_unique<FakeLogSink>(shared), "t", o);
  for (int i = 0; i < 10; ++i) shipper.Add(StdType::kStdout, std::to_string(i));
  shipper.Close();
  EXPECT_THAT(handled, ElementsAre(4, 8, 10));
}

}  // namespace
}  // namespace det::agent
