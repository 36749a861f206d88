#pragma once
// The command tree, one function per command group. Only main.cc and the *_cmd.cc files include
// CLI11; they parse flags into plain structs and set CommandContext::action to a call into the
// CLI11-free operation files.
#include <memory>

namespace CLI {
class App;
}

namespace det::cli {

class CommandContext;
struct TrialLogsArgs;

void AddUserCommands(CLI::App& det, CommandContext& ctx);
void AddTokenCommands(CLI::App& det, CommandContext& ctx);  // det token (alias tkn)
void AddUserGroupCommands(CLI::App& det, CommandContext& ctx);  // det user-group
void AddRbacCommands(CLI::App& det, CommandContext& ctx);       // det rbac
void AddExperimentCommands(CLI::App& det, CommandContext& ctx);
void AddTrialCommands(CLI::App& det, CommandContext& ctx);
void AddDeployCommands(CLI::App& det, CommandContext& ctx);
void AddPreviewSearchCommand(CLI::App& det, CommandContext& ctx);
void AddTemplateCommands(CLI::App& det, CommandContext& ctx);
void AddMasterCommands(CLI::App& det, CommandContext& ctx);
void AddAgentCommands(CLI::App& det, CommandContext& ctx);  // det agent, det slot
void AddResourcePoolCommands(CLI::App& det, CommandContext& ctx);
void AddWorkspaceCommands(CLI::App& det, CommandContext& ctx);  // det workspace, det project
void AddModelCommands(CLI::App& det, CommandContext& ctx);
void AddJobCommands(CLI::App& det, CommandContext& ctx);
void AddTaskCommands(CLI::App& det, CommandContext& ctx);
void AddCommandCommands(CLI::App& det, CommandContext& ctx);  // det cmd (alias command)
void AddCheckpointCommands(CLI::App& det, CommandContext& ctx);
void AddNotebookCommands(CLI::App& det, CommandContext& ctx);     // det notebook
void AddShellCommands(CLI::App& det, CommandContext& ctx);        // det shell
void AddTensorboardCommands(CLI::App& det, CommandContext& ctx);  // det tensorboard
void AddTunnelCommand(CLI::App& det, CommandContext& ctx);        // det tunnel (hidden)
// Last: the script it prints is made from every command added before it.
void AddCompletionCommand(CLI::App& det, CommandContext& ctx);

// The log filter flags shared by `det trial logs`, `det experiment logs`, `det task logs` and
// `det cmd|notebook|shell|tensorboard logs` (-f, --head, --tail, --agent-id, ...), parsed into
// LogsFlags; FinishLogsFlags turns them into TrialLogsArgs.
struct LogsFlags;
std::shared_ptr<LogsFlags> AddLogsFlags(CLI::App& cmd);
TrialLogsArgs FinishLogsFlags(const LogsFlags& flags);

}  // namespace det::cli
