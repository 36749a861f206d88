#include "master/cluster/state_writer.h"

#include <algorithm>
#include <utility>

#include "spdlog/spdlog.h"

namespace det::master {
bool StateWriter::MadeAgain(const absl::Status& status) {
  return !absl::IsNotFound(status) && !absl::IsAlreadyExists(status) && !absl::IsFailedPrecondition(status) &&
         !absl::IsInvalidArgument(status);
}

StateWriter::StateWriter(Store& store, EventLoop& loop, std::chrono::milliseconds retry_interval,
                         std::function<void()> caught_up)
    : store_(store),
      loop_(loop),
      retry_interval_(retry_interval),
      caught_up_(std::move(caught_up)),
      thread_([this] { Run(); }) {}

StateWriter::~StateWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  for (const auto& [key, kept] : kept_) spdlog::error("{}: not saved (the database refused it until shutdown)", key);
}

void StateWriter::Write(std::string key, Store::Write write, Done done) {
  Queue({.key = std::move(key), .write = std::move(write), .done = std::move(done)});
}

void StateWriter::Create(std::string key, Store::Write write, Done done) {
  Queue({.key = std::move(key), .write = std::move(write), .done = std::move(done), .kind = Kind::kCreate});
}

void StateWriter::WriteOnce(Store::Write write, Done done) {
  Queue({.write = std::move(write), .done = std::move(done), .kind = Kind::kOnce});
}

void StateWriter::AfterWritesSoFar(std::function<void()> then) {
  WriteOnce([] { return absl::OkStatus(); }, [then = std::move(then)](absl::Status) { then(); });
}

void StateWriter::Queue(Pending pending) {
  {
    std::lock_guard lock(mu_);
    pending.order = handed_in_++;
    queue_.push_back(std::move(pending));
  }
  wake_.notify_one();
}

bool StateWriter::WaitIdle() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [this] { return finished_ == handed_in_; });
  const bool any = reported_idle_at_ != finished_;
  reported_idle_at_ = finished_;
  return any;
}

size_t StateWriter::kept() const {
  std::lock_guard lock(mu_);
  return kept_.size();
}

bool StateWriter::CreationKept() const {
  std::lock_guard lock(mu_);
  return CreationKeptLocked();
}

bool StateWriter::CreationKeptLocked() const { return FirstKeptCreationLocked() != nullptr; }

const StateWriter::Kept* StateWriter::FirstKeptCreationLocked() const {
  const Kept* first = nullptr;
  for (const auto& [key, kept] : kept_) {
    if (kept.create && (!first || kept.order < first->order)) first = &kept;
  }
  return first;
}

std::optional<absl::Status> StateWriter::Unavailable() const {
  std::lock_guard lock(mu_);
  for (const auto& [key, kept] : kept_) {
    if (absl::IsUnavailable(kept.last_error)) return kept.last_error;
  }
  return std::nullopt;
}

void StateWriter::Run() {
  auto next_retry = std::chrono::steady_clock::now() + retry_interval_;
  for (;;) {
    std::vector<Pending> batch;
    {
      std::unique_lock lock(mu_);
      wake_.wait_until(lock, next_retry, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() && stopping_) {
        lock.unlock();
        RetryKept();  // a last try for what failed
        return;
      }
      batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
      queue_.clear();
    }
    if (std::chrono::steady_clock::now() >= next_retry) {
      RetryKept();
      next_retry = std::chrono::steady_clock::now() + retry_interval_;
    }
    if (!batch.empty()) Commit(std::move(batch));
  }
}

const StateWriter::Kept* StateWriter::WaitsBehindLocked(const Pending& p) const {
  if (p.kind == Kind::kOnce) return nullptr;
  if (p.kind == Kind::kCreate) return FirstKeptCreationLocked();
  auto k = kept_.find(p.key);
  return k != kept_.end() && k->second.create != nullptr ? &k->second : nullptr;
}

void StateWriter::KeepLocked(Pending& p, const absl::Status& error) {
  auto [it, fresh] = kept_.try_emplace(p.key);
  Kept& kept = it->second;
  if (fresh) {
    kept.order = p.order;
    spdlog::warn("{}: not saved ({}); saving it again until the database takes it", p.key, error.ToString());
  }
  if (p.kind == Kind::kCreate) {
    kept.create = std::move(p.write);
  } else {
    kept.latest = std::move(p.write);
  }
  // What waits behind a creation failed as the creation did.
  if (kept.create == nullptr || p.kind == Kind::kCreate || kept.last_error.ok()) kept.last_error = error;
}

void StateWriter::Commit(std::vector<Pending> batch) {
  std::vector<size_t> run;  // the batch's writes made now; the others wait behind kept creations
  std::vector<absl::Status> outcomes(batch.size());
  bool had_kept;
  {
    std::lock_guard lock(mu_);
    had_kept = !kept_.empty();
    for (size_t i = 0; i < batch.size(); ++i) {
      if (const Kept* behind = WaitsBehindLocked(batch[i])) {
        outcomes[i] = behind->last_error;
        KeepLocked(batch[i], outcomes[i]);
      } else {
        run.push_back(i);
      }
    }
  }
  std::vector<Store::Write> writes;
  writes.reserve(run.size());
  for (size_t i : run) writes.push_back(batch[i].write);
  std::vector<absl::Status> ran = store_.WriteBatch(writes);
  {
    std::lock_guard lock(mu_);
    for (size_t r = 0; r < run.size(); ++r) {
      Pending& p = batch[run[r]];
      absl::Status& outcome = outcomes[run[r]] = ran[r];
      if (p.kind == Kind::kOnce) continue;
      auto k = kept_.find(p.key);
      if (p.kind != Kind::kCreate && k != kept_.end() && k->second.create) {
        // Its creation failed earlier in this batch: it waits behind it, whatever it did.
        outcome = k->second.last_error;
        KeepLocked(p, outcome);
      } else if (outcome.ok()) {
        if (k != kept_.end()) kept_.erase(k);
      } else if (MadeAgain(outcome) || (p.kind == Kind::kCreate && CreationKeptLocked())) {
        KeepLocked(p, outcome);  // a creation after a failed one may have failed for want of it
      } else {
        if (k != kept_.end()) kept_.erase(k);
        spdlog::error("{}: not saved ({})", p.key, outcome.ToString());
      }
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!batch[i].done) continue;
      loop_.Post([alive = std::weak_ptr<bool>(alive_), done = std::move(batch[i].done), outcome = outcomes[i]] {
        if (alive.lock()) done(outcome);
      });
    }
    finished_ += batch.size();
    AfterChangeLocked(had_kept);
  }
  idle_.notify_all();
}

void StateWriter::RetryKept() {
  struct Retry {
    std::string key;
    bool create;
    bool latest;
  };
  std::vector<Retry> retries;
  std::vector<Store::Write> writes;
  bool had_kept;
  {
    std::lock_guard lock(mu_);
    had_kept = !kept_.empty();
    std::vector<std::pair<uint64_t, std::string>> in_order;
    for (const auto& [key, kept] : kept_) in_order.emplace_back(kept.order, key);
    std::sort(in_order.begin(), in_order.end());
    for (const auto& [order, key] : in_order) {
      const Kept& kept = kept_.at(key);
      retries.push_back({key, kept.create != nullptr, kept.latest != nullptr});
      if (kept.create && kept.latest) {
        // The newest write runs only on the row its creation just made (or an earlier try did).
        auto created = std::make_shared<bool>(false);
        writes.push_back([create = kept.create, created] {
          absl::Status st = create();
          *created = st.ok() || absl::IsAlreadyExists(st);
          return st;
        });
        writes.push_back([latest = kept.latest, created] {
          return *created ? latest() : absl::FailedPreconditionError("its creation is not saved");
        });
      } else {
        if (kept.create) writes.push_back(kept.create);
        if (kept.latest) writes.push_back(kept.latest);
      }
    }
  }
  if (writes.empty()) return;
  std::vector<absl::Status> outcomes = store_.WriteBatch(writes);
  std::lock_guard lock(mu_);
  size_t next = 0;
  bool creation_failed = false;  // a later creation may have failed for want of it
  for (const Retry& retry : retries) {
    Kept& kept = kept_.at(retry.key);
    if (retry.create) {
      // AlreadyExists: an earlier try that reported failure did commit.
      absl::Status created = outcomes[next++];
      if (!created.ok() && !absl::IsAlreadyExists(created)) {
        if (retry.latest) ++next;  // it ran on no row
        kept.last_error = created;
        if (!MadeAgain(created) && !creation_failed) {
          spdlog::error("{}: not saved ({})", retry.key, created.ToString());
          kept_.erase(retry.key);
        }
        creation_failed = true;
        continue;
      }
      kept.create = nullptr;
    }
    absl::Status saved = retry.latest ? outcomes[next++] : absl::OkStatus();
    if (saved.ok()) {
      spdlog::info("{}: saved", retry.key);
      kept_.erase(retry.key);
    } else if (!MadeAgain(saved)) {
      spdlog::error("{}: not saved ({})", retry.key, saved.ToString());
      kept_.erase(retry.key);
    } else {
      kept.last_error = saved;
    }
  }
  AfterChangeLocked(had_kept);
}

void StateWriter::AfterChangeLocked(bool had_kept) {
  if (!had_kept || !kept_.empty() || !caught_up_) return;
  loop_.Post([alive = std::weak_ptr<bool>(alive_), caught_up = caught_up_] {
    if (alive.lock()) caught_up();
  });
}

}  // namespace det::master
