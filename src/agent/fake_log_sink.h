#pragma once
// A LogSink for tests: records every batch it accepts, and can be told to fail.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "agent/log_sink.h"

namespace det::agent {

class FakeLogSink : public LogSink {
 public:
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::vector<LogLine>> batches;  // accepted ones
    int posts = 0;                              // attempts, accepted or not
    int fail_next = 0;                          // refuse this many posts with `failure`
    absl::Status failure = absl::UnavailableError("master away");

    std::vector<std::string> Texts() {
      std::lock_guard lock(mu);
      std::vector<std::string> out;
      for (const auto& b : batches) {
        for (const auto& l : b) out.push_back(l.text);
      }
      return out;
    }
  };

  explicit FakeLogSink(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

  absl::Status Post(const std::vector<LogLine>& lines) override {
    std::lock_guard lock(shared_->mu);
    ++shared_->posts;
    if (shared_->fail_next > 0) {
      --shared_->fail_next;
      return shared_->failure;
    }
    shared_->batches.push_back(lines);
    shared_->cv.notify_all();
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace det::agent
