#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/agent_ops.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/format_flags.h"

namespace det::cli {

void AddAgentCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* agent = det.add_subcommand("agent", "manage agents");
  agent->alias("a");
  agent->require_subcommand(0, 1);

  CLI::App* list = agent->add_subcommand("list", "list agents");
  list->alias("ls");
  auto list_fmt = AddJsonCsvFlags(list);
  auto run_list = [&ctx, list_fmt] {
    ctx.action = [&ctx, list_fmt] {
      return ListAgents(ctx.session(), list_fmt->format(), std::cout);
    };
  };
  list->callback(run_list);
  agent->callback([agent, run_list] {
    if (agent->get_subcommands().empty()) run_list();
  });

  for (bool enabled : {true, false}) {
    CLI::App* cmd = agent->add_subcommand(enabled ? "enable" : "disable",
                                          enabled ? "enable agent" : "disable agent");
    auto args = std::make_shared<SetAgentArgs>();
    args->enabled = enabled;
    cmd->add_option("agent_id", args->agent_id, "agent ID (`det agent list` shows them)");
    cmd->add_flag("--all", args->all, enabled ? "enable all agents" : "disable all agents");
    if (!enabled) {
      cmd->add_flag("--drain", args->drain,
                    "enter drain mode: the tasks running on the agent finish, nothing new starts");
    }
    cmd->callback([&ctx, args] {
      ctx.action = [&ctx, args] { return SetAgentEnabled(ctx.session(), *args, std::cout); };
    });
  }

  CLI::App* slot = det.add_subcommand("slot", "manage slots");
  slot->alias("s");
  slot->require_subcommand(0, 1);
  CLI::App* slots = slot->add_subcommand("list", "list slots in cluster");
  slots->alias("ls");
  auto slots_fmt = AddJsonCsvFlags(slots);
  auto run_slots = [&ctx, slots_fmt] {
    ctx.action = [&ctx, slots_fmt] {
      return ListSlots(ctx.session(), slots_fmt->format(), std::cout);
    };
  };
  slots->callback(run_slots);
  slot->callback([slot, run_slots] {
    if (slot->get_subcommands().empty()) run_slots();
  });
  for (bool enabled : {true, false}) {
    CLI::App* cmd = slot->add_subcommand(enabled ? "enable" : "disable", enabled ? "enable slot" : "disable slot");
    auto agent_id = std::make_shared<std::string>();
    auto slot_id = std::make_shared<int>(0);
    cmd->add_option("agent_id", *agent_id, "agent ID (`det slot list` shows the slots)")->required();
    cmd->add_option("slot_id", *slot_id, "slot ID")->required()->check(CLI::NonNegativeNumber);
    cmd->callback([&ctx, agent_id, slot_id, enabled] {
      ctx.action = [&ctx, agent_id, slot_id, enabled] {
        return SetSlotEnabled(ctx.session(), *agent_id, *slot_id, enabled, std::cout);
      };
    });
  }
}

}  // namespace det::cli
