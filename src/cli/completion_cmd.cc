#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/completion.h"

namespace det::cli {
namespace {

CommandNode Node(CLI::App& app) {
  CommandNode node{.name = app.get_name(), .aliases = app.get_aliases()};
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) node.flags.push_back("--" + name);
    for (const std::string& name : option->get_snames()) node.flags.push_back("-" + name);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    node.subcommands.push_back(Node(*sub));
  }
  return node;
}

}  // namespace

void AddCompletionCommand(CLI::App& det, CommandContext& ctx) {
  CLI::App* completion = det.add_subcommand("completion", "print a shell completion script");
  completion->require_subcommand(1);
  CLI::App* bash = completion->add_subcommand("bash", "bash: source <(det completion bash)");
  bash->callback([&ctx, &det] {
    ctx.action = [&det]() -> absl::StatusOr<int> {
      std::cout << BashCompletionScript(Node(det));
      return 0;
    };
  });
}

}  // namespace det::cli
