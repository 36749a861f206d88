#include "searcher/nprand.h"

#include <nlohmann/json.hpp>

namespace det::searcher {
namespace {
constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfu;
constexpr uint32_t kUpperMask = 0x80000000u;
constexpr uint32_t kLowerMask = 0x7fffffffu;

uint32_t Twist(uint32_t a, uint32_t b, uint32_t m) {
  uint32_t y = (a & kUpperMask) | (b & kLowerMask);
  return m ^ (y >> 1) ^ ((0u - (y & 1u)) & kMatrixA);
}
}  // namespace

void NpRandom::Seed(uint32_t seed) {
  for (int pos = 0; pos < kStateLen; ++pos) {
    key_[pos] = seed;
    seed = 1812433253u * (seed ^ (seed >> 30)) + static_cast<uint32_t>(pos) + 1u;
  }
  pos_ = kStateLen;
}

uint32_t NpRandom::Bits32() {
  if (pos_ >= kStateLen) {
    int i = 0;
    for (; i < kStateLen - kM; ++i) key_[i] = Twist(key_[i], key_[i + 1], key_[i + kM]);
    for (; i < kStateLen - 1; ++i) key_[i] = Twist(key_[i], key_[i + 1], key_[i + kM - kStateLen]);
    key_[kStateLen - 1] = Twist(key_[kStateLen - 1], key_[0], key_[kM - 1]);
    pos_ = 0;
  }
  uint32_t y = key_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

uint64_t NpRandom::Bits64() {
  uint64_t upper = static_cast<uint64_t>(Bits32()) << 32;
  return upper | Bits32();
}

uint64_t NpRandom::BitsLimit(uint64_t limit) {
  if (limit == 0) return 0;
  uint64_t mask = limit;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  if (limit <= 0xffffffffull) {
    for (;;) {
      uint64_t v = Bits32() & mask;
      if (v <= limit) return v;
    }
  }
  for (;;) {
    uint64_t v = Bits64() & mask;
    if (v <= limit) return v;
  }
}

double NpRandom::UnitInterval() {
  double a = static_cast<double>(Bits32() >> 5);
  double b = static_cast<double>(Bits32() >> 6);
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

nlohmann::json NpRandom::ToJson() const { return nlohmann::json{{"key", key_}, {"pos", pos_}}; }

absl::Status NpRandom::FromJson(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("key") || !state["key"].is_array() ||
      state["key"].size() != kStateLen || !state.contains("pos") ||
      !state["pos"].is_number_integer()) {
    return absl::InvalidArgumentError(
        "searcher snapshot: rand must be {key: [624 ints], pos: int}");
  }
  int pos = state["pos"].get<int>();
  if (pos < 0 || pos > kStateLen) {
    return absl::InvalidArgumentError("searcher snapshot: rand.pos out of range");
  }
  std::array<uint32_t, kStateLen> key{};
  for (int i = 0; i < kStateLen; ++i) {
    const auto& w = state["key"][i];
    if (!w.is_number_unsigned() || w.get<uint64_t>() > 0xffffffffull) {
      return absl::InvalidArgumentError("searcher snapshot: rand.key words must be uint32");
    }
    key[i] = w.get<uint32_t>();
  }
  key_ = key;
  pos_ = pos;
  return absl::OkStatus();
}

}  // namespace det::searcher
