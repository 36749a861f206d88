#include "master/cluster/state_writer.h"

#include <utility>

#include "spdlog/spdlog.h"

namespace det::master {
namespace {

// Whether making the same write again may succeed: not when the database judged the write itself.
bool WorthRetrying(const absl::Status& status) {
  return !absl::IsNotFound(status) && !absl::IsAlreadyExists(status) && !absl::IsFailedPrecondition(status) &&
         !absl::IsInvalidArgument(status);
}

}  // namespace

StateWriter::StateWriter(Store& store, EventLoop& loop, std::chrono::milliseconds retry_interval)
    : store_(store), loop_(loop), retry_interval_(retry_interval), thread_([this] { Run(); }) {}

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
  {
    std::lock_guard lock(mu_);
    queue_.push_back({std::move(key), std::move(write), std::move(done)});
    ++handed_in_;
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

std::optional<absl::Status> StateWriter::Unavailable() const {
  std::lock_guard lock(mu_);
  for (const auto& [key, kept] : kept_) {
    if (kept.unavailable) return last_unavailable_;
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

void StateWriter::Commit(std::vector<Pending> batch) {
  std::vector<Store::Write> writes;
  writes.reserve(batch.size());
  for (const Pending& p : batch) writes.push_back(p.write);
  std::vector<absl::Status> outcomes = store_.WriteBatch(writes);
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < batch.size(); ++i) {
      Pending& p = batch[i];
      if (outcomes[i].ok()) {
        kept_.erase(p.key);
      } else if (!WorthRetrying(outcomes[i])) {
        kept_.erase(p.key);
        spdlog::error("{}: not saved ({})", p.key, outcomes[i].ToString());
      } else {
        if (kept_.count(p.key) == 0) {
          spdlog::warn("{}: not saved ({}); saving it again until the database takes it", p.key,
                       outcomes[i].ToString());
        }
        kept_[p.key] = {std::move(p.write), absl::IsUnavailable(outcomes[i])};
        if (absl::IsUnavailable(outcomes[i])) last_unavailable_ = outcomes[i];
      }
      if (p.done) {
        loop_.Post([alive = std::weak_ptr<bool>(alive_), done = std::move(p.done), outcome = outcomes[i]] {
          if (alive.lock()) done(outcome);
        });
      }
    }
    finished_ += batch.size();
  }
  idle_.notify_all();
}

void StateWriter::RetryKept() {
  std::vector<std::string> keys;
  std::vector<Store::Write> writes;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, kept] : kept_) {
      keys.push_back(key);
      writes.push_back(kept.write);
    }
  }
  if (writes.empty()) return;
  std::vector<absl::Status> outcomes = store_.WriteBatch(writes);
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (outcomes[i].ok()) {
      spdlog::info("{}: saved", keys[i]);
      kept_.erase(keys[i]);
    } else if (!WorthRetrying(outcomes[i])) {
      spdlog::error("{}: not saved ({})", keys[i], outcomes[i].ToString());
      kept_.erase(keys[i]);
    } else {
      kept_[keys[i]].unavailable = absl::IsUnavailable(outcomes[i]);
      if (absl::IsUnavailable(outcomes[i])) last_unavailable_ = outcomes[i];
    }
  }
}

}  // namespace det::master
