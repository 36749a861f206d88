#include "cli/unknown_subcommand.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace det::cli {
namespace {

// `det experiment {list,kill ID}` and `det version`.
struct Tree {
  Tree() {
    app.require_subcommand(1);
    app.fallthrough();  // as det's
    CLI::App* experiment = app.add_subcommand("experiment", "");
    experiment->require_subcommand(1);
    experiment->add_subcommand("list", "");
    experiment->add_subcommand("kill", "")->add_option("id", id);
    app.add_subcommand("version", "");
  }
  // What `det` prints for `args`: our message, CLI11's ("cli11: ..."), or "ok".
  std::string Parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    try {
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      return UnknownSubcommandMessage(app).value_or(std::string("cli11: ") + e.what());
    }
    return "ok";
  }
  CLI::App app{"", "det"};
  int id = 0;
};

TEST(UnknownSubcommandTest, NamesTheWordAndTheChoices) {
  EXPECT_EQ(Tree().Parse({"experiment", "frobnicate"}),
            "det experiment: unknown subcommand \"frobnicate\"; choose from: list, kill");
  EXPECT_EQ(Tree().Parse({"frobnicate"}), "det: unknown subcommand \"frobnicate\"; choose from: experiment, version");
}

TEST(UnknownSubcommandTest, OtherMistakesAreLeftToCli11) {
  EXPECT_EQ(Tree().Parse({"experiment", "kill", "3", "4"}), "cli11: The following argument was not expected: 4");
  EXPECT_EQ(Tree().Parse({"version", "now"}), "cli11: The following argument was not expected: now");
  EXPECT_EQ(Tree().Parse({"experiment", "list"}), "ok");
  EXPECT_EQ(Tree().Parse({"experiment"}).rfind("cli11: ", 0), 0u) << "a missing subcommand is CLI11's";
}

}  // namespace
}  // namespace det::cli
