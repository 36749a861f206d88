#include "searcher/rung.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace det::searcher {
namespace {

TEST(RungTest, InsertIndexCountsStrictlyBetterMetrics) {
  Rung r(10);
  EXPECT_EQ(r.Insert("a", 0.5), 0u);
  EXPECT_EQ(r.Insert("b", 0.4), 0u);
  EXPECT_EQ(r.Insert("c", 0.5), 1u);  // before the equal 0.5
  EXPECT_EQ(r.Insert("d", 0.9), 3u);
  EXPECT_EQ(r.size(), 4u);
  auto j = r.ToJson();
  EXPECT_EQ(j["units_needed"], 10);
  std::vector<std::string> order;
  for (const auto& m : j["metrics"]) order.push_back(m["request_id"]);
  EXPECT_EQ(order, (std::vector<std::string>{"b", "c", "a", "d"}));
}

// The block structure behaves like one sorted vector, across many block splits.
TEST(RungTest, MatchesASortedVectorOverManyInserts) {
  Rung r;
  std::vector<double> ref;
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> dist(0, 300);  // many duplicates
  for (int i = 0; i < 5000; ++i) {
    double v = dist(gen) / 10.0;
    size_t want = static_cast<size_t>(std::lower_bound(ref.begin(), ref.end(), v) - ref.begin());
    ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(want), v);
    ASSERT_EQ(r.Insert("t" + std::to_string(i), v), want) << i;
  }
  r.Remove("t17");
  r.Remove("nope");
  EXPECT_EQ(r.size(), 4999u);
  auto round = Rung::FromJson(r.ToJson());
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->ToJson(), r.ToJson());
  EXPECT_EQ(round->Insert("x", 15.0), r.Insert("x", 15.0));
}

TEST(RungTest, FromJsonRejectsUnsortedOrMalformed) {
  EXPECT_FALSE(Rung::FromJson({{"units_needed", 1}}).ok());
  nlohmann::json unsorted = {
      {"units_needed", 1},
      {"metrics",
       {{{"request_id", "a"}, {"metric", 2.0}}, {{"request_id", "b"}, {"metric", 1.0}}}}};
  EXPECT_FALSE(Rung::FromJson(unsorted).ok());
}

}  // namespace
}  // namespace det::searcher
