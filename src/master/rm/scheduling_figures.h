#pragma once
// How long a resource manager spent deciding placements, for observers (Prometheus).
#include <cstdint>

namespace det::master {

struct SchedulingFigures {
  uint64_t passes = 0;
  double seconds_total = 0;
  double last_pass_seconds = 0;

  // Another manager's figures added to these (the last pass: the longer of the two).
  void Add(const SchedulingFigures& other) {
    passes += other.passes;
    seconds_total += other.seconds_total;
    if (other.last_pass_seconds > last_pass_seconds) last_pass_seconds = other.last_pass_seconds;
  }
};

}  // namespace det::master
