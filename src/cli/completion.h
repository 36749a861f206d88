#pragma once
// Shell completion for det: `source <(det completion bash)`. The script is generated from the
// command tree itself, so it always knows every command, alias and flag.
#include <string>
#include <vector>

namespace det::cli {

// One command of the tree, without CLI11 (completion_cmd.cc builds it from the parser).
struct CommandNode {
  std::string name;
  std::vector<std::string> aliases;
  std::vector<std::string> flags;  // "--json", "-f", ...
  std::vector<CommandNode> subcommands;
};

// A bash script defining `_det_complete` and registering it for `det`: subcommands (and their
// aliases, followed to the canonical command) are offered for a word that does not start with "-",
// the command's flags for one that does, and file names otherwise (positional paths).
std::string BashCompletionScript(const CommandNode& root);

}  // namespace det::cli
