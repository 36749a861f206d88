#include "searcher/search_method.h"

#include <array>

#include "common/json_yaml.h"
#include "searcher/hyperparameter_sampling.h"
#include "searcher/nprand.h"

namespace det::searcher {
namespace {

std::string RandomUuid(NpRandom& rand) {
  std::array<uint8_t, 16> b{};
  for (int i = 0; i < 4; ++i) {
    uint32_t v = rand.Bits32();
    for (int j = 0; j < 4; ++j) b[i * 4 + j] = static_cast<uint8_t>(v >> (8 * j));
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 0xf]);
  }
  return out;
}

}  // namespace

Action NewCreate(SearchContext& ctx, const nlohmann::json& hparams) {
  Action a{.kind = Action::Kind::kCreateTrial};
  a.hparams_json = DumpJson(hparams);
  a.request_id = RandomUuid(ctx.rand);
  a.seed = static_cast<uint32_t>(ctx.rand.Int64n(int64_t{1} << 31));
  return a;
}

Action NewRandomCreate(SearchContext& ctx) {
  return NewCreate(ctx, SampleAll(ctx.hparams, ctx.rand));
}

Action NewStop(const std::string& request_id) {
  return Action{.kind = Action::Kind::kStopTrial, .request_id = request_id};
}

}  // namespace det::searcher
