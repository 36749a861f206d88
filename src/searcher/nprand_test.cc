#include "searcher/nprand.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

// Expected values were computed with numpy 1.24 (legacy RandomState, init_genrand seeding), e.g.
//   /usr/bin/python3 -c "import numpy as np; r=np.random.RandomState(0);
//                        print(r.randint(0, 2**32, size=5, dtype=np.uint64))"
// randint(0, 2**32, dtype=uint64) returns one raw MT19937 output per draw; randint(0, n) for
// n <= 2**32 uses the same masked rejection as Intn; random_sample/uniform use the 53-bit formula.
namespace det::searcher {
namespace {

TEST(NpRandomTest, Bits32MatchesNumpy) {
  struct Case {
    uint32_t seed;
    std::vector<uint32_t> want;
  };
  for (const Case& c :
       {Case{0, {2357136044u, 2546248239u, 3071714933u, 3626093760u, 2588848963u}},
        Case{42, {1608637542u, 3421126067u, 4083286876u, 787846414u, 3143890026u}},
        Case{4294967295u, {419326371u, 479346978u, 3918654476u, 2416749639u, 3388880820u}}}) {
    NpRandom r(c.seed);
    for (uint32_t w : c.want) EXPECT_EQ(r.Bits32(), w) << "seed " << c.seed;
  }
}

TEST(NpRandomTest, RegeneratesStateAfter624Outputs) {
  NpRandom r(1);
  std::vector<uint32_t> out;
  for (int i = 0; i < 700; ++i) out.push_back(r.Bits32());
  EXPECT_EQ(out[623], 2006116153u);
  EXPECT_EQ(out[624], 1104314680u);
  EXPECT_EQ(out[699], 2514098677u);
}

TEST(NpRandomTest, UnitIntervalAndUniformMatchNumpy) {
  NpRandom r(0);
  EXPECT_EQ(r.UnitInterval(), 0.5488135039273248);
  EXPECT_EQ(r.UnitInterval(), 0.7151893663724195);
  NpRandom u(123);
  EXPECT_EQ(u.Uniform(-2.5, 7.0), 4.116457263179686);
  EXPECT_EQ(u.Uniform(-2.5, 7.0), 0.21832368202860497);
  EXPECT_EQ(u.Uniform(-2.5, 7.0), -0.3449111911400706);
}

TEST(NpRandomTest, IntnMatchesNumpyRandint) {
  NpRandom r(7);
  for (int64_t want : {4, 9, 6, 3, 3, 7, 7, 9}) EXPECT_EQ(r.Intn(10), want);
  NpRandom s(7);  // the trial seed draw: Int64n(2^31)
  for (int64_t want : {327741615, 976413892, 1202242073})
    EXPECT_EQ(s.Int64n(int64_t{1} << 31), want);
  NpRandom w(3);  // above 2^32: 64-bit draws
  for (int64_t want : {455570294424LL, 1073054410371LL, 790795084744LL}) {
    EXPECT_EQ(w.Int64n(int64_t{1} << 40), want);
  }
}

TEST(NpRandomTest, IntnOfOneConsumesNothing) {
  NpRandom a(5), b(5);
  EXPECT_EQ(a.Intn(1), 0);
  EXPECT_EQ(a.Bits32(), b.Bits32());
}

TEST(NpRandomTest, JsonRoundTripContinuesTheStream) {
  NpRandom a(9);
  for (int i = 0; i < 1000; ++i) a.Bits32();
  NpRandom b(0);
  ASSERT_TRUE(b.FromJson(nlohmann::json::parse(a.ToJson().dump())).ok());
  EXPECT_TRUE(a == b);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.Bits32(), b.Bits32());
}

TEST(NpRandomTest, FromJsonRejectsGarbage) {
  NpRandom r;
  EXPECT_FALSE(r.FromJson(nlohmann::json::object()).ok());
  EXPECT_FALSE(r.FromJson({{"key", {1, 2}}, {"pos", 0}}).ok());
  auto j = r.ToJson();
  j["pos"] = 700;
  EXPECT_FALSE(r.FromJson(j).ok());
}

}  // namespace
}  // namespace det::searcher
