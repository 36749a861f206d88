#pragma once
// The cluster's write-behind queue: the cluster's loop hands in writes of its state and goes on, so
// it never waits on the database. One thread commits everything handed in meanwhile as one batch
// (Store::WriteBatch: one transaction, a failed write undone alone), then posts each write's outcome
// back to the loop: whatever must survive a crash is acknowledged from there, once it is durable.
//
// A write that fails is kept, one per key (an entity: "trial 7"), and made again every
// `retry_interval` until it succeeds, so the database catches up with the master's memory once
// storage recovers. Each write carries its entity's whole state (or supersedes what it replaces), so
// a newer write of a key replaces the kept one, and one that succeeds makes the kept one moot. Writes
// run in the order they were handed in.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "master/db/store.h"
#include "master/event_loop.h"

namespace det::master {

class StateWriter {
 public:
  using Done = std::function<void(absl::Status)>;

  StateWriter(Store& store, EventLoop& loop, std::chrono::milliseconds retry_interval = std::chrono::seconds(1));
  // Commits what was handed in, then stops. Outcomes not yet run on the loop are dropped, and writes
  // still kept after failing are lost (the log names them).
  ~StateWriter();
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;

  // Queues `write` of `key`; `done`, when given, runs on the loop with its first outcome.
  void Write(std::string key, Store::Write write, Done done = nullptr);
  // Blocks until every write handed in so far has its first outcome posted to the loop. Returns
  // whether any was handed in since the last call. For tests, which run the loop by hand.
  bool WaitIdle();
  // Failed writes waiting to be made again.
  size_t kept() const;
  // While a kept write last failed because the database is unavailable (Unavailable: unreachable,
  // disk full), that error: changes a user asks for are refused with it rather than left unsaved.
  std::optional<absl::Status> Unavailable() const;

 private:
  struct Kept {
    Store::Write write;
    bool unavailable = false;  // its last failure was Unavailable
  };
  struct Pending {
    std::string key;
    Store::Write write;
    Done done;
  };
  void Run();
  // Commits one batch and sorts out its outcomes (on the writer's thread, without mu_).
  void Commit(std::vector<Pending> batch);
  void RetryKept();

  Store& store_;
  EventLoop& loop_;
  const std::chrono::milliseconds retry_interval_;
  // Outcomes posted to the loop run only while this lives.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<Pending> queue_;                // guarded by mu_
  std::map<std::string, Kept> kept_;          // guarded by mu_ (changed only on the writer's thread)
  absl::Status last_unavailable_;             // guarded by mu_
  uint64_t handed_in_ = 0;                    // guarded by mu_
  uint64_t finished_ = 0;                     // guarded by mu_
  uint64_t reported_idle_at_ = 0;             // guarded by mu_
  bool stopping_ = false;                     // guarded by mu_
  std::thread thread_;
};

}  // namespace det::master
