#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/paging_flags.h"
#include "cli/prompt.h"
#include "cli/user_group_ops.h"

namespace det::cli {

void AddUserGroupCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* ug = det.add_subcommand("user-group", "manage user groups (needs RBAC on the master)");
  ug->require_subcommand(0, 1);

  CLI::App* create = ug->add_subcommand("create", "create a user group");
  auto create_name = std::make_shared<std::string>();
  auto create_users = std::make_shared<std::vector<std::string>>();
  create->add_option("group_name", *create_name, "the new group's name")->required();
  create
      ->add_option("--add-user", *create_users,
                   "a user to put in the group (repeat the flag for several)")
      ->expected(1)
      ->allow_extra_args(
          false)  // one value per occurrence: `create --add-user a NAME` keeps NAME positional
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  create->callback([&ctx, create_name, create_users] {
    ctx.action = [&ctx, create_name, create_users] {
      return CreateGroup(ctx.session(), *create_name, *create_users, std::cout);
    };
  });

  CLI::App* del = ug->add_subcommand("delete", "delete a user group");
  auto del_name = std::make_shared<std::string>();
  auto del_yes = std::make_shared<bool>(false);
  del->add_option("group_name", *del_name, "the group to delete")->required();
  del->add_flag("--yes", *del_yes, "do not ask for confirmation");
  del->callback([&ctx, del_name, del_yes] {
    ctx.action = [&ctx, del_name, del_yes]() -> absl::StatusOr<int> {
      if (!*del_yes &&
          !Confirm(absl::StrCat("Deleting user group \"", *del_name,
                                "\" removes it and its memberships for good. Continue?"))) {
        std::cout << "Not deleting user group \"" << *del_name << "\".\n";
        return 0;
      }
      return DeleteGroup(ctx.session(), *del_name, std::cout);
    };
  });

  CLI::App* list = ug->add_subcommand("list", "list user groups");
  list->alias("ls");
  auto list_args = std::make_shared<ListGroupsArgs>();
  auto list_pages = AddPagingFlags(list);
  list->add_option("--groups-user-belongs-to", list_args->member,
                   "only the groups this user is in");
  list->add_flag("--json", list_args->json, "print the master's reply as JSON");
  auto run_list = [&ctx, list_args, list_pages] {
    ctx.action = [&ctx, list_args, list_pages] {
      list_args->pages = list_pages->Get();
      return ListGroups(ctx.session(), *list_args, std::cout);
    };
  };
  list->callback(run_list);
  ug->callback([ug, run_list] {
    if (ug->get_subcommands().empty()) run_list();
  });

  CLI::App* describe = ug->add_subcommand("describe", "show a user group and its users");
  auto describe_name = std::make_shared<std::string>();
  auto describe_json = std::make_shared<bool>(false);
  describe->add_option("group_name", *describe_name, "the group to show")->required();
  describe->add_flag("--json", *describe_json, "print the group as JSON");
  describe->callback([&ctx, describe_name, describe_json] {
    ctx.action = [&ctx, describe_name, describe_json] {
      return DescribeGroup(ctx.session(), *describe_name, *describe_json, std::cout);
    };
  });

  for (bool add : {true, false}) {
    CLI::App* members =
        ug->add_subcommand(add ? "add-user" : "remove-user",
                           add ? "put users in a user group" : "take users out of a user group");
    auto group = std::make_shared<std::string>();
    auto usernames = std::make_shared<std::string>();
    members->add_option("group_name", *group, "the group")->required();
    members->add_option("usernames", *usernames, "the users, separated by commas (alice,bob)")
        ->required();
    members->callback([&ctx, group, usernames, add] {
      ctx.action = [&ctx, group, usernames, add] {
        return ChangeGroupMembers(ctx.session(), *group, *usernames, add, std::cout);
      };
    });
  }

  CLI::App* rename = ug->add_subcommand("change-name", "rename a user group");
  auto old_name = std::make_shared<std::string>();
  auto new_name = std::make_shared<std::string>();
  rename->add_option("old_group_name", *old_name, "the group's name now")->required();
  rename->add_option("new_group_name", *new_name, "its new name")->required();
  rename->callback([&ctx, old_name, new_name] {
    ctx.action = [&ctx, old_name, new_name] {
      return RenameGroup(ctx.session(), *old_name, *new_name, std::cout);
    };
  });
}

}  // namespace det::cli
