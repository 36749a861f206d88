#include "master/master_log.h"

#include <algorithm>
#include <iterator>

namespace det::master {

void MasterLog::Add(WallTime time, std::string level, std::string message) {
  std::lock_guard lock(mu_);
  entries_.push_back({next_id_++, time, std::move(level), std::move(message)});
  while (entries_.size() > capacity_) entries_.pop_front();
}

std::vector<MasterLogEntry> MasterLog::After(int64_t after, size_t limit) const {
  std::lock_guard lock(mu_);
  auto first = std::upper_bound(entries_.begin(), entries_.end(), after,
                                [](int64_t id, const MasterLogEntry& e) { return id < e.id; });
  std::vector<MasterLogEntry> out;
  for (auto it = first; it != entries_.end() && (limit == 0 || out.size() < limit); ++it) {
    out.push_back(*it);
  }
  return out;
}

int64_t MasterLog::IdBeforeOffset(int64_t offset) const {
  std::lock_guard lock(mu_);
  if (entries_.empty()) return next_id_ - 1;
  int64_t oldest = entries_.front().id;
  int64_t newest = entries_.back().id;
  int64_t start = offset >= 0 ? oldest + offset : newest + 1 + offset;
  return std::clamp(start, oldest, newest + 1) - 1;
}

void MasterLogSink::sink_it_(const spdlog::details::log_msg& msg) {
  log_->Add(msg.time, LogLevelName(msg.level), std::string(msg.payload.data(), msg.payload.size()));
}

bool IsLogLevelName(const std::string& name) {
  return std::find(std::begin(kLogLevelNames), std::end(kLogLevelNames), name) !=
         std::end(kLogLevelNames);
}

const char* LogLevelName(spdlog::level::level_enum level) {
  // spdlog's trace..critical are 0..5, in the same order as upstream's names.
  if (level < spdlog::level::trace || level > spdlog::level::critical) return "LOG_LEVEL_UNSPECIFIED";
  return kLogLevelNames[level];
}

}  // namespace det::master
