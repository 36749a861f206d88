#include "common/json_yaml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace det {
namespace {

// Found by fuzz_yaml: infinities came back from ToYaml as the string "null".
TEST(JsonYamlTest, ToYamlKeepsInfinitiesAndLargeUnsigned) {
  auto j = ParseYaml("a: [.inf, -.inf, 1.5]\n");
  ASSERT_TRUE(j.ok()) << j.status();
  auto again = ParseYaml(ToYaml(*j));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *j);
  EXPECT_TRUE(std::isinf((*again)["a"][0].get<double>()));
  EXPECT_LT((*again)["a"][1].get<double>(), 0);
  // Not -1: unsigned JSON numbers above int64 keep their digits.
  EXPECT_NE(ToYaml(nlohmann::json::parse("18446744073709551615")).find("18446744073709551615"),
            std::string::npos);
}

// Found by fuzz_yaml: yaml-cpp emitted some of these plain, and they read back as something else
// (a document marker, a map).
TEST(JsonYamlTest, ToYamlQuotesDocumentMarkers) {
  for (const char* s : {"--- 1 x",   "---",  "... y", "...",       "-- ok",
                        "-2 :\r",    "a: b", "x #c",  "\ttab",     "[1]",
                        "{a}",       "'q'",  "\"d\"", "- item",    "? k",
                        "&a",        "*a",   "!t",    "%x",        "@x",
                        "`x",        "|",    ">",     "trailing ", "python3 train.py",
                        "/a/b-c_d.e"}) {
    nlohmann::json j = s;
    auto again = ParseYaml(ToYaml(j));
    ASSERT_TRUE(again.ok()) << s << ": " << again.status();
    EXPECT_EQ(*again, j) << ToYaml(j);
    auto nested = ParseYaml(ToYaml(nlohmann::json{{"k", {s}}}));
    ASSERT_TRUE(nested.ok()) << s << ": " << nested.status();
    EXPECT_EQ((*nested)["k"][0], j);
    auto key = ParseYaml(ToYaml(nlohmann::json{{s, 1}}));
    ASSERT_TRUE(key.ok()) << s << ": " << key.status();
    EXPECT_EQ(*key, (nlohmann::json{{s, 1}}));
  }
}

// Found by fuzz_yaml: a key over 1024 characters was emitted as an implicit key, which YAML
// refuses; so was a 400-byte key of invalid UTF-8, which yaml-cpp's escapes make 1,400 long.
TEST(JsonYamlTest, ToYamlLongKeys) {
  for (const std::string& k :
       {std::string(1500, 'k'), std::string(300, '\x1e'), std::string(110, '\x01'),
        "comp" + std::string(400, '\x8e') + "lex"}) {
    nlohmann::json j = {{k, {{"a", 1}}}, {"short", 2}};
    auto again = ParseYaml(ToYaml(j));
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->size(), 2u);
    EXPECT_EQ((*again)["short"], 2);
    // Invalid UTF-8 comes back replaced, so only valid keys compare whole.
    if (k.find('\x8e') == std::string::npos) {
      EXPECT_EQ(*again, j);
    }
  }
}

// Found by fuzz_yaml (a stack overflow): an alias inside the node it names is a cycle.
TEST(JsonYamlTest, ParseYamlRefusesAliasCyclesAndDeepNesting) {
  auto cycle = ParseYaml("a: &x\n b: [{c: *x}]\n");
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.status().message().find("levels deep"), std::string::npos) << cycle.status();
  std::string deep = std::string(300, '[') + std::string(300, ']');
  EXPECT_FALSE(ParseYaml(deep).ok());
  std::string fine = std::string(100, '[') + std::string(100, ']');
  EXPECT_TRUE(ParseYaml(fine).ok());
}

// Found by fuzz_yaml (a timeout): nested aliases expand exponentially ("billion laughs").
TEST(JsonYamlTest, ParseYamlRefusesAliasBombs) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  std::string prev = "a";
  for (int i = 1; i <= 8; ++i) {
    std::string name = "b" + std::to_string(i);
    text += name + ": &" + name + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", *" : "*") + prev;
    text += "]\n";
    prev = name;
  }
  auto j = ParseYaml(text);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("too large"), std::string::npos) << j.status();
  // A few aliases are fine.
  auto small = ParseYaml("a: &a [1, 2]\nb: [*a, *a]\n");
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ((*small)["b"][1][1], 2);
}

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
