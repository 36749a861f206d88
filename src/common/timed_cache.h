#pragma once
// Values read from somewhere slow (the database), kept for a while: a value younger than `ttl` is
// fresh; an older one is still there for when the source cannot be reached. At most `capacity`
// values are kept (all are dropped when it is full: simpler than LRU, and they are read again in one
// go). Thread-safe.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace det {

template <class K, class V>
class TimedCache {
 public:
  using Clock = std::chrono::steady_clock;

  TimedCache(Clock::duration ttl, size_t capacity) : ttl_(ttl), capacity_(capacity) {}

  // The kept value when it was put less than `ttl` before `now`.
  std::optional<V> Fresh(const K& key, Clock::time_point now) const {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end() || now - it->second.put_at >= ttl_) return std::nullopt;
    return it->second.value;
  }
  // The kept value however old.
  std::optional<V> Any(const K& key) const {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second.value;
  }
  void Put(const K& key, V value, Clock::time_point now) {
    std::lock_guard lock(mu_);
    if (entries_.size() >= capacity_ && !entries_.contains(key)) entries_.clear();
    entries_.insert_or_assign(key, Entry{std::move(value), now});
  }
  void Erase(const K& key) {
    std::lock_guard lock(mu_);
    entries_.erase(key);
  }

 private:
  struct Entry {
    V value;
    Clock::time_point put_at;
  };

  const Clock::duration ttl_;
  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<K, Entry> entries_;  // guarded by mu_
};

}  // namespace det
