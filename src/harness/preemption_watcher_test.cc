#include "harness/preemption_watcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>


namespace det::harness {
namespace {

using std::chrono::milliseconds;

// A poller whose answers are scripted; a poll with no scripted answer blocks until one is added
// (Answer) or Cancel().
class FakePoller : public PreemptionPoller {
 public:
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<int> timeouts;
    std::vector<absl::StatusOr<bool>> answers;
    bool cancelled = false;
  };
  explicit FakePoller(std::shared_ptr<Shared> s) : s_(std::move(s)) {}

  absl::StatusOr<bool> Poll(int timeout_seconds) override {
    std::unique_lock<std::mutex> lock(s_->mu);
    int n = static_cast<int>(s_->timeouts.size());
    s_->timeouts.push_back(timeout_seconds);
    s_->cv.notify_all();
    s_->cv.wait(lock, [&] { return s_->cancelled || n < static_cast<int>(s_->answers.size()); });
    if (n < static_cast<int>(s_->answers.size())) return s_->answers[n];
    return absl::CancelledError("cancelled");
  }
  void Cancel() override {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->cancelled = true;
    s_->cv.notify_all();
  }

 private:
  std::shared_ptr<Shared> s_;
};

TEST(PreemptionWatcherTest, FirstPollIsQuickThenLongPollsUntilTrue) {
  auto s = std::make_shared<FakePoller::Shared>();
  s->answers = {false, false, true};
  PreemptionWatcher w(std::make_unique<FakePoller>(s), {60, milliseconds(1)});
  EXPECT_FALSE(w.ShouldPreempt());  // not started
  w.Start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!w.ShouldPreempt() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_TRUE(w.ShouldPreempt());
  w.Stop();
  std::lock_guard<std::mutex> lock(s->mu);
  EXPECT_EQ(s->timeouts, (std::vector<int>{0, 60, 60}));  // no polling after true
}

TEST(PreemptionWatcherTest, FailuresCountAsFalseAndAreRetried) {
  auto s = std::make_shared<FakePoller::Shared>();
  s->answers = {absl::UnavailableError("down"), absl::UnavailableError("down")};
  PreemptionWatcher w(std::make_unique<FakePoller>(s), {60, milliseconds(1)});
  w.Start();
  bool first = w.ShouldPreempt();  // blocks for the first answer only
  EXPECT_FALSE(first);
  {
    // Retried after both failures: the third poll waits for an answer, which is now "preempt".
    std::unique_lock<std::mutex> lock(s->mu);
    s->cv.wait(lock, [&] { return s->timeouts.size() == 3; });
    EXPECT_FALSE(w.ShouldPreempt());
    s->answers.push_back(true);
    s->cv.notify_all();
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!w.ShouldPreempt() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_TRUE(w.ShouldPreempt());
}

TEST(PreemptionWatcherTest, StopDoesNotWaitForALongPoll) {
  auto s = std::make_shared<FakePoller::Shared>();
  s->answers = {false};
  auto w = std::make_unique<PreemptionWatcher>(std::make_unique<FakePoller>(s),
                                               PreemptionWatcher::Options{60, milliseconds(1)});
  w->Start();
  {
    std::unique_lock<std::mutex> lock(s->mu);
    s->cv.wait(lock, [&] { return s->timeouts.size() == 2; });  // in the long poll now
  }
  auto start = std::chrono::steady_clock::now();
  w.reset();  // the destructor stops the watcher
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
}

}  // namespace
}  // namespace det::harness
