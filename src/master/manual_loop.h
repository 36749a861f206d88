#pragma once
// An EventLoop for tests: work runs when the test calls RunPending / AdvanceBy, on the test's thread.
#include <map>
#include <vector>

#include "master/event_loop.h"

namespace det::master {

class ManualLoop : public EventLoop {
 public:
  void Post(std::function<void()> fn) override { ready_.push_back(std::move(fn)); }
  void PostAfter(std::chrono::milliseconds delay, std::function<void()> fn) override {
    timers_.emplace(now_ + delay, std::move(fn));
  }
  // Runs everything posted, including work posted while running.
  void RunPending() {
    while (!ready_.empty()) {
      auto batch = std::move(ready_);
      ready_.clear();
      for (auto& fn : batch) fn();
    }
  }
  void AdvanceBy(std::chrono::milliseconds d) {
    now_ += d;
    while (!timers_.empty() && timers_.begin()->first <= now_) {
      auto fn = std::move(timers_.begin()->second);
      timers_.erase(timers_.begin());
      fn();
      RunPending();
    }
    RunPending();
  }

 private:
  std::chrono::milliseconds now_{0};
  std::vector<std::function<void()>> ready_;
  std::multimap<std::chrono::milliseconds, std::function<void()>> timers_;
};

}  // namespace det::master
