#include "searcher/rung.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace det::searcher {

size_t Rung::Insert(const std::string& request_id, double metric) {
  size_t before = 0;
  size_t b = 0;
  // The first block whose last value is >= metric holds the insert position.
  while (b < blocks_.size() && blocks_[b].back().metric < metric) before += blocks_[b++].size();
  if (b == blocks_.size()) {
    if (blocks_.empty() || blocks_.back().size() >= kMaxBlock) {
      blocks_.emplace_back();
      b = blocks_.size() - 1;
    } else {
      b = blocks_.size() - 1;
      before -= blocks_[b].size();
    }
  }
  std::vector<Entry>& block = blocks_[b];
  auto pos = std::lower_bound(block.begin(), block.end(), metric,
                              [](const Entry& e, double m) { return e.metric < m; });
  size_t index = before + static_cast<size_t>(pos - block.begin());
  block.insert(pos, Entry{metric, request_id});
  ++size_;
  if (block.size() > kMaxBlock) {
    std::vector<Entry> upper(std::make_move_iterator(block.begin() + kMaxBlock / 2),
                             std::make_move_iterator(block.end()));
    block.resize(kMaxBlock / 2);
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b) + 1, std::move(upper));
  }
  return index;
}

void Rung::Remove(const std::string& request_id) {
  for (size_t b = 0; b < blocks_.size(); ++b) {
    auto& block = blocks_[b];
    for (auto it = block.begin(); it != block.end(); ++it) {
      if (it->request_id != request_id) continue;
      block.erase(it);
      --size_;
      if (block.empty()) blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
      return;
    }
  }
}

nlohmann::json Rung::ToJson() const {
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& block : blocks_) {
    for (const Entry& e : block)
      metrics.push_back({{"request_id", e.request_id}, {"metric", e.metric}});
  }
  return {{"units_needed", units_needed_}, {"metrics", std::move(metrics)}};
}

absl::StatusOr<Rung> Rung::FromJson(const nlohmann::json& rung) {
  if (!rung.is_object() || !rung.contains("units_needed") ||
      !rung["units_needed"].is_number_unsigned() || !rung.contains("metrics") ||
      !rung["metrics"].is_array()) {
    return absl::InvalidArgumentError("searcher snapshot: malformed rung");
  }
  Rung out(rung["units_needed"].get<uint64_t>());
  double last = -std::numeric_limits<double>::infinity();
  for (const auto& m : rung["metrics"]) {
    if (!m.is_object() || !m.contains("request_id") || !m["request_id"].is_string() ||
        !m.contains("metric") || !m["metric"].is_number()) {
      return absl::InvalidArgumentError("searcher snapshot: malformed rung metric");
    }
    double v = m["metric"].get<double>();
    if (v < last) return absl::InvalidArgumentError("searcher snapshot: rung metrics out of order");
    last = v;
    if (out.blocks_.empty() || out.blocks_.back().size() >= kMaxBlock / 2)
      out.blocks_.emplace_back();
    out.blocks_.back().push_back(Entry{v, m["request_id"].get<std::string>()});
    ++out.size_;
  }
  return out;
}

}  // namespace det::searcher
