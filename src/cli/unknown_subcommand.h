#pragma once
// What `det` says for a word it does not know where a subcommand belongs ("det experiment frobnicate"):
// which subcommands exist there, as upstream's argparse does, instead of CLI11's "The following
// argument was not expected".
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace det::cli {

// After a parse of `app` failed: the message when the first word left over stands where the deepest
// parsed command expects a subcommand; nullopt otherwise (CLI11's message is then the right one).
std::optional<std::string> UnknownSubcommandMessage(const CLI::App& app);

}  // namespace det::cli
