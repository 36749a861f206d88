#include "master/handlers/path_scope.h"

#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "master/model_rules.h"
#include "master/task/authz.h"

namespace det::master {
namespace {

using rbac::Permission;

// A thing a path names: what the rule sees of it, and what viewing it needs.
struct Viewed {
  OwnedResource what;
  Permission view;
};

// The things below answer nullopt when what the path names does not exist (or is not a number where
// one is needed): the handler answers that in its own words.

std::optional<Viewed> ExperimentNamed(Store& store, int64_t id, Permission view, const std::string& kind,
                                      const std::string& shown_id) {
  absl::StatusOr<api::Experiment> e = store.GetExperiment(id);
  if (!e.ok()) return std::nullopt;
  return Viewed{{kind, shown_id, e->owner_id, e->workspace_id}, view};
}

std::optional<Viewed> TrialNamed(Store& store, int64_t id, Permission view) {
  absl::StatusOr<api::Trial> t = store.GetTrial(id);
  if (!t.ok()) return std::nullopt;
  return ExperimentNamed(store, t->experiment_id, view, "trial", std::to_string(id));
}

std::optional<Viewed> TaskNamed(Store& store, const std::string& id, const std::string& kind, Permission trial_view) {
  absl::StatusOr<Task> task = store.GetTask(id);
  if (!task.ok()) return std::nullopt;
  if (task->type == TaskType::kTrial) {
    absl::StatusOr<api::Trial> t = store.GetTrialByTaskId(id);
    if (!t.ok()) return std::nullopt;
    return ExperimentNamed(store, t->experiment_id, trial_view, kind, id);
  }
  return Viewed{{kind, id, task->owner_id, task->workspace_id}, Permission::kViewNsc};
}

std::optional<Viewed> CheckpointNamed(Store& store, const std::string& uuid) {
  absl::StatusOr<api::Checkpoint> c = store.GetCheckpoint(uuid);
  if (!c.ok()) return std::nullopt;
  std::optional<Viewed> owner =
      c->experiment_id != 0
          ? ExperimentNamed(store, c->experiment_id, Permission::kViewExperimentArtifacts, "checkpoint", uuid)
          : TaskNamed(store, c->task_id, "checkpoint", Permission::kViewExperimentArtifacts);
  if (owner) owner->what.id = uuid;
  return owner;
}

std::optional<int64_t> Number(const std::string& text) {
  int64_t n = 0;
  return absl::SimpleAtoi(text, &n) ? std::optional<int64_t>(n) : std::nullopt;
}

// Whether the rest of a route after an experiment's or trial's parameter reads its artifacts.
bool ReadsArtifacts(const std::vector<std::string>& rest) {
  for (const std::string& segment : rest) {
    for (const char* word : {"logs", "checkpoints", "model_def", "context_directory", "preview_gc", "file"}) {
      if (segment.find(word) != std::string::npos) return true;
    }
  }
  return false;
}

// What a collection's parameter names: how to find it, and every permission viewing one of its things
// may need (when the caller holds them all everywhere, nothing is read).
struct Collection {
  std::vector<Permission> views;
  std::function<std::optional<Viewed>(Store&, const std::string& value, bool artifacts)> find;
};

Permission ExperimentView(bool artifacts) {
  return artifacts ? Permission::kViewExperimentArtifacts : Permission::kViewExperimentMetadata;
}

const std::map<std::string, Collection>& Collections() {
  static const auto* collections = [] {
    const std::vector<Permission> experiment_views = {Permission::kViewExperimentMetadata,
                                                      Permission::kViewExperimentArtifacts};
    std::vector<Permission> task_views = experiment_views;
    task_views.push_back(Permission::kViewNsc);
    auto* c = new std::map<std::string, Collection>();
    (*c)["experiments"] = {experiment_views, [](Store& s, const std::string& v, bool artifacts) {
                             std::optional<int64_t> id = Number(v);
                             return id ? ExperimentNamed(s, *id, ExperimentView(artifacts), "experiment", v) : std::nullopt;
                           }};
    (*c)["trials"] = {experiment_views, [](Store& s, const std::string& v, bool artifacts) {
                        std::optional<int64_t> id = Number(v);
                        return id ? TrialNamed(s, *id, ExperimentView(artifacts)) : std::nullopt;
                      }};
    (*c)["checkpoints"] = {task_views, [](Store& s, const std::string& v, bool) { return CheckpointNamed(s, v); }};
    for (std::string plural : {"tasks", "commands", "notebooks", "shells", "tensorboards"}) {
      std::string singular = plural.substr(0, plural.size() - 1);
      (*c)[plural] = {task_views, [singular](Store& s, const std::string& v, bool artifacts) {
                        return TaskNamed(s, v, singular, ExperimentView(artifacts));
                      }};
    }
    // A workspace is its own scope: nothing to read (one that does not exist is as invisible as one
    // that may not be seen).
    (*c)["workspaces"] = {{Permission::kViewWorkspace}, [](Store&, const std::string& v, bool) {
                            std::optional<int64_t> id = Number(v);
                            return id ? std::optional<Viewed>({{"workspace", v, 0, *id}, Permission::kViewWorkspace})
                                      : std::nullopt;
                          }};
    (*c)["projects"] = {{Permission::kViewProject}, [](Store& s, const std::string& v, bool) -> std::optional<Viewed> {
                          std::optional<int64_t> id = Number(v);
                          absl::StatusOr<Project> p = id ? s.GetProject(*id) : absl::NotFoundError(v);
                          if (!p.ok()) return std::nullopt;
                          return Viewed{{"project", v, p->user_id, p->workspace_id}, Permission::kViewProject};
                        }};
    (*c)["models"] = {{Permission::kViewModelRegistry}, [](Store& s, const std::string& v, bool) -> std::optional<Viewed> {
                        absl::StatusOr<Model> m = FindModel(s, v);
                        if (!m.ok()) return std::nullopt;
                        return Viewed{{"model", v, m->user_id, m->workspace_id}, Permission::kViewModelRegistry};
                      }};
    (*c)["templates"] = {{Permission::kViewTemplates}, [](Store& s, const std::string& v, bool) -> std::optional<Viewed> {
                           absl::StatusOr<Template> t = s.GetTemplate(v);
                           if (!t.ok()) return std::nullopt;
                           return Viewed{{"template", v, 0, t->workspace_id}, Permission::kViewTemplates};
                         }};
    return c;
  }();
  return *collections;
}

// Where `who` may view with each of `views` (one read of the rule each); whether that is everywhere for
// all of them, so that nothing needs reading; and whether it takes in `thing`.
class Sight {
 public:
  static absl::StatusOr<Sight> Of(const Principal& who, const std::vector<Permission>& views) {
    Sight sight;
    for (Permission view : views) {
      ASSIGN_OR_RETURN(sight.reach_[view], DefaultAuthz().ReachOf(who, view));
    }
    return sight;
  }

  bool Everywhere() const {
    return absl::c_all_of(reach_, [](const auto& entry) { return entry.second.everywhere; });
  }

  // NotFound "experiment 7 not found" when `thing` lies outside (nullopt: nothing to check).
  absl::Status Check(const std::optional<Viewed>& thing) const {
    if (!thing) return absl::OkStatus();
    auto reach = reach_.find(thing->view);
    const std::optional<int64_t>& workspace = thing->what.workspace_id;
    const bool seen = reach != reach_.end() && (reach->second.everywhere || (workspace && reach->second.Covers(*workspace)));
    return seen ? absl::OkStatus() : absl::NotFoundError(absl::StrCat(thing->what.kind, " ", thing->what.id, " not found"));
  }

 private:
  std::map<Permission, rbac::Reach> reach_;
};

// Whether `who` may view what `find` names (reading it only when `who` does not see every such thing).
absl::Status CheckVisible(const Principal& who, const std::vector<Permission>& views,
                          const std::function<std::optional<Viewed>()>& find) {
  ASSIGN_OR_RETURN(Sight sight, Sight::Of(who, views));
  return sight.Everywhere() ? absl::OkStatus() : sight.Check(find());
}

// Whether `who` is a task naming its own trial or task.
bool IsCallersOwn(TrialFactsCache& trial_facts, const Principal& who, const std::string& collection,
                  const std::string& value) {
  if (who.allocation_id.empty()) return false;
  if (collection == "trials") {
    std::optional<int64_t> id = Number(value);
    return id && trial_facts.TrialReportedBy(*id, who.allocation_id).ok();
  }
  if (collection == "tasks") {
    absl::StatusOr<std::string> task = trial_facts.TaskOfAllocation(who.allocation_id);
    return task.ok() && *task == value;
  }
  return false;
}

bool IsParameter(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

absl::Status CheckPathVisible(Store& store, TrialFactsCache& trial_facts, const HttpRequest& request,
                              const std::string& pattern) {
  const Principal& who = *request.principal;
  std::vector<std::string> segments = absl::StrSplit(pattern, '/', absl::SkipEmpty());
  for (size_t i = 1; i < segments.size(); ++i) {
    if (!IsParameter(segments[i])) continue;
    auto collection = Collections().find(segments[i - 1]);
    auto value = request.path_params.find(segments[i].substr(1, segments[i].size() - 2));
    if (collection == Collections().end() || value == request.path_params.end()) continue;
    if (IsCallersOwn(trial_facts, who, collection->first, value->second)) continue;
    const bool artifacts = segments[i - 1] == "checkpoints" ||
                           ReadsArtifacts({segments.begin() + static_cast<std::ptrdiff_t>(i) + 1, segments.end()});
    std::vector<Permission> views = collection->second.views;
    std::erase(views, ExperimentView(!artifacts));  // this route never needs the other
    RETURN_IF_ERROR(CheckVisible(who, views,
                                 [&] { return collection->second.find(store, value->second, artifacts); }));
  }
  return absl::OkStatus();
}

absl::Status CheckTrialVisible(Store& store, const Principal& who, int64_t trial_id) {
  return CheckVisible(who, {Permission::kViewExperimentMetadata},
                      [&] { return TrialNamed(store, trial_id, Permission::kViewExperimentMetadata); });
}

absl::Status CheckExperimentVisible(Store& store, const Principal& who, int64_t experiment_id, Permission view) {
  return CheckVisible(who, {view},
                      [&] { return ExperimentNamed(store, experiment_id, view, "experiment", std::to_string(experiment_id)); });
}

}  // namespace det::master
