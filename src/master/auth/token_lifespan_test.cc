#include "master/auth/token_lifespan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace det::master {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using ::testing::HasSubstr;

TEST(AccessTokenLifespanTest, GoDurationsDefaultAndLongest) {
  config::TokenConfig limits{.max_lifespan_days = 30, .default_lifespan_days = 7};
  EXPECT_EQ(*AccessTokenLifespan("720h", limits), hours(720));
  EXPECT_EQ(*AccessTokenLifespan("1h30m", limits), seconds(5400));
  EXPECT_EQ(*AccessTokenLifespan("2s", limits), seconds(2));
  EXPECT_EQ(*AccessTokenLifespan("", limits), hours(24 * 7));
  EXPECT_EQ(*AccessTokenLifespan("-1", limits), hours(24 * 30));
}

TEST(AccessTokenLifespanTest, AboveTheMaximumIsRefusedNamingTheFieldAndTheLimit) {
  config::TokenConfig limits{.max_lifespan_days = 30, .default_lifespan_days = 30};
  auto too_long = AccessTokenLifespan("721h", limits);
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_long.status().message(), HasSubstr("lifespan: 721h is longer than security.token.max_lifespan_days"));
  EXPECT_THAT(too_long.status().message(), HasSubstr("30 days, 720h"));
}

TEST(AccessTokenLifespanTest, InfiniteMaximumAllowsTheLongestGoDuration) {
  config::TokenConfig limits{.max_lifespan_days = config::kInfiniteTokenLifespanDays, .default_lifespan_days = 30};
  EXPECT_EQ(*AccessTokenLifespan("-1", limits), hours(24) * config::kInfiniteTokenLifespanDays);
  EXPECT_EQ(*AccessTokenLifespan("87600h", limits), hours(87600));
  EXPECT_EQ(AccessTokenLifespan("100000000h", limits).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AccessTokenLifespanTest, NotAPositiveDurationIsRefused) {
  config::TokenConfig limits;
  for (const char* bad : {"30", "30d", "-5h", "0s", "forever", "-2"}) {
    auto r = AccessTokenLifespan(bad, limits);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("lifespan: \"")) << bad;
  }
}

}  // namespace
}  // namespace det::master
