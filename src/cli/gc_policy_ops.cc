#include "cli/gc_policy_ops.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/experiment_view.h"
#include "cli/format.h"
#include "cli/session.h"
#include "cli/table.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

// "3 files, 1.2 KB" from a checkpoint's {path: size} resources.
std::string ResourcesCell(const json& resources) {
  if (!resources.is_object() || resources.empty()) return "no files";
  return absl::StrCat(resources.size(), resources.size() == 1 ? " file, " : " files, ",
                      FormatBytes(ResourcesBytes(resources)));
}

absl::Status PrintPreview(Session& session, int experiment_id, const GcPolicy& policy, std::ostream& out) {
  ASSIGN_OR_RETURN(json preview,
                   session.Get(absl::StrCat("/experiments/", experiment_id,
                                            "/preview_gc?save_experiment_best=", policy.save_experiment_best,
                                            "&save_trial_best=", policy.save_trial_best,
                                            "&save_trial_latest=", policy.save_trial_latest)));
  std::string metric = Str(preview, "metric_name");
  const json& checkpoints = preview.value("checkpoints", json::array());
  if (checkpoints.empty()) {
    out << "This policy deletes none of the experiment's checkpoints.\n";
    return absl::OkStatus();
  }
  Table table({"Trial ID", "# of Batches", "State", absl::StrCat("Validation Metric (", metric, ")"), "UUID",
               "Resources"});
  for (const json& c : checkpoints) {
    const json& validation = c.value("ValidationMetrics", json());
    table.AddRow({Cell(c.value("TrialID", json())), Cell(c.value("StepsCompleted", json())),
                  StripStatePrefix(Str(c, "State")),
                  validation.is_object() ? Cell(validation.value(metric, json())) : "", Str(c, "UUID"),
                  ResourcesCell(c.value("Resources", json()))});
  }
  out << "This policy deletes the following checkpoints:\n" << table.Render();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> SetGcPolicy(Session& session, int experiment_id, const GcPolicy& policy, bool yes,
                                const std::function<bool(const std::string& question)>& confirm,
                                std::ostream& out) {
  if (!yes) {
    RETURN_IF_ERROR(PrintPreview(session, experiment_id, policy, out));
    if (!confirm("Do you wish to proceed?")) {
      out << "Aborting operations.\n";
      return 0;
    }
  }
  json storage = {{"saveExperimentBest", policy.save_experiment_best},
                  {"saveTrialBest", policy.save_trial_best},
                  {"saveTrialLatest", policy.save_trial_latest}};
  RETURN_IF_ERROR(session
                      .Patch(absl::StrCat("/api/v1/experiments/", experiment_id),
                             {{"id", experiment_id}, {"checkpointStorage", storage}})
                      .status());
  // As upstream prints the policy (Python's pformat of the dict).
  out << "Set GC policy of experiment " << experiment_id << " to\n{'save_experiment_best': "
      << policy.save_experiment_best << ", 'save_trial_best': " << policy.save_trial_best
      << ", 'save_trial_latest': " << policy.save_trial_latest << "}\n";
  return 0;
}

}  // namespace det::cli
