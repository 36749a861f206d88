#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/user_ops.h"

namespace det::cli {

void AddUserCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* user = det.add_subcommand("user", "manage users");
  user->alias("u");
  user->require_subcommand(1);

  CLI::App* login = user->add_subcommand("login", "log in user");
  auto username = std::make_shared<std::string>();
  login->add_option("username", *username, "name of user to log in as");
  login->callback([&ctx, username] {
    ctx.action = [&ctx, username] {
      std::optional<std::string> name;
      if (!username->empty()) name = *username;
      return UserLogin(ctx, name, std::cout);
    };
  });

  CLI::App* logout = user->add_subcommand("logout", "log out user");
  logout->callback([&ctx] { ctx.action = [&ctx] { return UserLogout(ctx, std::cout); }; });

  CLI::App* whoami = user->add_subcommand("whoami", "print the active user");
  whoami->callback([&ctx] { ctx.action = [&ctx] { return UserWhoami(ctx, std::cout); }; });
}

}  // namespace det::cli
