// Configuration templates (reference §1f): /api/v1/templates and /api/v1/template/rename.
// A template is `{name, config, workspaceId}`; its config is a partial experiment config, checked as
// one when it is set (config::CheckTemplateConfig) and stored as given; the experiment that uses it
// checks the merged whole (handlers/experiments.cc).
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"
#include "config/experiment_config.h"
#include "master/handlers/handler_util.h"
#include "master/handlers/routes.h"
#include "master/task/authz.h"
#include "master/workspace_rules.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr int64_t kDefaultWorkspaceId = 1;

json TemplateJson(const Template& t) {
  absl::StatusOr<json> config = ParseJson(t.config_json);
  return {{"name", t.name},
          {"config", config.ok() ? *config : json::object()},
          {"workspaceId", t.workspace_id}};
}

std::string PathName(const HttpRequest& req, const std::string& param) {
  auto it = req.path_params.find(param);
  return it == req.path_params.end() ? "" : it->second;
}

absl::Status CheckName(const std::string& name, const std::string& field) {
  if (name.empty())
    return absl::InvalidArgumentError(absl::StrCat(field, ": a template name is required"));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ConfigText(const json* config) {
  if (config == nullptr || !config->is_object()) {
    return absl::InvalidArgumentError(
        "template config must be a JSON object (the template's experiment configuration)");
  }
  RETURN_IF_ERROR(config::CheckTemplateConfig(*config));
  return DumpJson(*config);
}

// The template's workspace: 0 (unset) means the default one; another must exist and not be archived.
absl::StatusOr<int64_t> WorkspaceId(WorkspaceStore& store, const json& body) {
  const json* w = api::FindField(body, "workspace_id");
  if (w == nullptr) return kDefaultWorkspaceId;
  ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(*w, "workspaceId"));
  if (id == 0) return kDefaultWorkspaceId;
  RETURN_IF_ERROR(WorkspaceForNewWork(store, id, "templates").status());
  return id;
}

// POST and PUT: the body is the Template; the name in the path wins over one in the body.
absl::StatusOr<Template> TemplateFromRequest(WorkspaceStore& store, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  Template t;
  t.name = PathName(req, "name");
  RETURN_IF_ERROR(CheckName(t.name, "template.name"));
  ASSIGN_OR_RETURN(t.config_json, ConfigText(api::FindField(body, "config")));
  ASSIGN_OR_RETURN(t.workspace_id, WorkspaceId(store, body));
  return t;
}

absl::StatusOr<TemplateFilter> ListFilter(const HttpRequest& req) {
  TemplateFilter f;
  f.name_contains = req.Query("name").value_or("");
  for (const std::string& w : req.QueryAll("workspace_ids")) {
    ASSIGN_OR_RETURN(int64_t id, api::ReadInt64(json(w), "workspaceIds"));
    f.workspace_ids.push_back(id);
  }
  std::string sort = req.Query("sort_by").value_or("SORT_BY_UNSPECIFIED");
  if (sort != "SORT_BY_UNSPECIFIED" && sort != "SORT_BY_NAME" && sort != "0" && sort != "1") {
    return absl::InvalidArgumentError(
        absl::StrCat("sortBy must be SORT_BY_UNSPECIFIED or SORT_BY_NAME, got \"", sort, "\""));
  }
  ASSIGN_OR_RETURN(f.descending, QueryOrderDescending(req));
  ASSIGN_OR_RETURN(f.offset, QueryInt(req, "offset", 0));
  ASSIGN_OR_RETURN(f.limit, QueryInt(req, "limit", 0));
  if (f.offset < 0) return absl::InvalidArgumentError("offset must be >= 0");
  if (f.limit < 0) return absl::InvalidArgumentError("limit must be >= 0");
  return f;
}

// Narrows `filter` to the workspaces whose templates `who` may see; false when that leaves none.
absl::StatusOr<bool> OnlyVisible(const Principal& who, TemplateFilter& filter) {
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> visible,
                   VisibleWorkspaces(who, rbac::Permission::kViewTemplates));
  if (!visible) return true;
  if (filter.workspace_ids.empty()) {
    filter.workspace_ids = *visible;
  } else {
    std::erase_if(filter.workspace_ids, [&](int64_t w) { return !absl::c_linear_search(*visible, w); });
  }
  return !filter.workspace_ids.empty();  // empty would mean every workspace
}

absl::StatusOr<json> ListTemplates(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(TemplateFilter filter, ListFilter(req));
  ASSIGN_OR_RETURN(bool any_visible, OnlyVisible(*req.principal, filter));
  TemplatePage page;
  if (any_visible) {
    ASSIGN_OR_RETURN(page, ctx.store.ListTemplates(filter));
  }
  json out = json::array();
  for (const Template& t : page.templates) out.push_back(TemplateJson(t));
  return json{{"templates", out},
              {"pagination", Pagination(filter.offset, filter.limit,
                                        static_cast<int64_t>(page.templates.size()), page.total)}};
}

absl::StatusOr<json> GetTemplate(MasterContext& ctx, const std::string& name) {
  ASSIGN_OR_RETURN(Template t, ctx.store.GetTemplate(name));
  return json{{"template", TemplateJson(t)}};
}

// Whether `who` may do what `needed` allows to a template in `workspace_id`.
absl::Status CheckTemplate(const Principal& who, rbac::Permission needed, const std::string& name,
                           int64_t workspace_id) {
  return DefaultAuthz().Check(who, needed, {"template", name, 0, workspace_id});
}

// The existing template `name` when `who` may do what `needed` allows to it (NotFound when it may not
// even see it).
absl::StatusOr<Template> TemplateForChange(Store& store, const Principal& who, const std::string& name,
                                           rbac::Permission needed) {
  ASSIGN_OR_RETURN(Template t, store.GetTemplate(name));
  RETURN_IF_ERROR(CheckRead(who, rbac::Permission::kViewTemplates, {"template", name, 0, t.workspace_id}));
  RETURN_IF_ERROR(CheckTemplate(who, needed, name, t.workspace_id));
  return t;
}

// POST creates in the body's workspace; PUT replaces one the caller may change (and may create in the
// workspace it moves to) or creates.
absl::StatusOr<json> CreateTemplate(MasterContext& ctx, const HttpRequest& req, bool upsert) {
  ASSIGN_OR_RETURN(Template t, TemplateFromRequest(ctx.store, req));
  const Principal& who = *req.principal;
  absl::StatusOr<Template> existing = ctx.store.GetTemplate(t.name);
  if (upsert && existing.ok()) {
    RETURN_IF_ERROR(TemplateForChange(ctx.store, who, t.name, rbac::Permission::kUpdateTemplates).status());
    if (existing->workspace_id != t.workspace_id)
      RETURN_IF_ERROR(CheckTemplate(who, rbac::Permission::kCreateTemplates, t.name, t.workspace_id));
  } else {
    RETURN_IF_ERROR(CheckTemplate(who, rbac::Permission::kCreateTemplates, t.name, t.workspace_id));
  }
  RETURN_IF_ERROR(upsert ? ctx.store.PutTemplate(t) : ctx.store.InsertTemplate(t));
  return GetTemplate(ctx, t.name);
}

// PATCH /api/v1/templates/{name}: the body is the new config object itself.
absl::StatusOr<json> PatchTemplateConfig(MasterContext& ctx, const HttpRequest& req) {
  std::string name = PathName(req, "name");
  RETURN_IF_ERROR(CheckName(name, "templateName"));
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  ASSIGN_OR_RETURN(std::string config, ConfigText(&body));
  RETURN_IF_ERROR(TemplateForChange(ctx.store, *req.principal, name, rbac::Permission::kUpdateTemplates).status());
  RETURN_IF_ERROR(ctx.store.UpdateTemplateConfig(name, config));
  return GetTemplate(ctx, name);
}

absl::StatusOr<json> RenameTemplate(MasterContext& ctx, const HttpRequest& req) {
  ASSIGN_OR_RETURN(json body, JsonBody(req));
  std::string old_name = api::StringField(body, "old_name");
  std::string new_name = api::StringField(body, "new_name");
  RETURN_IF_ERROR(CheckName(old_name, "oldName"));
  RETURN_IF_ERROR(CheckName(new_name, "newName"));
  RETURN_IF_ERROR(TemplateForChange(ctx.store, *req.principal, old_name, rbac::Permission::kUpdateTemplates).status());
  RETURN_IF_ERROR(ctx.store.RenameTemplate(old_name, new_name));
  return GetTemplate(ctx, new_name);
}

absl::StatusOr<json> DeleteTemplate(MasterContext& ctx, const HttpRequest& req) {
  std::string name = PathName(req, "name");
  RETURN_IF_ERROR(CheckName(name, "templateName"));
  RETURN_IF_ERROR(TemplateForChange(ctx.store, *req.principal, name, rbac::Permission::kDeleteTemplates).status());
  RETURN_IF_ERROR(ctx.store.DeleteTemplate(name));
  return json::object();
}

// Runs `op` and replies with its result. Each change asks the rule in force (templates in a workspace,
// upstream's 9001-9004; tasks holding only an allocation token change none).
template <class Op>
Handler Replying(Op op) {
  return [op](HttpRequest& req, ResponderPtr r) { Reply(r, op(req)); };
}

}  // namespace

void RegisterTemplateRoutes(Router& router, MasterContext& ctx) {
  router.Add("GET", "/api/v1/templates", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) { Reply(r, ListTemplates(ctx, req)); });
  router.Add("GET", "/api/v1/templates/{name}", Access::kAuthenticated,
             [&ctx](HttpRequest& req, ResponderPtr r) {
               Reply(r, GetTemplate(ctx, PathName(req, "name")));
             });
  router.Add("POST", "/api/v1/templates/{name}", Access::kAuthenticated,
             Replying([&ctx](const HttpRequest& req) {
               return CreateTemplate(ctx, req, /*upsert=*/false);
             }));
  router.Add("PUT", "/api/v1/templates/{name}", Access::kAuthenticated,
             Replying([&ctx](const HttpRequest& req) {
               return CreateTemplate(ctx, req, /*upsert=*/true);
             }));
  router.Add("PATCH", "/api/v1/templates/{name}", Access::kAuthenticated,
             Replying([&ctx](const HttpRequest& req) { return PatchTemplateConfig(ctx, req); }));
  router.Add("PATCH", "/api/v1/template/rename", Access::kAuthenticated,
             Replying([&ctx](const HttpRequest& req) { return RenameTemplate(ctx, req); }));
  router.Add("DELETE", "/api/v1/templates/{name}", Access::kAuthenticated,
             Replying([&ctx](const HttpRequest& req) { return DeleteTemplate(ctx, req); }));
}

}  // namespace det::master
