// `det shell`: start, open, show-ssh-command, list, config, logs, kill, set priority.
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

void AddShellCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* group = det.add_subcommand("shell", "manage shells");
  group->require_subcommand(0, 1);
  constexpr char kSshArgsHelp[] =
      "after --: ssh options and/or a command to run in the shell, e.g. `-- -L "
      "8888:localhost:8888` "
      "or `-- nvidia-smi`";

  CLI::App* start = group->add_subcommand("start", "start a new shell and ssh into it");
  std::shared_ptr<LaunchFlagValues> flags = AddLaunchFlags(start, "shell");
  auto ssh_args = std::make_shared<std::vector<std::string>>();
  auto show = std::make_shared<bool>(false);
  start->add_flag("--show-ssh-command", *show,
                  "print the ssh command that connects to the shell instead of running it");
  start->add_option("ssh_args", *ssh_args, kSshArgsHelp);
  start->callback([&ctx, flags, ssh_args, show] {
    ctx.action = [&ctx, flags, ssh_args, show] {
      StartShellArgs args;
      static_cast<LaunchArgs&>(args) = flags->Finish();
      args.ssh_args = *ssh_args;
      args.show_ssh_command = *show;
      return StartShell(ctx.session(), args, InteractiveEnvironment::FromProcess(), std::cout,
                        std::cerr);
    };
  });

  CLI::App* open = group->add_subcommand("open", "ssh into an existing shell");
  auto open_id = std::make_shared<std::string>();
  auto open_ssh_args = std::make_shared<std::vector<std::string>>();
  open->add_option("shell_id", *open_id, "shell ID (or a unique prefix)")->required();
  open->add_option("ssh_args", *open_ssh_args, kSshArgsHelp);
  open->callback([&ctx, open_id, open_ssh_args] {
    ctx.action = [&ctx, open_id, open_ssh_args] {
      return OpenShell(ctx.session(), *open_id, *open_ssh_args,
                       InteractiveEnvironment::FromProcess(), std::cout, std::cerr);
    };
  });

  CLI::App* show_cmd =
      group->add_subcommand("show-ssh-command",
                            "print the ssh command that connects to a shell (the key is kept under "
                            "~/.cache/determined/shell/ID/)");
  auto show_id = std::make_shared<std::string>();
  auto show_ssh_args = std::make_shared<std::vector<std::string>>();
  show_cmd->add_option("shell_id", *show_id, "shell ID (or a unique prefix)")->required();
  show_cmd->add_option("ssh_args", *show_ssh_args, kSshArgsHelp);
  show_cmd->callback([&ctx, show_id, show_ssh_args] {
    ctx.action = [&ctx, show_id, show_ssh_args] {
      return ShowSshCommand(ctx.session(), *show_id, *show_ssh_args,
                            InteractiveEnvironment::FromProcess(), std::cout, std::cerr);
    };
  });

  AddNtscManagementCommands(group, ctx, kShellListing);
}

}  // namespace det::cli
