#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/prompt.h"
#include "cli/user_ops.h"

namespace det::cli {
namespace {

// Upstream asks twice for a new password and refuses a mismatch.
absl::StatusOr<std::string> AskNewPassword(const std::string& username) {
  absl::StatusOr<std::string> first =
      ReadPassword(absl::StrCat("New password for user '", username, "': "));
  if (!first.ok()) return first.status();
  absl::StatusOr<std::string> second = ReadPassword("Confirm password: ");
  if (!second.ok()) return second.status();
  if (*first != *second) return absl::InvalidArgumentError("passwords do not match");
  return *first;
}

}  // namespace

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

  CLI::App* create = user->add_subcommand("create", "create user");
  auto create_args = std::make_shared<CreateUserArgs>();
  auto create_password = std::make_shared<std::string>();
  create->add_option("username", create_args->username, "name of new user")->required();
  create->add_flag("--admin", create_args->admin, "give new user admin rights");
  CLI::Option* pw = create->add_option("--password", *create_password,
                                       "password of the new user (default: blank)");
  create->callback([&ctx, create_args, create_password, pw] {
    ctx.action = [&ctx, create_args, create_password, pw] {
      if (pw->count() > 0) create_args->password = *create_password;
      return CreateUser(ctx.session(), *create_args, std::cout);
    };
  });

  CLI::App* list = user->add_subcommand("list", "list users");
  list->alias("ls");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "print as JSON");
  list->callback([&ctx, list_json] {
    ctx.action = [&ctx, list_json] { return ListUsers(ctx.session(), *list_json, std::cout); };
  });

  for (bool active : {true, false}) {
    CLI::App* cmd = user->add_subcommand(active ? "activate" : "deactivate",
                                         active ? "activate user" : "deactivate user");
    auto name = std::make_shared<std::string>();
    cmd->add_option("username", *name,
                    active ? "name of user to activate" : "name of user to deactivate")
        ->required();
    cmd->callback([&ctx, name, active] {
      ctx.action = [&ctx, name, active] {
        return SetUserActive(ctx.session(), *name, active, std::cout);
      };
    });
  }

  CLI::App* chpw = user->add_subcommand("change-password", "change password for user");
  auto chpw_name = std::make_shared<std::string>();
  auto chpw_password = std::make_shared<std::string>();
  chpw->add_option("target_user", *chpw_name,
                   "name of user whose password should be changed (default: you)");
  CLI::Option* chpw_pw =
      chpw->add_option("--password", *chpw_password, "the new password (asked for when not given)");
  chpw->callback([&ctx, chpw_name, chpw_password, chpw_pw] {
    ctx.action = [&ctx, chpw_name, chpw_password, chpw_pw]() -> absl::StatusOr<int> {
      std::string name = *chpw_name;
      if (name.empty()) {
        if (absl::Status s = ctx.session().EnsureLoggedIn(); !s.ok()) return s;
        name = ctx.session().username();
      }
      std::string password = *chpw_password;
      if (chpw_pw->count() == 0) {
        absl::StatusOr<std::string> asked = AskNewPassword(name);
        if (!asked.ok()) return asked.status();
        password = *asked;
      }
      return ChangeUserPassword(ctx.session(), name, password, std::cout);
    };
  });

  CLI::App* rename = user->add_subcommand("rename", "change username for user");
  auto rename_old = std::make_shared<std::string>();
  auto rename_new = std::make_shared<std::string>();
  rename->add_option("target_user", *rename_old, "current name of the user")->required();
  rename->add_option("new_username", *rename_new, "new name of the user")->required();
  rename->callback([&ctx, rename_old, rename_new] {
    ctx.action = [&ctx, rename_old, rename_new] {
      return RenameUser(ctx.session(), *rename_old, *rename_new, std::cout);
    };
  });

  CLI::App* link = user->add_subcommand("link-with-agent-user", "link a user with an OS user and group on the agents");
  auto link_name = std::make_shared<std::string>();
  auto link_group = std::make_shared<AgentUserGroupArgs>();
  link->add_option("det_username", *link_name, "name of the Determined user to link")->required();
  link->add_option("--agent-uid", link_group->uid, "uid on the agents")->required();
  link->add_option("--agent-gid", link_group->gid, "gid on the agents")->required();
  link->add_option("--agent-user", link_group->user, "the name of --agent-uid")->required();
  link->add_option("--agent-group", link_group->group, "the name of --agent-gid")->required();
  link->callback([&ctx, link_name, link_group] {
    ctx.action = [&ctx, link_name, link_group] {
      return LinkWithAgentUser(ctx.session(), *link_name, *link_group, std::cout);
    };
  });

  CLI::App* edit = user->add_subcommand("edit", "edit user fields");
  auto edit_name = std::make_shared<std::string>();
  auto edit_display = std::make_shared<std::string>();
  edit->add_option("target_user", *edit_name, "name of the user to edit")->required();
  CLI::Option* display =
      edit->add_option("--display-name", *edit_display, "new display name for the user");
  edit->callback([&ctx, edit_name, edit_display, display] {
    ctx.action = [&ctx, edit_name, edit_display, display] {
      std::optional<std::string> d;
      if (display->count() > 0) d = *edit_display;
      return EditUser(ctx.session(), *edit_name, d, std::cout);
    };
  });
}

}  // namespace det::cli
