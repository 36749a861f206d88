#pragma once
// Batches one task's log lines and ships them on its own thread, so the task's output readers
// never wait for the network. A batch goes out when it holds `max_batch` lines, when its oldest line
// is `flush_interval` old, and on Close(). Failed posts are retried with backoff: for as long as it
// takes until Close() (a master away or unable to store them is waited for; lines beyond
// `max_buffered` are dropped meanwhile), then `max_attempts` times. A batch given up on, or refused
// for good, is dropped with a warning naming the count (never silently).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "agent/log_sink.h"

namespace det::agent {

struct LogShipperOptions {
  size_t max_batch = 1000;
  std::chrono::milliseconds flush_interval{200};
  // Per batch once Close() was called; after a batch was dropped, 1 until a post succeeds again.
  int max_attempts = 5;
  std::chrono::milliseconds first_retry_delay{250};
  std::chrono::milliseconds max_retry_delay{4000};
  // Lines held while the master is slow or away; beyond this, new lines are dropped (and counted).
  size_t max_buffered = 1'000'000;
  // Called on the shipping thread after each batch was handled (shipped, or given up on) with the
  // number of lines added so far that are handled: every line up to the batch's last one, the
  // lines dropped for lack of room among them included.
  std::function<void(uint64_t lines)> on_handled;
};

class LogShipper {
 public:
  // `name` identifies the task in the agent's own warnings.
  LogShipper(std::unique_ptr<LogSink> sink, std::string name, LogShipperOptions options = {});
  // Close()s.
  ~LogShipper();
  LogShipper(const LogShipper&) = delete;
  LogShipper& operator=(const LogShipper&) = delete;

  // Queues a line stamped with the current time. Never blocks on the network. Thread-safe.
  void Add(StdType type, std::string text);
  // Ships everything queued (with retries), then stops the thread. Lines added afterwards are
  // ignored. Idempotent; thread-safe.
  void Close();

  uint64_t shipped() const;  // lines the sink accepted
  uint64_t dropped() const;  // lines given up on

 private:
  void Run();
  // Posts one batch with retries; returns whether it arrived.
  bool Ship(const std::vector<LogLine>& batch);

  const std::unique_ptr<LogSink> sink_;
  const std::string name_;
  const LogShipperOptions options_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  struct Queued {
    std::chrono::steady_clock::time_point enqueued;
    uint64_t number;  // of all lines Add() was given, from 1
    LogLine line;
  };
  std::deque<Queued> queue_;  // guarded by mu_
  bool closing_ = false;      // guarded by mu_
  uint64_t shipped_ = 0;      // guarded by mu_
  uint64_t dropped_ = 0;      // guarded by mu_
  uint64_t overflowed_ = 0;   // lines refused by Add() since the last warning; guarded by mu_
  uint64_t added_ = 0;        // lines Add() was given; guarded by mu_
  bool degraded_ = false;     // the last batch was dropped; only touched by the shipper thread
  std::once_flag close_once_;
  std::thread thread_;
};

}  // namespace det::agent
