#include "cli/template_ops.h"

#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "cli/workspace_ops.h"
#include "cli/table.h"
#include "client/rest_client.h"
#include "common/file_util.h"
#include "common/json_yaml.h"

namespace det::cli {
namespace {

using nlohmann::json;

std::string TemplatePath(const std::string& name) {
  return absl::StrCat("/api/v1/templates/", client::UrlEncode(name));
}

// The workspace's name, or upstream's text for one it cannot name.
std::string WorkspaceName(const json& tpl, const std::map<int64_t, std::string>& names) {
  const json* id = tpl.contains("workspaceId") ? &tpl["workspaceId"] : nullptr;
  int64_t n = 0;
  if (id != nullptr && id->is_number_integer()) n = id->get<int64_t>();
  if (id != nullptr && id->is_string() && !absl::SimpleAtoi(id->get<std::string>(), &n)) n = 0;
  auto it = names.find(n);
  return it == names.end() ? "missing workspace" : it->second;
}

// Every workspace's name by id; the built-in one alone when they cannot be listed (an older master).
std::map<int64_t, std::string> WorkspaceNames(Session& session) {
  std::map<int64_t, std::string> names = {{1, "Uncategorized"}};
  absl::StatusOr<json> workspaces = GetAllPages(session, "/api/v1/workspaces", "workspaces");
  if (!workspaces.ok()) return names;
  for (const json& w : *workspaces) names[w.value("id", int64_t{0})] = w.value("name", "");
  return names;
}

}  // namespace

absl::StatusOr<json> ReadTemplateFile(const std::string& file) {
  absl::StatusOr<std::string> text = ReadFile(file);
  if (!text.ok())
    return absl::InvalidArgumentError(absl::StrCat("cannot read template file ", file));
  absl::StatusOr<json> config = ParseYaml(*text);
  if (!config.ok())
    return absl::InvalidArgumentError(absl::StrCat(file, ": ", config.status().message()));
  if (!config->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": a template must be a YAML mapping of experiment configuration keys"));
  }
  return config;
}

std::string RenderTemplates(const json& templates, bool details, const std::map<int64_t, std::string>& workspaces) {
  Table table(details ? std::vector<std::string>{"Name", "Workspace", "Config"}
                      : std::vector<std::string>{"Name", "Workspace"});
  for (const json& t : templates) {
    std::string name = t.value("name", "");
    if (details) {
      std::string config = ToYaml(t.contains("config") ? t["config"] : json::object());
      while (!config.empty() && config.back() == '\n') config.pop_back();
      table.AddRow({name, WorkspaceName(t, workspaces), config});
    } else {
      table.AddRow({name, WorkspaceName(t, workspaces)});
    }
  }
  return table.Render();
}

absl::StatusOr<int> ListTemplates(Session& session, const ListTemplatesArgs& args,
                                  std::ostream& out) {
  absl::StatusOr<json> templates = GetAllPages(session, "/api/v1/templates", "templates");
  if (!templates.ok()) return templates.status();
  if (args.json) {
    out << DumpJson(*templates) << "\n";
    return 0;
  }
  out << RenderTemplates(*templates, args.details, WorkspaceNames(session));
  return 0;
}

absl::StatusOr<int> DescribeTemplate(Session& session, const std::string& name, std::ostream& out) {
  absl::StatusOr<json> resp = session.Get(TemplatePath(name));
  if (!resp.ok()) return resp.status();
  const json& tpl = resp->contains("template") ? (*resp)["template"] : *resp;
  out << ToYaml(tpl.contains("config") ? tpl["config"] : json::object());
  return 0;
}

absl::StatusOr<int> SetTemplate(Session& session, const std::string& name, const std::string& file,
                                std::ostream& out) {
  absl::StatusOr<json> config = ReadTemplateFile(file);
  if (!config.ok()) return config.status();
  absl::StatusOr<json> existing = session.Get(TemplatePath(name));
  if (existing.ok()) {
    absl::StatusOr<json> patched = session.Patch(TemplatePath(name), *config);
    if (!patched.ok()) return patched.status();
  } else if (absl::IsNotFound(existing.status())) {
    json body = {{"name", name}, {"config", *config}, {"workspaceId", 0}};
    absl::StatusOr<json> created = session.Post(TemplatePath(name), body);
    if (!created.ok()) return created.status();
  } else {
    return existing.status();
  }
  out << "Set template " << name << "\n";
  return 0;
}

absl::StatusOr<int> CreateTemplate(Session& session, const std::string& name, const std::string& file,
                                   const std::string& workspace, std::ostream& out) {
  absl::StatusOr<json> config = ReadTemplateFile(file);
  if (!config.ok()) return config.status();
  json body = {{"name", name}, {"config", *config}, {"workspaceId", 0}};
  if (!workspace.empty()) {
    absl::StatusOr<json> found = FindWorkspace(session, workspace);
    if (!found.ok()) return found.status();
    body["workspaceId"] = (*found)["id"];
  }
  absl::StatusOr<json> created = session.Post(TemplatePath(name), body);
  if (!created.ok()) return created.status();
  out << "Created template " << name << "\n";
  return 0;
}

absl::StatusOr<int> UpdateTemplateConfig(Session& session, const std::string& name,
                                         const std::string& file, std::ostream& out) {
  absl::StatusOr<json> config = ReadTemplateFile(file);
  if (!config.ok()) return config.status();
  absl::StatusOr<json> patched = session.Patch(TemplatePath(name), *config);
  if (!patched.ok()) return patched.status();
  out << "Updated template " << name << "\n";
  return 0;
}

absl::StatusOr<int> RemoveTemplate(Session& session, const std::string& name, std::ostream& out) {
  absl::StatusOr<json> resp = session.Delete(TemplatePath(name));
  if (!resp.ok()) return resp.status();
  out << "Removed template " << name << "\n";
  return 0;
}

}  // namespace det::cli
