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
// run in the order they were handed in, and kept ones are made again in that order.
//
// A key's creation (the insert of its row) is never replaced: while it is kept, the key's later
// writes wait behind it (the newest of them kept), and so does every later creation, since a row
// may refer to one created before it (an allocation to its task).
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

  // `caught_up`, when given, runs on the loop each time the last kept write is saved.
  StateWriter(Store& store, EventLoop& loop, std::chrono::milliseconds retry_interval = std::chrono::seconds(1),
              std::function<void()> caught_up = nullptr);
  // Commits what was handed in, then stops. Outcomes not yet run on the loop are dropped, and writes
  // still kept after failing are lost (the log names them).
  ~StateWriter();
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;

  // Whether a write that failed with `status` is kept and made again (the database did not judge the
  // write itself: it was unreachable, say).
  static bool MadeAgain(const absl::Status& status);

  // Queues `write` of `key`; `done`, when given, runs on the loop with its first outcome (for a write
  // waiting behind a kept creation: the creation's error).
  void Write(std::string key, Store::Write write, Done done = nullptr);
  // Queues the creation of `key`'s row (see above).
  void Create(std::string key, Store::Write write, Done done = nullptr);
  // Queues a write that is not kept when it fails: its outcome goes to `done` alone (a creation a user
  // asked for, who is answered with the error).
  void WriteOnce(Store::Write write, Done done);
  // Runs `then` on the loop once every write handed in before it has its first outcome.
  void AfterWritesSoFar(std::function<void()> then);
  // Blocks until every write handed in so far has its first outcome posted to the loop. Returns
  // whether any was handed in since the last call. For tests, which run the loop by hand.
  bool WaitIdle();
  // Keys whose failed writes wait to be made again.
  size_t kept() const;
  // Whether a creation is kept: whatever needs a new row durable (a process authenticating against
  // its allocation's) waits.
  bool CreationKept() const;
  // While a kept write last failed because the database is unavailable (Unavailable: unreachable,
  // disk full), that error: changes a user asks for are refused with it rather than left unsaved.
  std::optional<absl::Status> Unavailable() const;

 private:
  enum class Kind { kUpdate, kCreate, kOnce };
  struct Kept {
    uint64_t order = 0;     // when its first write was handed in
    Store::Write create;    // the row's creation, not saved yet (or none)
    Store::Write latest;    // the newest other write (or none)
    absl::Status last_error;
  };
  struct Pending {
    std::string key;
    Store::Write write;
    Done done;
    Kind kind = Kind::kUpdate;
    uint64_t order = 0;
  };
  void Queue(Pending pending);
  void Run();
  // Commits one batch and sorts out its outcomes (on the writer's thread, without mu_).
  void Commit(std::vector<Pending> batch);
  void RetryKept();
  // The kept creation `p` must wait behind rather than run now, if any.
  const Kept* WaitsBehindLocked(const Pending& p) const;
  const Kept* FirstKeptCreationLocked() const;
  bool CreationKeptLocked() const;
  // Keeps `p` after it failed with `error` (or, waiting behind a creation, without running).
  void KeepLocked(Pending& p, const absl::Status& error);
  void AfterChangeLocked(bool had_kept);

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
  std::function<void()> caught_up_;
  uint64_t handed_in_ = 0;                    // guarded by mu_
  uint64_t finished_ = 0;                     // guarded by mu_
  uint64_t reported_idle_at_ = 0;             // guarded by mu_
  bool stopping_ = false;                     // guarded by mu_
  std::thread thread_;
};

}  // namespace det::master
