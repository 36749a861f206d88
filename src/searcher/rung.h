#pragma once
// One rung of an ASHA bracket: the time a trial needs to reach it and the metrics of the trials
// that reached it, in ascending order (smaller is better after sign normalisation).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace det::searcher {

class Rung {
 public:
  explicit Rung(uint64_t units_needed = 0) : units_needed_(units_needed) {}

  uint64_t units_needed() const { return units_needed_; }
  size_t size() const { return size_; }

  // Inserts before any equal values (upstream's sort.Search for the first metric >= value) and
  // returns the insert index, i.e. how many recorded metrics are strictly better. O(sqrt(n)).
  size_t Insert(const std::string& request_id, double metric);
  // Removes the first entry of `request_id`, if any. O(n); only invalid-HP trials need it.
  void Remove(const std::string& request_id);

  // {"units_needed": u, "metrics": [{"request_id": id, "metric": m}, ...]} in ascending order.
  nlohmann::json ToJson() const;
  static absl::StatusOr<Rung> FromJson(const nlohmann::json& rung);

 private:
  struct Entry {
    double metric;
    std::string request_id;
  };
  // Sorted blocks, each non-empty, split when they grow past kMaxBlock, so an insert moves at
  // most kMaxBlock entries and finds its block in O(#blocks).
  static constexpr size_t kMaxBlock = 512;
  uint64_t units_needed_;
  size_t size_ = 0;
  std::vector<std::vector<Entry>> blocks_;
};

}  // namespace det::searcher
