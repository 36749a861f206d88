#include "cli/completion.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace det::cli {
namespace {

// A bash-safe name for a command path: det_experiment_create.
std::string NodeId(const std::string& parent_id, const std::string& name) {
  std::string id = parent_id.empty() ? "" : parent_id + "_";
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return id;
}

void Emit(const CommandNode& node, const std::string& id, std::string* transitions, std::string* candidates) {
  std::vector<std::string> names;
  for (const CommandNode& sub : node.subcommands) {
    std::string sub_id = NodeId(id, sub.name);
    names.push_back(sub.name);
    std::vector<std::string> words = {sub.name};
    words.insert(words.end(), sub.aliases.begin(), sub.aliases.end());
    for (const std::string& word : words) absl::StrAppend(transitions, "      ", id, ":", word, ") node=", sub_id, " ;;\n");
    Emit(sub, sub_id, transitions, candidates);
  }
  absl::StrAppend(candidates, "    ", id, ")\n      commands=\"", absl::StrJoin(names, " "), "\"\n      flags=\"",
                  absl::StrJoin(node.flags, " "), "\" ;;\n");
}

}  // namespace

std::string BashCompletionScript(const CommandNode& root) {
  std::string transitions;
  std::string candidates;
  std::string root_id = NodeId("", root.name);
  Emit(root, root_id, &transitions, &candidates);
  return absl::StrCat(
      "# bash completion for ", root.name, ": source <(", root.name, " completion bash)\n",
      "_", root_id, "_complete() {\n",
      "  local cur=${COMP_WORDS[COMP_CWORD]} node=", root_id, " word i commands flags\n",
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n",
      "    word=${COMP_WORDS[i]}\n",
      "    case \"$node:$word\" in\n", transitions, "    esac\n",
      "  done\n",
      "  case $node in\n", candidates, "  esac\n",
      "  if [[ $cur == -* ]]; then\n",
      "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n",
      "  elif [[ -n $commands ]]; then\n",
      "    COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n",
      "  else\n",
      "    COMPREPLY=()\n",  // `-o default`: bash completes file names
      "  fi\n",
      "}\n",
      "complete -o default -F _", root_id, "_complete ", root.name, "\n");
}

}  // namespace det::cli
