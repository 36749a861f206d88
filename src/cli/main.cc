// det: the Determined command-line client.
#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/unknown_subcommand.h"
#include "common/version.h"

int main(int argc, char** argv) {
  det::cli::CommandContext ctx;
  CLI::App app{"Determined command-line client", "det"};
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("-m,--master", ctx.flags.master,
                 "master URL (default: $DET_MASTER, else http://localhost:8080)");
  app.add_option("-u,--user", ctx.flags.user,
                 "user to run as (default: $DET_USER, else the "
                 "logged-in user, else 'determined')");
  app.add_flag_callback(
      "-v,--version",
      [] {
        std::cout << "det " << det::kVersion << " (determined-cpp)\n";
        throw CLI::Success();
      },
      "print the version and exit");

  det::cli::AddUserCommands(app, ctx);
  det::cli::AddTokenCommands(app, ctx);
  det::cli::AddUserGroupCommands(app, ctx);
  det::cli::AddRbacCommands(app, ctx);
  det::cli::AddExperimentCommands(app, ctx);
  det::cli::AddTrialCommands(app, ctx);
  det::cli::AddDeployCommands(app, ctx);
  det::cli::AddPreviewSearchCommand(app, ctx);
  det::cli::AddTemplateCommands(app, ctx);
  det::cli::AddMasterCommands(app, ctx);
  det::cli::AddAgentCommands(app, ctx);
  det::cli::AddResourcePoolCommands(app, ctx);
  det::cli::AddWorkspaceCommands(app, ctx);
  det::cli::AddModelCommands(app, ctx);
  det::cli::AddJobCommands(app, ctx);
  det::cli::AddTaskCommands(app, ctx);
  det::cli::AddCommandCommands(app, ctx);
  det::cli::AddCheckpointCommands(app, ctx);
  det::cli::AddNotebookCommands(app, ctx);
  det::cli::AddShellCommands(app, ctx);
  det::cli::AddTensorboardCommands(app, ctx);
  det::cli::AddTunnelCommand(app, ctx);
  det::cli::AddCompletionCommand(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (std::optional<std::string> unknown = det::cli::UnknownSubcommandMessage(app)) {
      std::cerr << *unknown << "\n";
      return 2;
    }
    int code = app.exit(e);
    return code == 0 ? 0 : 2;  // usage errors exit 2, as upstream's argparse does
  }
  if (!ctx.action) {
    std::cerr << app.help();
    return 2;
  }
  absl::StatusOr<int> result = ctx.action();
  std::cout.flush();
  if (!result.ok()) {
    std::cerr << "Error: " << result.status().message() << "\n";
    return 1;
  }
  return *result;
}
