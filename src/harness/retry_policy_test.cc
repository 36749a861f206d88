#include "harness/retry_policy.h"

#include <gtest/gtest.h>

namespace det::harness {
namespace {

using std::chrono::milliseconds;

TEST(RetryPolicyTest, DoublesUpToTheCap) {
  RetryPolicy p{milliseconds(500), milliseconds(3000), milliseconds(60000)};
  EXPECT_EQ(p.DelayBefore(1), milliseconds(500));
  EXPECT_EQ(p.DelayBefore(2), milliseconds(1000));
  EXPECT_EQ(p.DelayBefore(3), milliseconds(2000));
  EXPECT_EQ(p.DelayBefore(4), milliseconds(3000));
  EXPECT_EQ(p.DelayBefore(40), milliseconds(3000));
}

TEST(RetryPolicyTest, TransientCodes) {
  EXPECT_TRUE(IsTransient(absl::UnavailableError("x")));
  EXPECT_TRUE(IsTransient(absl::DeadlineExceededError("x")));
  EXPECT_TRUE(IsTransient(absl::ResourceExhaustedError("x")));
  EXPECT_FALSE(IsTransient(absl::InvalidArgumentError("x")));
  EXPECT_FALSE(IsTransient(absl::NotFoundError("x")));
  EXPECT_FALSE(IsTransient(absl::OkStatus()));
}

}  // namespace
}  // namespace det::harness
