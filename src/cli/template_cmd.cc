#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command_context.h"
#include "cli/commands.h"
#include "cli/template_ops.h"

namespace det::cli {
namespace {

struct NameAndFile {
  std::string name;
  std::string file;
};

std::shared_ptr<std::string> AddName(CLI::App* cmd) {
  auto name = std::make_shared<std::string>();
  cmd->add_option("template_name", *name, "template name")->required();
  return name;
}

std::shared_ptr<NameAndFile> AddNameAndFile(CLI::App* cmd) {
  auto args = std::make_shared<NameAndFile>();
  cmd->add_option("template_name", args->name, "template name")->required();
  cmd->add_option("template_file", args->file, "config template file (.yaml)")->required();
  return args;
}

}  // namespace

void AddTemplateCommands(CLI::App& det, CommandContext& ctx) {
  CLI::App* tpl = det.add_subcommand("template", "manage config templates");
  tpl->alias("tpl");
  tpl->require_subcommand(0, 1);

  // list (the default)
  CLI::App* list = tpl->add_subcommand("list", "list config templates");
  list->alias("ls");
  auto list_args = std::make_shared<ListTemplatesArgs>();
  list->add_flag("-d,--details", list_args->details, "show the configs of the templates");
  list->add_flag("--json", list_args->json, "print JSON");
  auto run_list = [&ctx, list_args] {
    ctx.action = [&ctx, list_args] { return ListTemplates(ctx.session(), *list_args, std::cout); };
  };
  list->callback(run_list);
  tpl->callback([tpl, run_list] {
    if (tpl->get_subcommands().empty()) run_list();
  });

  CLI::App* describe = tpl->add_subcommand("describe", "describe config template");
  auto describe_name = AddName(describe);
  describe->callback([&ctx, describe_name] {
    ctx.action = [&ctx, describe_name] {
      return DescribeTemplate(ctx.session(), *describe_name, std::cout);
    };
  });

  CLI::App* set = tpl->add_subcommand("set", "set config template");
  auto set_args = AddNameAndFile(set);
  set->callback([&ctx, set_args] {
    ctx.action = [&ctx, set_args] {
      return SetTemplate(ctx.session(), set_args->name, set_args->file, std::cout);
    };
  });

  CLI::App* create = tpl->add_subcommand("create", "create config template");
  auto create_args = AddNameAndFile(create);
  auto workspace = std::make_shared<std::string>();
  create->add_option("-w,--workspace-name", *workspace, "its workspace (default: Uncategorized)");
  create->callback([&ctx, create_args, workspace] {
    ctx.action = [&ctx, create_args, workspace] {
      return CreateTemplate(ctx.session(), create_args->name, create_args->file, *workspace, std::cout);
    };
  });

  CLI::App* update = tpl->add_subcommand("update-config", "update config template");
  auto update_args = AddNameAndFile(update);
  update->callback([&ctx, update_args] {
    ctx.action = [&ctx, update_args] {
      return UpdateTemplateConfig(ctx.session(), update_args->name, update_args->file, std::cout);
    };
  });

  CLI::App* remove = tpl->add_subcommand("remove", "remove config template");
  remove->alias("rm");
  auto remove_name = AddName(remove);
  remove->callback([&ctx, remove_name] {
    ctx.action = [&ctx, remove_name] {
      return RemoveTemplate(ctx.session(), *remove_name, std::cout);
    };
  });
}

}  // namespace det::cli
