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

}  // namespace
}  // namespace det::api
