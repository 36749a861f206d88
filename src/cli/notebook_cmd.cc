// `det notebook` (alias `det notebooks`): start, open, list, config, logs, kill, set priority.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/interactive_ops.h"
#include "cli/ntsc_cmd.h"

namespace det::cli {

void AddNotebookCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* group = det.add_subcommand("notebook", "manage notebooks");
  group->alias("notebooks");
  group->require_subcommand(0, 1);

  CLI::App* start = group->add_subcommand("start", "start a new notebook");
  std::shared_ptr<LaunchFlagValues> flags = AddLaunchFlags(start, "notebook");
  auto no_browser = std::make_shared<bool>(false);
  auto preview = std::make_shared<bool>(false);
  start->add_flag("--no-browser", *no_browser, "print the notebook's URL, do not open a browser");
  start->add_flag("--preview", *preview,
                  "print the notebook's configuration as the master resolves it, start nothing");
  start->callback([&ctx, flags, no_browser, preview] {
    ctx.action = [&ctx, flags, no_browser, preview] {
      StartNotebookArgs args;
      static_cast<LaunchArgs&>(args) = flags->Finish();
      args.no_browser = *no_browser;
      args.preview = *preview;
      return StartNotebook(ctx.session(), args, InteractiveEnvironment::FromProcess(), std::cout,
                           std::cerr);
    };
  });

  CLI::App* open = group->add_subcommand("open", "open an existing notebook");
  auto open_id = std::make_shared<std::string>();
  auto open_no_browser = std::make_shared<bool>(false);
  open->add_option("notebook_id", *open_id, "notebook ID (or a unique prefix)")->required();
  open->add_flag("--no-browser", *open_no_browser, "print the URL, do not open a browser");
  open->callback([&ctx, open_id, open_no_browser] {
    ctx.action = [&ctx, open_id, open_no_browser] {
      return OpenService(ctx.session(), kNotebookListing, *open_id, *open_no_browser,
                         InteractiveEnvironment::FromProcess(), std::cout, std::cerr);
    };
  });

  AddNtscManagementCommands(group, ctx, kNotebookListing);
}

}  // namespace det::cli
