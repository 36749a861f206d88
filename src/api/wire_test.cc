#include "api/wire.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det::api {
namespace {

TEST(WireTest, AcceptsBothSpellings) {
  nlohmann::json a = {{"trialId", 3}}, b = {{"trial_id", 4}};
  EXPECT_EQ(*FindField(a, "trial_id"), 3);
  EXPECT_EQ(*FindField(b, "trial_id"), 4);
  EXPECT_EQ(FindField(a, "other"), nullptr);
  EXPECT_EQ(ToLowerCamel("steps_completed"), "stepsCompleted");
}

TEST(WireTest, Int64AsStringOrNumber) {
  EXPECT_EQ(*ReadInt64(nlohmann::json("42"), "x"), 42);
  EXPECT_EQ(*ReadInt64(nlohmann::json(42), "x"), 42);
  EXPECT_FALSE(ReadInt64(nlohmann::json("4x"), "x").ok());
  // Found by fuzz_rest_decoders: out-of-range doubles were cast to int64 (undefined behavior).
  EXPECT_FALSE(ReadInt64(nlohmann::json(1e300), "x").ok());
  EXPECT_FALSE(ReadInt64(nlohmann::json(-1e300), "x").ok());
  EXPECT_FALSE(ReadInt64(nlohmann::json(9223372036854775808.0), "x").ok());
  EXPECT_EQ(*ReadInt64(nlohmann::json(3.0), "x"), 3);
  EXPECT_EQ(Int64(9007199254740993LL), "9007199254740993");
}

TEST(WireTest, Int32DoubleAndOptionalString) {
  EXPECT_EQ(*ReadInt32(nlohmann::json("7"), "p"), 7);
  absl::StatusOr<int> big = ReadInt32(nlohmann::json(4294967296LL), "p");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(), "p: 4294967296 is out of range for an int32");
  EXPECT_EQ(*ReadDouble(nlohmann::json("2.5"), "w"), 2.5);
  EXPECT_EQ(*ReadDouble(nlohmann::json(3), "w"), 3.0);
  EXPECT_EQ(ReadDouble(nlohmann::json::array(), "w").status().message(), "w: expected a number, got []");
  nlohmann::json obj = {{"jobId", "j"}, {"aheadOf", 3}, {"behind_of", nullptr}};
  EXPECT_EQ(**OptionalStringField(obj, "job_id"), "j");
  EXPECT_FALSE(OptionalStringField(obj, "behind_of")->has_value());
  EXPECT_EQ(OptionalStringField(obj, "ahead_of").status().message(), "aheadOf: expected a string, got 3");
}

}  // namespace
}  // namespace det::api
