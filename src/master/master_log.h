#pragma once
// The master's own log, kept in memory for GET /api/v1/master/logs (`det master logs`), as upstream
// keeps its last lines in a log buffer. MasterLogSink feeds it from spdlog; the oldest entries go
// once `capacity` is reached. Thread-safe.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/time_util.h"
#include "spdlog/sinks/base_sink.h"

namespace det::master {

struct MasterLogEntry {
  int64_t id = 0;  // from 1, in order
  WallTime time;
  std::string level;  // upstream's enum name: LOG_LEVEL_INFO, ...
  std::string message;
};

class MasterLog {
 public:
  explicit MasterLog(size_t capacity = 10000) : capacity_(capacity) {}

  void Add(WallTime time, std::string level, std::string message);
  // Up to `limit` entries (0: all) with ids above `after`, oldest first.
  std::vector<MasterLogEntry> After(int64_t after, size_t limit = 0) const;
  // The id after which an `offset` begins: entries are skipped from the oldest kept one, or with a
  // negative offset, -offset entries before the newest are shown.
  int64_t IdBeforeOffset(int64_t offset) const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<MasterLogEntry> entries_;  // guarded by mu_
  int64_t next_id_ = 1;                 // guarded by mu_
};

// An spdlog sink that adds every formatted-free message (the text the caller logged) to `log`.
class MasterLogSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit MasterLogSink(std::shared_ptr<MasterLog> log) : log_(std::move(log)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

 private:
  std::shared_ptr<MasterLog> log_;
};

// upstream's LogLevel names, lowest first.
inline constexpr const char* kLogLevelNames[] = {"LOG_LEVEL_TRACE",   "LOG_LEVEL_DEBUG",
                                                 "LOG_LEVEL_INFO",    "LOG_LEVEL_WARNING",
                                                 "LOG_LEVEL_ERROR",   "LOG_LEVEL_CRITICAL"};
bool IsLogLevelName(const std::string& name);
// upstream's LogLevel name for an spdlog level.
const char* LogLevelName(spdlog::level::level_enum level);

}  // namespace det::master
