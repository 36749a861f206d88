#include "cli/completion.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace det::cli {
namespace {

CommandNode Tree() {
  return CommandNode{
      .name = "det",
      .flags = {"--master", "-m"},
      .subcommands = {CommandNode{.name = "experiment",
                                  .aliases = {"e", "exp"},
                                  .flags = {"--help"},
                                  .subcommands = {CommandNode{.name = "create", .flags = {"--follow", "-f"}},
                                                  CommandNode{.name = "list", .flags = {"--json", "--csv"}}}},
                      CommandNode{.name = "trial", .subcommands = {CommandNode{.name = "logs"}}}}};
}

// What bash offers for the words of `line` (the last word is the one being completed), by running
// the generated script in a real bash.
std::string Complete(const std::string& line) {
  std::filesystem::path script = std::filesystem::temp_directory_path() / ("det_completion_test." + std::to_string(getpid()) + ".sh");
  std::ofstream(script) << BashCompletionScript(Tree()) << "COMP_WORDS=(" << line << ")\n"
                        << "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                        << "_det_complete\necho \"${COMPREPLY[*]}\"\n";
  std::string out;
  FILE* bash = popen(("bash " + script.string()).c_str(), "r");
  if (bash == nullptr) return "cannot run bash";
  char buf[256];
  while (fgets(buf, sizeof(buf), bash) != nullptr) out += buf;
  pclose(bash);
  std::filesystem::remove(script);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(BashCompletionTest, OffersSubcommandsFlagsAndFollowsAliases) {
  EXPECT_EQ(Complete("det ''"), "experiment trial");
  EXPECT_EQ(Complete("det ex"), "experiment");
  EXPECT_EQ(Complete("det -"), "--master -m");
  EXPECT_EQ(Complete("det experiment ''"), "create list");
  EXPECT_EQ(Complete("det e cr"), "create") << "an alias leads to its command";
  EXPECT_EQ(Complete("det -m http://x exp list --"), "--json --csv");
  EXPECT_EQ(Complete("det experiment create --f"), "--follow");
  EXPECT_EQ(Complete("det trial logs ''"), "") << "positional arguments: bash falls back to file names";
}

TEST(BashCompletionTest, RegistersForDet) {
  std::string script = BashCompletionScript(Tree());
  EXPECT_NE(script.find("complete -o default -F _det_complete det\n"), std::string::npos) << script;
}

}  // namespace
}  // namespace det::cli
