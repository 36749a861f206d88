#include "cli/model_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/checkpoint_ops.h"
#include "cli/format.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "cli/workspace_ops.h"
#include "client/rest_client.h"

namespace det::cli {

using nlohmann::json;

namespace {

std::string ModelPath(const std::string& name) { return absl::StrCat("/api/v1/models/", client::UrlEncode(name)); }

std::string Labels(const json& labels) {
  std::vector<std::string> out;
  if (labels.is_array()) {
    for (const json& l : labels) out.push_back(Cell(l));
  }
  return absl::StrJoin(out, ", ");
}

// Version `version` of the model, or its latest; NotFound when it has none.
absl::StatusOr<json> VersionOf(Session& session, const std::string& name, std::optional<int64_t> version) {
  if (version) {
    absl::StatusOr<json> v = session.Get(absl::StrCat(ModelPath(name), "/versions/", *version));
    if (!v.ok()) return v.status();
    return (*v)["modelVersion"];
  }
  absl::StatusOr<json> latest =
      session.Get(absl::StrCat(ModelPath(name), "/versions?sort_by=SORT_BY_VERSION&order_by=ORDER_BY_DESC&limit=1"));
  if (!latest.ok()) return latest.status();
  const json& versions = (*latest)["modelVersions"];
  if (!versions.is_array() || versions.empty()) {
    return absl::NotFoundError(absl::StrCat("model \"", name, "\" has no versions yet"));
  }
  return versions[0];
}

}  // namespace

Table ModelTable(const json& models) {
  Table t({"ID", "Name", "Description", "Workspace ID", "# Versions", "Labels", "Last Updated", "Archived"});
  if (!models.is_array()) return t;
  for (const json& m : models) {
    t.AddRow({Cell(Field(m, "id")), Str(m, "name"), Str(m, "description"), Cell(Field(m, "workspaceId")),
              Cell(Field(m, "numVersions")), Labels(Field(m, "labels")), Str(m, "lastUpdatedTime"),
              BoolCell(Field(m, "archived"))});
  }
  return t;
}

Table ModelVersionTable(const json& versions) {
  Table t({"Version", "Name", "Checkpoint UUID", "Experiment ID", "Trial ID", "Creation Time", "Labels", "Comment"});
  if (!versions.is_array()) return t;
  for (const json& v : versions) {
    const json& c = Field(v, "checkpoint");
    const json& training = c.is_object() ? Field(c, "training") : c;
    t.AddRow({Cell(Field(v, "version")), Str(v, "name"), c.is_object() ? Str(c, "uuid") : "",
              training.is_object() ? Cell(Field(training, "experimentId")) : "",
              training.is_object() ? Cell(Field(training, "trialId")) : "", Str(v, "creationTime"),
              Labels(Field(v, "labels")), Str(v, "comment")});
  }
  return t;
}

absl::StatusOr<int> ListModels(Session& session, const ModelListArgs& args, OutputFormat format, std::ostream& out) {
  std::string path = AddQuery("/api/v1/models", "sort_by", absl::StrCat("SORT_BY_", absl::AsciiStrToUpper(args.sort_by)));
  path = AddQuery(path, "order_by", args.order_by == "desc" ? "ORDER_BY_DESC" : "ORDER_BY_ASC");
  for (const std::string& w : args.workspace_names) path = AddQuery(path, "workspace_names", w);
  absl::StatusOr<json> models = GetAllPages(session, path, "models");
  if (!models.ok()) return models.status();
  out << RenderJsonOrTable(*models, ModelTable, format);
  return 0;
}

absl::StatusOr<int> CreateModel(Session& session, const std::string& name, const std::string& description,
                                const std::string& workspace, OutputFormat format, std::ostream& out) {
  json body = {{"name", name}, {"description", description}};
  if (!workspace.empty()) {
    absl::StatusOr<json> w = FindWorkspace(session, workspace);
    if (!w.ok()) return w.status();
    body["workspaceId"] = (*w)["id"];
  }
  absl::StatusOr<json> created = session.Post("/api/v1/models", body);
  if (!created.ok()) return created.status();
  out << RenderJsonOrTable((*created)["model"], ModelTable, format);
  return 0;
}

absl::StatusOr<int> DescribeModel(Session& session, const std::string& name, std::optional<int64_t> version,
                                  OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> model = session.Get(ModelPath(name));
  if (!model.ok()) return model.status();
  absl::StatusOr<json> v = VersionOf(session, name, version);
  const bool none_yet = absl::IsNotFound(v.status()) && !version;
  if (!v.ok() && !none_yet) return v.status();
  if (format == OutputFormat::kJson) {
    out << json{{"model", (*model)["model"]}, {"modelVersion", none_yet ? json() : *v}}.dump(4) << "\n";
    return 0;
  }
  out << Render(ModelTable(json::array({(*model)["model"]})), format);
  if (format == OutputFormat::kTable) out << "\n";
  out << Render(ModelVersionTable(none_yet ? json::array() : json::array({*v})), format);
  return 0;
}

absl::StatusOr<int> ListModelVersions(Session& session, const std::string& name, OutputFormat format,
                                      std::ostream& out) {
  absl::StatusOr<json> versions = GetAllPages(session, absl::StrCat(ModelPath(name), "/versions"), "modelVersions");
  if (!versions.ok()) return versions.status();
  out << RenderJsonOrTable(*versions, ModelVersionTable, format);
  return 0;
}

absl::StatusOr<int> RegisterModelVersion(Session& session, const std::string& name, const std::string& uuid,
                                         OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> created =
      session.Post(absl::StrCat(ModelPath(name), "/versions"), {{"checkpointUuid", uuid}});
  if (!created.ok()) return created.status();
  out << RenderJsonOrTable((*created)["modelVersion"], ModelVersionTable, format);
  return 0;
}

absl::StatusOr<int> DeleteModel(Session& session, const std::string& name, std::ostream& out) {
  absl::StatusOr<json> deleted = session.Delete(ModelPath(name));
  if (!deleted.ok()) return deleted.status();
  out << "Successfully deleted model \"" << name << "\".\n";
  return 0;
}

absl::StatusOr<int> MoveModel(Session& session, const std::string& name, const std::string& workspace,
                              std::ostream& out) {
  absl::StatusOr<json> w = FindWorkspace(session, workspace);
  if (!w.ok()) return w.status();
  absl::StatusOr<json> moved =
      session.Post(absl::StrCat(ModelPath(name), "/move"), {{"destinationWorkspaceId", (*w)["id"]}});
  if (!moved.ok()) return moved.status();
  out << "Moved model \"" << name << "\" to workspace \"" << workspace << "\".\n";
  return 0;
}

absl::StatusOr<int> DownloadModelVersion(Session& session, const std::string& name, std::optional<int64_t> version,
                                         const std::string& output_dir, std::ostream& out) {
  absl::StatusOr<json> v = VersionOf(session, name, version);
  if (!v.ok()) return v.status();
  const json& checkpoint = (*v)["checkpoint"];
  if (!checkpoint.is_object()) {
    return absl::NotFoundError(absl::StrCat("model \"", name, "\" version ", Cell((*v)["version"]),
                                            ": its checkpoint is gone"));
  }
  return DownloadCheckpoint(session, Str(checkpoint, "uuid"), output_dir, false, out);
}

}  // namespace det::cli
