#pragma once
// An EventLoop for tests: work runs when the test calls RunPending / AdvanceBy, on the test's thread.
// Other threads (a writer's) may post to it.
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "master/event_loop.h"

namespace det::master {

class ManualLoop : public EventLoop {
 public:
  void Post(std::function<void()> fn) override {
    std::lock_guard lock(mu_);
    ready_.push_back(std::move(fn));
  }
  void PostAfter(std::chrono::milliseconds delay, std::function<void()> fn) override {
    std::lock_guard lock(mu_);
    timers_.emplace(now_ + delay, std::move(fn));
  }
  // Called by RunPending once everything posted has run: waits for work on other threads that posts
  // here (a StateWriter's outcomes), and says whether there was any.
  void SetSettle(std::function<bool()> settle) { settle_ = std::move(settle); }
  // Runs everything posted, including work posted while running, and what it settles.
  void RunPending() { Run(true); }
  // The same without settling: what other threads have not posted yet is left.
  void RunReady() { Run(false); }
  // Start at the real time of the loop's creation, and move only with AdvanceBy.
  std::chrono::system_clock::time_point Now() const override {
    std::lock_guard lock(mu_);
    return wall_start_ + now_;
  }
  std::chrono::steady_clock::time_point SteadyNow() const override {
    std::lock_guard lock(mu_);
    return steady_start_ + now_;
  }
  void AdvanceBy(std::chrono::milliseconds d) {
    std::unique_lock lock(mu_);
    const std::chrono::milliseconds until = now_ + d;
    // Each timer runs at its own time.
    while (!timers_.empty() && timers_.begin()->first <= until) {
      now_ = std::max(now_, timers_.begin()->first);
      auto fn = std::move(timers_.begin()->second);
      timers_.erase(timers_.begin());
      lock.unlock();
      fn();
      RunPending();
      lock.lock();
    }
    now_ = until;
    lock.unlock();
    RunPending();
  }

 private:
  void Run(bool settle) {
    for (;;) {
      std::vector<std::function<void()>> batch;
      {
        std::lock_guard lock(mu_);
        batch.swap(ready_);
      }
      if (batch.empty() && !(settle && settle_ && settle_())) return;
      for (auto& fn : batch) fn();
    }
  }

  mutable std::mutex mu_;
  const std::chrono::system_clock::time_point wall_start_ = std::chrono::system_clock::now();
  const std::chrono::steady_clock::time_point steady_start_ = std::chrono::steady_clock::now();
  std::function<bool()> settle_;
  std::chrono::milliseconds now_{0};                                     // guarded by mu_
  std::vector<std::function<void()>> ready_;                             // guarded by mu_
  std::multimap<std::chrono::milliseconds, std::function<void()>> timers_;  // guarded by mu_
};

}  // namespace det::master
