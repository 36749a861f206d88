#include "cli/positive_id.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace det::cli {
namespace {

// Parses `det kill ARG`'s one argument; "" when it is taken, else CLI11's message.
std::string Parse(const std::string& arg) {
  CLI::App app;
  int64_t id = 0;
  app.add_option("experiment_id", id)->required()->check(PositiveId());
  std::vector<std::string> args = {arg};
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return id == std::stoll(arg) ? "" : "parsed as another number";
}

TEST(PositiveIdTest, TakesPositiveIntegersAndSaysSoOtherwise) {
  EXPECT_EQ(Parse("42"), "");
  EXPECT_EQ(Parse("abc"), "experiment_id: must be a positive integer, got \"abc\"");
  EXPECT_EQ(Parse("0"), "experiment_id: must be a positive integer, got \"0\"");
  EXPECT_EQ(Parse("-3"), "experiment_id: must be a positive integer, got \"-3\"");
  EXPECT_EQ(Parse("2.5"), "experiment_id: must be a positive integer, got \"2.5\"");
}

}  // namespace
}  // namespace det::cli
