// The templates area of SqlStore.
#include "master/db/sql_store.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "master/db/sql/sql_dialect.h"
#include "master/db/sql_store_rows.h"

namespace det::master {

using namespace sql_rows;  // NOLINT(build/namespaces): this area's half of sql_store_rows.h

namespace {

std::string TemplateNotFound(const std::string& name) { return absl::StrCat("template \"", name, "\" not found"); }

Template ReadTemplate(const SqlStatement& s) {
  Template t;
  t.name = s.Text(0);
  t.config_json = s.Text(1);
  t.workspace_id = s.Int(2);
  return t;
}

}  // namespace

absl::Status SqlStore::InsertTemplate(const Template& tpl) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO templates (name, config, workspace_id) VALUES (?, ?, ?) "
                                    "ON CONFLICT (name) DO NOTHING"));
  s.Bind(1, tpl.name).Bind(2, tpl.config_json).Bind(3, tpl.workspace_id);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) {
    return absl::AlreadyExistsError(absl::StrCat("template \"", tpl.name, "\" already exists"));
  }
  return absl::OkStatus();
}

absl::Status SqlStore::PutTemplate(const Template& tpl) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("INSERT INTO templates (name, config, workspace_id) VALUES (?, ?, ?) "
                                    "ON CONFLICT (name) DO UPDATE SET config = excluded.config, "
                                    "workspace_id = excluded.workspace_id"));
  s.Bind(1, tpl.name).Bind(2, tpl.config_json).Bind(3, tpl.workspace_id);
  return s.Run();
}

absl::StatusOr<Template> SqlStore::GetTemplate(const std::string& name) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s,
                   db.Prepare("SELECT name, config, workspace_id FROM templates WHERE name = ?"));
  s.Bind(1, name);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(TemplateNotFound(name));
  return ReadTemplate(s);
}

absl::StatusOr<TemplatePage> SqlStore::ListTemplates(const TemplateFilter& filter) {
  SqlLease lease = Reader();
  SqlConnection& db = *lease;
  std::vector<std::string> clauses;
  if (!filter.name_contains.empty()) {
    clauses.push_back(absl::StrCat("name ", CaseInsensitiveLike(db.dialect()), " ? ESCAPE '\\'"));
  }
  if (!filter.workspace_ids.empty()) {
    std::vector<std::string> marks(filter.workspace_ids.size(), "?");
    clauses.push_back(absl::StrCat("workspace_id IN (", absl::StrJoin(marks, ", "), ")"));
  }
  std::string where = clauses.empty() ? "" : absl::StrCat("WHERE ", absl::StrJoin(clauses, " AND "), " ");
  auto bind_where = [&](SqlStatement& s) {
    int i = 1;
    if (!filter.name_contains.empty()) s.Bind(i++, LikeContains(filter.name_contains));
    for (int64_t id : filter.workspace_ids) s.Bind(i++, id);
    return i;
  };
  TemplatePage page;
  ASSIGN_OR_RETURN(auto count, db.Prepare(absl::StrCat("SELECT count(*) FROM templates ", where)));
  bind_where(count);
  ASSIGN_OR_RETURN(page.total, One<int64_t>(count, [](const SqlStatement& st) { return st.Int(0); }, "count"));
  ASSIGN_OR_RETURN(auto s, db.Prepare(absl::StrCat("SELECT name, config, workspace_id FROM templates ", where,
                                                 "ORDER BY name ", filter.descending ? "DESC" : "ASC",
                                                 " LIMIT ? OFFSET ?")
                                        ));
  int i = bind_where(s);
  s.Bind(i, filter.limit > 0 ? filter.limit : kNoLimit);
  s.Bind(i + 1, std::max<int64_t>(0, filter.offset));
  ASSIGN_OR_RETURN(page.templates, All<Template>(s, ReadTemplate));
  return page;
}

absl::Status SqlStore::UpdateTemplateConfig(const std::string& name, const std::string& config_json) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE templates SET config = ? WHERE name = ?"));
  s.Bind(1, config_json).Bind(2, name);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(TemplateNotFound(name));
  return absl::OkStatus();
}

absl::Status SqlStore::RenameTemplate(const std::string& old_name, const std::string& new_name) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  SqlTransaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto taken, db.Prepare("SELECT 1 FROM templates WHERE name = ?"));
  taken.Bind(1, new_name);
  ASSIGN_OR_RETURN(bool exists, taken.Step());
  if (exists && new_name != old_name) {
    return absl::AlreadyExistsError(absl::StrCat("template \"", new_name, "\" already exists"));
  }
  ASSIGN_OR_RETURN(auto s, db.Prepare("UPDATE templates SET name = ? WHERE name = ?"));
  s.Bind(1, new_name).Bind(2, old_name);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(TemplateNotFound(old_name));
  return tx.Commit();
}

absl::Status SqlStore::DeleteTemplate(const std::string& name) {
  SqlLease lease = Writer();
  SqlConnection& db = *lease;
  ASSIGN_OR_RETURN(auto s, db.Prepare("DELETE FROM templates WHERE name = ?"));
  s.Bind(1, name);
  RETURN_IF_ERROR(s.Run());
  if (s.Changes() == 0) return absl::NotFoundError(TemplateNotFound(name));
  return absl::OkStatus();
}


}  // namespace det::master
