#include "cli/unknown_subcommand.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace det::cli {

std::optional<std::string> UnknownSubcommandMessage(const CLI::App& app) {
  const CLI::App* command = &app;
  std::string path = app.get_name();
  for (std::vector<const CLI::App*> parsed = command->get_subcommands([](const CLI::App* s) { return s->parsed(); });
       !parsed.empty(); parsed = command->get_subcommands([](const CLI::App* s) { return s->parsed(); })) {
    command = parsed.front();
    absl::StrAppend(&path, " ", command->get_name());
  }
  // With fallthrough, words a subcommand does not take are the parent's: look at all of them.
  std::vector<std::string> extras = app.remaining(/*recurse=*/true);
  std::vector<std::string> choices;
  for (const CLI::App* sub : command->get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) choices.push_back(sub->get_name());
  }
  if (extras.empty() || choices.empty() || extras.front().starts_with("-")) return std::nullopt;
  return absl::StrCat(path, ": unknown subcommand \"", extras.front(), "\"; choose from: ",
                      absl::StrJoin(choices, ", "));
}

}  // namespace det::cli
