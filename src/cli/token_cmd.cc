#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/positive_id.h"
#include "cli/token_ops.h"

namespace det::cli {

void AddTokenCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* token = det.add_subcommand("token", "manage access tokens");
  token->alias("tkn");
  token->require_subcommand(1);

  CLI::App* describe = token->add_subcommand("describe", "describe token info");
  auto describe_ids = std::make_shared<std::vector<int64_t>>();
  auto describe_json = std::make_shared<bool>(false);
  describe->add_option("token_id", *describe_ids, "token id(s) specifying access tokens to describe")
      ->required()
      ->check(PositiveId("token_id"));
  describe->add_flag("--json", *describe_json, "output in JSON format");
  describe->callback([&ctx, describe_ids, describe_json] {
    ctx.action = [&ctx, describe_ids, describe_json] {
      return DescribeTokens(ctx.session(), *describe_ids, *describe_json, std::cout);
    };
  });

  CLI::App* list = token->add_subcommand("list", "list access tokens accessible to users");
  list->alias("ls");
  auto list_user = std::make_shared<std::string>();
  auto list_inactive = std::make_shared<bool>(false);
  auto list_json = std::make_shared<bool>(false);
  list->add_option("username", *list_user, "list access tokens for the given username");
  list->add_flag("--show-inactive", *list_inactive, "list revoked and expired access tokens too");
  list->add_flag("--json", *list_json, "output in JSON format");
  list->callback([&ctx, list_user, list_inactive, list_json] {
    ctx.action = [&ctx, list_user, list_inactive, list_json] {
      return ListTokens(ctx.session(), *list_user, *list_inactive, *list_json, std::cout);
    };
  });

  CLI::App* revoke = token->add_subcommand("revoke", "revoke token");
  auto revoke_id = std::make_shared<int64_t>(0);
  revoke->add_option("token_id", *revoke_id, "revoke given access token id")->required()->check(PositiveId("token_id"));
  revoke->callback([&ctx, revoke_id] {
    ctx.action = [&ctx, revoke_id] { return RevokeToken(ctx.session(), *revoke_id, std::cout); };
  });

  CLI::App* create = token->add_subcommand("create", "create token");
  auto create_args = std::make_shared<CreateTokenArgs>();
  auto create_days = std::make_shared<int>(0);
  auto create_desc = std::make_shared<std::string>();
  create->add_option("username", create_args->username, "name of user to create token");
  CLI::Option* days = create->add_option("-e,--expiration-days", *create_days,
                                         "specify the token expiration in days. '-e 2' sets it to 2 days.");
  CLI::Option* desc = create->add_option("-d,--description", *create_desc, "description of new token");
  create->add_flag("--json", create_args->json, "output in JSON format");
  create->callback([&ctx, create_args, create_days, create_desc, days, desc] {
    ctx.action = [&ctx, create_args, create_days, create_desc, days, desc] {
      if (days->count() > 0) create_args->expiration_days = *create_days;
      if (desc->count() > 0) create_args->description = *create_desc;
      return CreateToken(ctx.session(), *create_args, std::cout);
    };
  });

  CLI::App* edit = token->add_subcommand("edit", "edit token info");
  auto edit_id = std::make_shared<int64_t>(0);
  auto edit_desc = std::make_shared<std::string>();
  edit->add_option("token_id", *edit_id, "edit given access token info")->required()->check(PositiveId("token_id"));
  CLI::Option* edit_desc_opt = edit->add_option("-d,--description", *edit_desc, "description of token to edit");
  edit->callback([&ctx, edit_id, edit_desc, edit_desc_opt] {
    ctx.action = [&ctx, edit_id, edit_desc, edit_desc_opt] {
      std::optional<std::string> description;
      if (edit_desc_opt->count() > 0) description = *edit_desc;
      return EditToken(ctx.session(), *edit_id, description, std::cout);
    };
  });

  CLI::App* login = token->add_subcommand("login", "log in with token");
  auto login_token = std::make_shared<std::string>();
  login->add_option("token", *login_token, "token to use for authentication")->required();
  login->callback([&ctx, login_token] {
    ctx.action = [&ctx, login_token] { return LoginWithToken(ctx.session(), *login_token, std::cout); };
  });
}

}  // namespace det::cli
