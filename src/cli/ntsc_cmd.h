#pragma once
// The CLI11 side of what `det cmd|notebook|shell|tensorboard` share (ntsc_ops.h): the management
// subcommands and the start flags. For the *_cmd.cc files only (includes CLI11).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/ntsc_ops.h"

namespace det::cli {

class CommandContext;

// Adds `list` (alias `ls`; also what the group alone runs), `config`, `logs`, `kill` and
// `set priority` for `kind` to `group`.
void AddNtscManagementCommands(CLI::App* group, CommandContext& ctx, const TaskListing& kind);

// The values of the common start flags; Finish() gives them as LaunchArgs once parsing is done.
struct LaunchFlagValues {
  LaunchArgs args;
  std::string config_file;  // "" = none
  std::string context;      // "" = none
  LaunchArgs Finish() const;
};
// Adds --config-file, --config, -c/--context, -i/--include, --template, -v/--volume and
// -d/--detach to `start` (`noun` names the task in their help).
std::shared_ptr<LaunchFlagValues> AddLaunchFlags(CLI::App* start, const std::string& noun);

// One value per occurrence (`-v a:b CMD` must not take CMD as a second volume), any number of
// occurrences.
inline CLI::Option* Repeatable(CLI::Option* o) { return o->allow_extra_args(false); }

}  // namespace det::cli
