#pragma once
// The searcher's random number generator: MT19937 exactly as numpy's legacy `RandomState(seed)`
// (init_genrand seeding) and upstream's `nprand` package (reference §5.1), so a search with the
// same `reproducibility.experiment_seed` draws the same hyperparameters, request IDs and trial
// seeds as upstream. Not thread-safe; owned by one Searcher.
#include <array>
#include <cstdint>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/status.h"

namespace det::searcher {

class NpRandom {
 public:
  static constexpr int kStateLen = 624;

  explicit NpRandom(uint32_t seed = 0) { Seed(seed); }

  // numpy's init_genrand(seed).
  void Seed(uint32_t seed);
  // One tempered MT19937 output (numpy's `randint(0, 2**32, dtype=uint64)` draws exactly one).
  uint32_t Bits32();
  // Two outputs, the first one in the upper half.
  uint64_t Bits64();
  // Uniform integer in [0, limit]: masked rejection sampling on Bits32 (Bits64 above 2^32-1).
  uint64_t BitsLimit(uint64_t limit);
  // Uniform integer in [0, n); n must be >= 1 (n == 1 consumes no randomness).
  int64_t Int64n(int64_t n) {
    return static_cast<int64_t>(BitsLimit(static_cast<uint64_t>(n) - 1));
  }
  int64_t Intn(int64_t n) { return Int64n(n); }
  // numpy's random_sample(): ((Bits32>>5)*2^26 + (Bits32>>6)) / 2^53, in [0, 1).
  double UnitInterval();
  // low + (high-low)*UnitInterval(); callers guarantee low < high.
  double Uniform(double low, double high) { return low + (high - low) * UnitInterval(); }

  // {"key": [624 words], "pos": n}, upstream's nprand.State JSON.
  nlohmann::json ToJson() const;
  absl::Status FromJson(const nlohmann::json& state);

  bool operator==(const NpRandom& other) const = default;

 private:
  std::array<uint32_t, kStateLen> key_{};
  int pos_ = kStateLen;
};

}  // namespace det::searcher
