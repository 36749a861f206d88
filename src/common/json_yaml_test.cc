#include "common/json_yaml.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det {
namespace {

TEST(JsonYamlTest, TypesScalars) {
  auto j = ParseYaml("a: 3\nb: 0.5\nc: true\nd: hello\ne: \"7\"\nf:\ng: [1, x]\nh: 1e-3\n");
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)["a"], 3);
  EXPECT_DOUBLE_EQ((*j)["b"].get<double>(), 0.5);
  EXPECT_EQ((*j)["c"], true);
  EXPECT_EQ((*j)["d"], "hello");
  EXPECT_EQ((*j)["e"], "7");
  EXPECT_TRUE((*j)["f"].is_null());
  EXPECT_EQ((*j)["g"][0], 1);
  EXPECT_EQ((*j)["g"][1], "x");
  EXPECT_DOUBLE_EQ((*j)["h"].get<double>(), 0.001);
}

TEST(JsonYamlTest, ScalarTypingEdgeCases) {
  EXPECT_EQ(YamlScalarToJson("-7"), -7);
  EXPECT_EQ(YamlScalarToJson("+3"), 3);
  EXPECT_DOUBLE_EQ(YamlScalarToJson(".5").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(YamlScalarToJson("2.").get<double>(), 2.0);
  EXPECT_EQ(YamlScalarToJson("1.2.3"), "1.2.3");
  EXPECT_EQ(YamlScalarToJson("nan"), "nan");
  EXPECT_EQ(YamlScalarToJson("0x10"), "0x10");
  EXPECT_EQ(YamlScalarToJson("e5"), "e5");
  EXPECT_EQ(YamlScalarToJson("-"), "-");
}

TEST(JsonYamlTest, SyntaxErrorsCarryLineAndColumn) {
  auto j = ParseYaml("name: x\nsearcher: [\n");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("line 3"), std::string::npos) << j.status();
}

TEST(JsonYamlTest, YamlRoundTrip) {
  nlohmann::json in = {{"name", "x"}, {"n", 2}, {"s", "3"}, {"l", {1, 2}}, {"m", {{"k", nullptr}}}};
  auto back = ParseYaml(ToYaml(in));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, in);
}

TEST(JsonYamlTest, EmptyContainersAreFlowStyle) {
  EXPECT_EQ(ToYaml(nlohmann::json{{"a", nlohmann::json::object()}, {"b", nlohmann::json::array()}}),
            "a: {}\nb: []\n");
}

TEST(JsonYamlTest, BadJsonIsInvalidArgument) {
  EXPECT_EQ(ParseJson("{").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace det
