#include "common/timed_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace det {
namespace {

using Cache = TimedCache<std::string, int>;
using std::chrono::seconds;

TEST(TimedCacheTest, FreshUntilTheTtlThenStillThereForOutages) {
  Cache cache(seconds(5), 10);
  const auto t0 = Cache::Clock::now();
  EXPECT_FALSE(cache.Fresh("a", t0).has_value());
  cache.Put("a", 1, t0);
  EXPECT_EQ(cache.Fresh("a", t0 + seconds(4)), 1);
  EXPECT_FALSE(cache.Fresh("a", t0 + seconds(5)).has_value());
  EXPECT_EQ(cache.Any("a"), 1);
  cache.Put("a", 2, t0 + seconds(5));
  EXPECT_EQ(cache.Fresh("a", t0 + seconds(6)), 2);
  cache.Erase("a");
  EXPECT_FALSE(cache.Any("a").has_value());
}

TEST(TimedCacheTest, ANewKeyBeyondTheCapacityDropsTheRest) {
  Cache cache(seconds(5), 2);
  const auto t0 = Cache::Clock::now();
  cache.Put("a", 1, t0);
  cache.Put("b", 2, t0);
  cache.Put("b", 3, t0);  // a kept key is replaced, nothing dropped
  EXPECT_EQ(cache.Any("a"), 1);
  cache.Put("c", 4, t0);
  EXPECT_FALSE(cache.Any("a").has_value());
  EXPECT_FALSE(cache.Any("b").has_value());
  EXPECT_EQ(cache.Any("c"), 4);
}

}  // namespace
}  // namespace det
