// `det tensorboard`: start, open, list, config, logs, kill, set priority.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/interactive_ops.h"
#include "cli/ntsc_cmd.h"

namespace det::cli {

void AddTensorboardCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* group = det.add_subcommand("tensorboard", "manage TensorBoard instances");
  group->require_subcommand(0, 1);

  CLI::App* start = group->add_subcommand(
      "start", "start a new TensorBoard instance for experiments and/or trials");
  std::shared_ptr<LaunchFlagValues> flags = AddLaunchFlags(start, "TensorBoard");
  auto experiment_ids = std::make_shared<std::vector<int>>();
  auto trial_ids = std::make_shared<std::vector<int>>();
  auto no_browser = std::make_shared<bool>(false);
  start->add_option("experiment_ids", *experiment_ids, "experiments whose metrics to show");
  start->add_option("-t,--trial-ids", *trial_ids, "trials whose metrics to show (one or more)");
  start->add_flag("--no-browser", *no_browser,
                  "print the TensorBoard's URL, do not open a browser");
  start->callback([&ctx, flags, experiment_ids, trial_ids, no_browser] {
    ctx.action = [&ctx, flags, experiment_ids, trial_ids, no_browser] {
      StartTensorboardArgs args;
      static_cast<LaunchArgs&>(args) = flags->Finish();
      args.experiment_ids = *experiment_ids;
      args.trial_ids = *trial_ids;
      args.no_browser = *no_browser;
      return StartTensorboard(ctx.session(), args, InteractiveEnvironment::FromProcess(), std::cout,
                              std::cerr);
    };
  });

  CLI::App* open = group->add_subcommand("open", "open an existing TensorBoard instance");
  auto open_id = std::make_shared<std::string>();
  auto open_no_browser = std::make_shared<bool>(false);
  open->add_option("tensorboard_id", *open_id, "TensorBoard ID (or a unique prefix)")->required();
  open->add_flag("--no-browser", *open_no_browser, "print the URL, do not open a browser");
  open->callback([&ctx, open_id, open_no_browser] {
    ctx.action = [&ctx, open_id, open_no_browser] {
      return OpenService(ctx.session(), kTensorboardListing, *open_id, *open_no_browser,
                         InteractiveEnvironment::FromProcess(), std::cout, std::cerr);
    };
  });

  AddNtscManagementCommands(group, ctx, kTensorboardListing);
}

}  // namespace det::cli
