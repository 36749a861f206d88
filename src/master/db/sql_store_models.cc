// The model registry area of SqlStore: models and their versions.
#include <algorithm>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql/sql_dialect.h"
#include "master/db/sql_store.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): this area's half of sql_store_rows.h

namespace {

constexpr char kModelColumns[] =
    "SELECT m.id, m.name, m.description, m.metadata, m.labels, m.notes, m.workspace_id, m.user_id, "
    "coalesce(u.username, ''), m.archived, m.creation_time, m.last_updated_time, "
    "(SELECT count(*) FROM model_versions v WHERE v.model_id = m.id) "
    "FROM models m LEFT JOIN users u ON u.id = m.user_id LEFT JOIN workspaces w ON w.id = m.workspace_id ";

Model ReadModel(const SqlStatement& s) {
  return Model{.id = s.Int(0),
               .name = s.Text(1),
               .description = s.Text(2),
               .metadata_json = s.Text(3),
               .labels = JsonStrings(s.Text(4)),
               .notes = s.Text(5),
               .workspace_id = s.Int(6),
               .user_id = s.Int(7),
               .username = s.Text(8),
               .archived = s.Int(9) != 0,
               .creation_time = FromUnixMicros(s.Int(10)),
               .last_updated_time = FromUnixMicros(s.Int(11)),
               .num_versions = s.Int(12)};
}

constexpr char kVersionColumns[] =
    "SELECT v.id, v.model_id, v.version, v.checkpoint_uuid, v.name, v.comment, v.metadata, v.labels, v.notes, "
    "v.user_id, coalesce(u.username, ''), v.creation_time, v.last_updated_time "
    "FROM model_versions v LEFT JOIN users u ON u.id = v.user_id ";

ModelVersion ReadVersion(const SqlStatement& s) {
  return ModelVersion{.id = s.Int(0),
                      .model_id = s.Int(1),
                      .version = s.Int(2),
                      .checkpoint_uuid = s.Text(3),
                      .name = s.Text(4),
                      .comment = s.Text(5),
                      .metadata_json = s.Text(6),
                      .labels = JsonStrings(s.Text(7)),
                      .notes = s.Text(8),
                      .user_id = s.Int(9),
                      .username = s.Text(10),
                      .creation_time = FromUnixMicros(s.Int(11)),
                      .last_updated_time = FromUnixMicros(s.Int(12))};
}

int64_t NowMicros() { return Micros(std::chrono::system_clock::now()); }

// `column = ?` for each of the fields given, in order, and their values as text.
struct Sets {
  std::vector<std::string> columns;
  std::vector<std::string> values;
  void Add(const char* column, const std::optional<std::string>& value) {
    if (!value) return;
    columns.push_back(absl::StrCat(column, " = ?"));
    values.push_back(*value);
  }
  void Add(const char* column, const std::optional<std::vector<std::string>>& labels) {
    if (labels) Add(column, std::optional<std::string>(nlohmann::json(*labels).dump()));
  }
};

}  // namespace

absl::StatusOr<Model> SqlStore::InsertModel(const Model& m) {
  int64_t id = 0;
  {
    SqlLease lease = Writer();
    ASSIGN_OR_RETURN(auto s, lease->Prepare("INSERT INTO models (name, description, metadata, labels, notes, "
                                            "workspace_id, user_id, creation_time, last_updated_time) VALUES "
                                            "(?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"));
    const int64_t now = NowMicros();
    s.Bind(1, m.name).Bind(2, m.description).Bind(3, m.metadata_json).Bind(4, nlohmann::json(m.labels).dump());
    s.Bind(5, m.notes).Bind(6, m.workspace_id).Bind(7, m.user_id).Bind(8, now).Bind(9, now);
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return absl::AlreadyExistsError(absl::StrCat("a model named \"", m.name, "\" already exists"));
    id = s.Int(0);
  }
  return GetModel(id);
}

absl::StatusOr<Model> SqlStore::GetModel(int64_t id) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(kModelColumns, "WHERE m.id = ?")));
  s.Bind(1, id);
  return One<Model>(s, ReadModel, absl::StrCat("model ", id));
}

absl::StatusOr<Model> SqlStore::GetModelByName(const std::string& name) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(kModelColumns, "WHERE m.name = ?")));
  s.Bind(1, name);
  return One<Model>(s, ReadModel, absl::StrCat("model \"", name, "\""));
}

absl::StatusOr<ModelPage> SqlStore::ListModels(const ModelFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  SqlDialect d = db.dialect();
  std::vector<std::string> clauses;
  std::vector<std::string> binds;
  auto in_list = [&](const std::string& column, const auto& values) {
    if (values.empty()) return;
    clauses.push_back(InList(column, values.size()));
    for (const auto& v : values) binds.push_back(absl::StrCat(v));
  };
  if (!filter.name.empty()) {
    clauses.push_back("m.name = ?");
    binds.push_back(filter.name);
  }
  if (!filter.description.empty()) {
    clauses.push_back(absl::StrCat("m.description ", CaseInsensitiveLike(d), " ? ESCAPE '\\'"));
    binds.push_back(LikeContains(filter.description));
  }
  for (const std::string& label : filter.labels) {
    clauses.push_back(JsonArrayHas(d, "m.labels"));
    binds.push_back(label);
  }
  if (filter.archived) clauses.push_back(*filter.archived ? "m.archived <> 0" : "m.archived = 0");
  in_list("u.username", filter.usernames);
  in_list("CAST(m.user_id AS TEXT)", filter.user_ids);
  in_list("CAST(m.workspace_id AS TEXT)", filter.workspace_ids);
  in_list("w.name", filter.workspace_names);
  if (filter.visible_workspaces) clauses.push_back(IdsIn("m.workspace_id", *filter.visible_workspaces));
  if (filter.id != 0) {
    clauses.push_back("m.id = CAST(? AS BIGINT)");
    binds.push_back(std::to_string(filter.id));
  }
  std::string where = clauses.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(clauses, " AND "), " ");
  ModelPage page;
  ASSIGN_OR_RETURN(auto count, db.Prepare(absl::StrCat("SELECT count(*) FROM models m LEFT JOIN users u ON u.id = "
                                                       "m.user_id LEFT JOIN workspaces w ON w.id = m.workspace_id ",
                                                       where)));
  for (size_t i = 0; i < binds.size(); ++i) count.Bind(static_cast<int>(i) + 1, binds[i]);
  ASSIGN_OR_RETURN(page.total, One<int64_t>(count, [](const SqlStatement& st) { return st.Int(0); }, "count"));
  std::string order;
  switch (filter.sort_by) {
    case ModelFilter::SortBy::kName: order = "m.name"; break;
    case ModelFilter::SortBy::kDescription: order = "m.description"; break;
    case ModelFilter::SortBy::kCreationTime: order = "m.creation_time"; break;
    case ModelFilter::SortBy::kLastUpdatedTime: order = "m.last_updated_time"; break;
    case ModelFilter::SortBy::kNumVersions:
      order = "(SELECT count(*) FROM model_versions v WHERE v.model_id = m.id)";
      break;
    case ModelFilter::SortBy::kWorkspace: order = "m.workspace_id"; break;
  }
  const char* direction = filter.descending ? " DESC" : " ASC";
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat(kModelColumns, where, "ORDER BY ", order, direction, ", m.id",
                                                   direction, " LIMIT ? OFFSET ?")));
  int i = 1;
  for (const std::string& b : binds) s.Bind(i++, b);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit).Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(page.models, All<Model>(s, ReadModel));
  return page;
}

absl::StatusOr<Model> SqlStore::PatchModel(int64_t id, const ModelPatch& patch) {
  {
    SqlLease lease = Writer();
    Sets sets;
    sets.Add("name", patch.name);
    sets.Add("description", patch.description);
    sets.Add("metadata", patch.metadata_json);
    sets.Add("labels", patch.labels);
    sets.Add("notes", patch.notes);
    if (patch.workspace_id) sets.columns.push_back("workspace_id = CAST(? AS BIGINT)");
    ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat("UPDATE models SET ", absl::StrJoin(sets.columns, ", "),
                                                         sets.columns.empty() ? "" : ", ",
                                                         "last_updated_time = ? WHERE id = ?")));
    int i = 1;
    for (const std::string& v : sets.values) s.Bind(i++, v);
    if (patch.workspace_id) s.Bind(i++, std::to_string(*patch.workspace_id));
    s.Bind(i, NowMicros()).Bind(i + 1, id);
    absl::Status updated = s.Run();
    if (absl::IsAlreadyExists(updated)) {
      return absl::AlreadyExistsError(absl::StrCat("a model named \"", patch.name.value_or(""), "\" already exists"));
    }
    RETURN_IF_ERROR(updated);
  }
  return GetModel(id);
}

absl::Status SqlStore::SetModelArchived(int64_t id, bool archived) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("UPDATE models SET archived = ?, last_updated_time = ? WHERE id = ?"));
  s.Bind(1, archived ? 1 : 0).Bind(2, NowMicros()).Bind(3, id);
  return s.Run();
}

absl::Status SqlStore::DeleteModel(int64_t id) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  for (const char* sql : {"DELETE FROM trial_source_infos WHERE model_id = ?", "DELETE FROM model_versions WHERE model_id = ?",
                          "DELETE FROM models WHERE id = ?"}) {
    ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
    s.Bind(1, id);
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::StatusOr<std::vector<std::string>> SqlStore::ListModelLabels(int64_t workspace_id) {
  ASSIGN_OR_RETURN(ModelPage page, ListModels({.workspace_ids = workspace_id == 0 ? std::vector<int64_t>{}
                                                                                   : std::vector<int64_t>{workspace_id}}));
  std::map<std::string, int> uses;
  for (const Model& m : page.models) {
    for (const std::string& label : m.labels) ++uses[label];
  }
  std::vector<std::string> out;
  for (const auto& [label, n] : uses) out.push_back(label);
  std::stable_sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) { return uses[a] > uses[b]; });
  return out;
}

absl::StatusOr<ModelVersion> SqlStore::InsertModelVersion(const ModelVersion& v) {
  int64_t number = 0;
  {
    SqlLease lease = Writer();
    SqlConnection& db = *lease;
    SqlTransaction tx(db);
    RETURN_IF_ERROR(tx.Begin());
    const int64_t now = NowMicros();
    {  // the statement ends before the transaction commits
      ASSIGN_OR_RETURN(auto next, db.Prepare("UPDATE models SET last_version = last_version + 1, "
                                             "last_updated_time = ? WHERE id = ? RETURNING last_version"));
      next.Bind(1, now).Bind(2, v.model_id);
      ASSIGN_OR_RETURN(number, One<int64_t>(next, [](const SqlStatement& st) { return st.Int(0); },
                                            absl::StrCat("model ", v.model_id)));
    }
    ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO model_versions (model_id, version, checkpoint_uuid, name, comment, "
                                        "metadata, labels, notes, user_id, creation_time, last_updated_time) VALUES "
                                        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    s.Bind(1, v.model_id).Bind(2, number).Bind(3, v.checkpoint_uuid).Bind(4, v.name).Bind(5, v.comment);
    s.Bind(6, v.metadata_json).Bind(7, nlohmann::json(v.labels).dump()).Bind(8, v.notes).Bind(9, v.user_id);
    s.Bind(10, now).Bind(11, now);
    RETURN_IF_ERROR(s.Run());
    RETURN_IF_ERROR(tx.Commit());
  }
  return GetModelVersion(v.model_id, number);
}

absl::StatusOr<ModelVersion> SqlStore::GetModelVersion(int64_t model_id, int64_t version) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(kVersionColumns, "WHERE v.model_id = ? AND v.version = ?")));
  s.Bind(1, model_id).Bind(2, version);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("model ", model_id, " has no version ", version));
  return ReadVersion(s);
}

absl::StatusOr<std::vector<ModelVersion>> SqlStore::ListModelVersions(int64_t model_id, bool descending) {
  SqlLease lease = Reader();
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(kVersionColumns, "WHERE v.model_id = ? ORDER BY v.version",
                                                       descending ? " DESC" : " ASC")));
  s.Bind(1, model_id);
  return All<ModelVersion>(s, ReadVersion);
}

absl::StatusOr<ModelVersion> SqlStore::PatchModelVersion(int64_t model_id, int64_t version,
                                                         const ModelVersionPatch& patch) {
  {
    SqlLease lease = Writer();
    Sets sets;
    sets.Add("name", patch.name);
    sets.Add("comment", patch.comment);
    sets.Add("metadata", patch.metadata_json);
    sets.Add("labels", patch.labels);
    sets.Add("notes", patch.notes);
    sets.columns.push_back("last_updated_time = ?");
    ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat("UPDATE model_versions SET ", absl::StrJoin(sets.columns, ", "),
                                                         " WHERE model_id = ? AND version = ?")));
    int i = 1;
    for (const std::string& v : sets.values) s.Bind(i++, v);
    s.Bind(i, NowMicros()).Bind(i + 1, model_id).Bind(i + 2, version);
    RETURN_IF_ERROR(s.Run());
  }
  return GetModelVersion(model_id, version);
}

absl::Status SqlStore::DeleteModelVersion(int64_t model_id, int64_t version) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  for (const char* sql : {"DELETE FROM trial_source_infos WHERE model_id = ? AND model_version = ?",
                          "DELETE FROM model_versions WHERE model_id = ? AND version = ?"}) {
    ASSIGN_OR_RETURN(auto s, db.Prepare(sql));
    s.Bind(1, model_id).Bind(2, version);
    RETURN_IF_ERROR(s.Run());
  }
  return tx.Commit();
}

absl::StatusOr<std::vector<Registration>> SqlStore::ListRegistrations(const std::vector<std::string>& uuids,
                                                                      int64_t experiment_id) {
  SqlLease lease = Reader();
  std::string where;
  if (experiment_id != 0) {
    where = "c.experiment_id = ?";
  } else if (!uuids.empty()) {
    where = InList("v.checkpoint_uuid", uuids.size());
  } else {
    return std::vector<Registration>();
  }
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(
                               "SELECT v.checkpoint_uuid, m.name, v.version FROM model_versions v JOIN models m ON "
                               "m.id = v.model_id LEFT JOIN checkpoints c ON c.uuid = v.checkpoint_uuid WHERE ",
                               where, " ORDER BY m.name, v.version")));
  if (experiment_id != 0) {
    s.Bind(1, experiment_id);
  } else {
    for (size_t i = 0; i < uuids.size(); ++i) s.Bind(static_cast<int>(i) + 1, uuids[i]);
  }
  return All<Registration>(s, [](const SqlStatement& st) {
    return Registration{.checkpoint_uuid = st.Text(0), .model_name = st.Text(1), .version = st.Int(2)};
  });
}

absl::Status SqlStore::AddTrialSourceInfo(const TrialSourceInfo& info) {
  SqlLease lease = Writer();
  ASSIGN_OR_RETURN(auto s, lease->Prepare("INSERT INTO trial_source_infos (trial_id, checkpoint_uuid, model_id, "
                                          "model_version, trial_source_info_type) VALUES (?, ?, ?, ?, ?)"));
  s.Bind(1, info.trial_id).Bind(2, info.checkpoint_uuid).Bind(3, info.model_id).Bind(4, info.model_version);
  s.Bind(5, info.type);
  return s.Run();
}

absl::StatusOr<std::vector<TrialSourceInfo>> SqlStore::ListTrialSourceInfos(const TrialSourceFilter& filter) {
  SqlLease lease = Reader();
  std::vector<std::string> where = {"1 = 1"};
  if (!filter.checkpoint_uuid.empty()) where.push_back("checkpoint_uuid = ?");
  if (filter.model_id) where.push_back("model_id = ?");
  if (filter.model_version) where.push_back("model_version = ?");
  if (!filter.type.empty()) where.push_back("trial_source_info_type = ?");
  ASSIGN_OR_RETURN(auto s, lease->Prepare(absl::StrCat(
                               "SELECT trial_id, checkpoint_uuid, model_id, model_version, trial_source_info_type "
                               "FROM trial_source_infos WHERE ",
                               absl::StrJoin(where, " AND "), " ORDER BY trial_id")));
  int i = 1;
  if (!filter.checkpoint_uuid.empty()) s.Bind(i++, filter.checkpoint_uuid);
  if (filter.model_id) s.Bind(i++, *filter.model_id);
  if (filter.model_version) s.Bind(i++, *filter.model_version);
  if (!filter.type.empty()) s.Bind(i++, filter.type);
  return All<TrialSourceInfo>(s, [](const SqlStatement& st) {
    return TrialSourceInfo{.trial_id = st.Int(0),
                           .checkpoint_uuid = st.Text(1),
                           .model_id = st.OptInt(2),
                           .model_version = st.OptInt(3),
                           .type = st.Text(4)};
  });
}

}  // namespace det::master
