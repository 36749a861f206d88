#include "cli/checkpoint_ops.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/wire.h"
#include "cli/checkpoint_location.h"
#include "cli/format.h"
#include "cli/session.h"
#include "client/rest_client.h"
#include "common/status_macros.h"
#include "storage/storage_manager.h"

namespace det::cli {
namespace {

using nlohmann::json;

absl::StatusOr<json> GetCheckpoint(Session& session, const std::string& uuid) {
  absl::StatusOr<json> got =
      session.Get(absl::StrCat("/api/v1/checkpoints/", client::UrlEncode(uuid)));
  if (!got.ok()) return got.status();
  return got->value("checkpoint", json::object());
}

// The checkpoint's experiment's effective checkpoint_storage.
absl::StatusOr<json> StorageOf(Session& session, const json& checkpoint) {
  absl::StatusOr<int64_t> experiment_id =
      api::ReadInt64(Field(Field(checkpoint, "training"), "experimentId"), "training.experimentId");
  if (!experiment_id.ok()) return experiment_id.status();
  absl::StatusOr<json> experiment =
      session.Get(absl::StrCat("/api/v1/experiments/", *experiment_id));
  if (!experiment.ok()) return experiment.status();
  return CheckpointStorageOf(*experiment);
}

}  // namespace

absl::StatusOr<int> ListCheckpoints(Session& session, int experiment_id, OutputFormat format,
                                    std::ostream& out) {
  absl::StatusOr<json> experiment = session.Get(absl::StrCat("/api/v1/experiments/", experiment_id));
  if (!experiment.ok()) return experiment.status();
  absl::StatusOr<json> listed =
      session.Get(absl::StrCat("/api/v1/experiments/", experiment_id, "/checkpoints"));
  if (!listed.ok()) return listed.status();
  const json& checkpoints = Field(*listed, "checkpoints");
  if (format == OutputFormat::kJson) {
    out << checkpoints.dump(2) << "\n";
    return 0;
  }
  out << Render(CheckpointsTable(checkpoints, CheckpointStorageOf(*experiment)), format);
  return 0;
}

absl::StatusOr<int> ListExperimentCheckpoints(Session& session, int experiment_id, std::optional<int> best,
                                              OutputFormat format, std::ostream& out) {
  absl::StatusOr<json> experiment = session.Get(absl::StrCat("/api/v1/experiments/", experiment_id));
  if (!experiment.ok()) return experiment.status();
  std::string query = best ? absl::StrCat("?sortByAttr=SORT_BY_SEARCHER_METRIC&limit=", *best)
                           : std::string("?sortByAttr=SORT_BY_END_TIME");
  absl::StatusOr<json> listed =
      session.Get(absl::StrCat("/api/v1/experiments/", experiment_id, "/checkpoints", query));
  if (!listed.ok()) return listed.status();
  const json& checkpoints = Field(*listed, "checkpoints");
  if (format == OutputFormat::kJson) {
    out << checkpoints.dump(2) << "\n";
    return 0;
  }
  out << Render(ExperimentCheckpointsTable(checkpoints, SearcherMetricOf(*experiment)), format);
  return 0;
}

absl::StatusOr<int> DescribeCheckpoint(Session& session, const std::string& uuid, bool json_out,
                                       std::ostream& out) {
  absl::StatusOr<json> checkpoint = GetCheckpoint(session, uuid);
  if (!checkpoint.ok()) return checkpoint.status();
  if (json_out) {
    out << checkpoint->dump(2) << "\n";
    return 0;
  }
  absl::StatusOr<json> storage = StorageOf(session, *checkpoint);
  const json& training = Field(*checkpoint, "training");
  Table t({"Field", "Value"});
  t.AddRow({"UUID", Str(*checkpoint, "uuid")});
  t.AddRow({"Experiment ID", Field(training, "experimentId").dump()});
  t.AddRow({"Trial ID", Field(training, "trialId").dump()});
  t.AddRow({"State", StripStatePrefix(Str(*checkpoint, "state"))});
  t.AddRow({"Report Time", FormatTime(Field(*checkpoint, "reportTime"))});
  t.AddRow({"Steps", Field(Field(*checkpoint, "metadata"), "steps_completed").dump()});
  t.AddRow({"Size", FormatBytes(CheckpointBytes(*checkpoint))});
  t.AddRow({"Files", std::to_string(Field(*checkpoint, "resources").size())});
  t.AddRow({"Location", storage.ok() ? CheckpointLocation(*storage, uuid) : ""});
  t.AddRow({"Metadata", Field(*checkpoint, "metadata").dump()});
  // Which model versions hold it (a route of ours: a master without it shows no row).
  if (absl::StatusOr<json> held = session.Get(absl::StrCat("/api/v1/checkpoints/", uuid, "/model-versions"));
      held.ok()) {
    std::vector<std::string> versions;
    for (const json& v : Field(*held, "modelVersions")) {
      versions.push_back(absl::StrCat(Str(v, "modelName"), " version ", Cell(Field(v, "version"))));
    }
    t.AddRow({"Model Versions", versions.empty() ? "none" : absl::StrJoin(versions, ", ")});
  }
  out << t.Render();
  return 0;
}

absl::StatusOr<int> DownloadCheckpoint(Session& session, const std::string& uuid,
                                       std::string output_dir, bool quiet, std::ostream& out) {
  absl::StatusOr<json> checkpoint = GetCheckpoint(session, uuid);
  if (!checkpoint.ok()) return checkpoint.status();
  if (std::string state = StripStatePrefix(Str(*checkpoint, "state")); state == "DELETED") {
    return absl::FailedPreconditionError(absl::StrCat(
        "checkpoint ", uuid, " was deleted from checkpoint storage (state DELETED): its experiment's "
        "checkpoint_storage policy (save_experiment_best, save_trial_best, save_trial_latest) did not keep it"));
  }
  absl::StatusOr<json> storage = StorageOf(session, *checkpoint);
  if (!storage.ok()) return storage.status();
  std::string location = CheckpointLocation(*storage, uuid);
  // s3 credentials the experiment config lacks come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY.
  absl::StatusOr<std::unique_ptr<storage::StorageManager>> manager =
      storage::MakeStorageManager(*storage);
  if (!manager.ok()) {
    return absl::Status(manager.status().code(),
                        absl::StrCat("checkpoint ", uuid, location.empty() ? "" : absl::StrCat(" (", location, ")"),
                                     ": det cannot read its storage: ", manager.status().message()));
  }
  if (output_dir.empty()) output_dir = (std::filesystem::path("checkpoints") / uuid).string();
  if (absl::Status st = (*manager)->DownloadTo(uuid, output_dir); !st.ok()) return st;
  std::error_code ec;
  // Every file the checkpoint reported must have arrived.
  for (const auto& [path, size] : Field(*checkpoint, "resources").items()) {
    if (!path.empty() && path.back() == '/') continue;  // a directory entry
    if (!std::filesystem::exists(std::filesystem::path(output_dir) / path, ec)) {
      return absl::DataLossError(
          absl::StrCat("checkpoint ", uuid, ": ", path, " is missing from ", location));
    }
  }
  out << (quiet ? "" : "Local checkpoint path: ") << output_dir << "\n";
  return 0;
}

absl::StatusOr<int> DownloadExperimentCheckpoints(Session& session, int experiment_id, int top_n,
                                                  const CheckpointRanking& ranking, const std::string& output_dir,
                                                  bool quiet, std::ostream& out) {
  ASSIGN_OR_RETURN(std::string query, BestFirstQuery(ranking));
  ASSIGN_OR_RETURN(json listed, session.Get(absl::StrCat("/api/v1/experiments/", experiment_id, "/checkpoints", query)));
  std::vector<std::string> uuids = BestOfTopTrials(Field(listed, "checkpoints"), ranking, top_n);
  if (uuids.empty()) {
    return absl::NotFoundError(absl::StrCat("experiment ", experiment_id, " has no completed checkpoint with ",
                                            ranking.sort_by.empty() ? "its searcher metric" : ranking.sort_by,
                                            " at its step"));
  }
  for (const std::string& uuid : uuids) {
    RETURN_IF_ERROR(
        DownloadCheckpoint(session, uuid, (std::filesystem::path(output_dir) / uuid).string(), quiet, out).status());
  }
  return 0;
}

absl::StatusOr<int> DownloadTrialCheckpoint(Session& session, int trial_id, const TrialCheckpointChoice& choice,
                                            const CheckpointRanking& ranking, const std::string& output_dir,
                                            bool quiet, std::ostream& out) {
  std::string uuid = choice.uuid;
  if (uuid.empty()) {
    std::string query = "?sortByAttr=SORT_BY_END_TIME&orderBy=ORDER_BY_DESC&states=STATE_COMPLETED";
    if (!choice.latest) {
      ASSIGN_OR_RETURN(query, BestFirstQuery(ranking));
    }
    ASSIGN_OR_RETURN(json listed, session.Get(absl::StrCat("/api/v1/trials/", trial_id, "/checkpoints", query)));
    const json& checkpoints = Field(listed, "checkpoints");
    std::vector<std::string> found;
    if (!choice.latest) {
      found = BestOfTopTrials(checkpoints, ranking, 1);
    } else if (checkpoints.is_array() && !checkpoints.empty()) {
      found.push_back(Str(checkpoints.front(), "uuid"));
    }
    if (found.empty()) {
      return absl::NotFoundError(absl::StrCat("trial ", trial_id, " has no completed checkpoint",
                                              choice.latest ? "" : " with a validation of the metric at its step"));
    }
    uuid = found.front();
  } else {
    ASSIGN_OR_RETURN(json checkpoint, GetCheckpoint(session, uuid));
    const json& owner = Field(Field(checkpoint, "training"), "trialId");
    if (absl::StatusOr<int64_t> id = api::ReadInt64(owner, "training.trialId"); !id.ok() || *id != trial_id) {
      return absl::InvalidArgumentError(
          absl::StrCat("--uuid ", uuid, " is a checkpoint of trial ", owner.dump(), ", not of trial ", trial_id));
    }
  }
  return DownloadCheckpoint(session, uuid, output_dir, quiet, out);
}

namespace {

absl::StatusOr<std::vector<std::string>> SplitUuids(const std::string& comma_separated_uuids) {
  std::vector<std::string> uuids = absl::StrSplit(comma_separated_uuids, ',', absl::SkipWhitespace());
  for (std::string& uuid : uuids) uuid = std::string(absl::StripAsciiWhitespace(uuid));
  if (uuids.empty()) return absl::InvalidArgumentError("checkpoints_uuids: name at least one checkpoint UUID");
  return uuids;
}

}  // namespace

absl::StatusOr<int> DeleteCheckpoints(Session& session, const std::string& comma_separated_uuids,
                                      std::ostream& out) {
  ASSIGN_OR_RETURN(std::vector<std::string> uuids, SplitUuids(comma_separated_uuids));
  RETURN_IF_ERROR(session.Delete("/api/v1/checkpoints", {{"checkpointUuids", uuids}}).status());
  out << "Deletion of checkpoints " << comma_separated_uuids << " is in progress\n";
  return 0;
}

absl::StatusOr<int> RemoveCheckpointFiles(Session& session, const std::string& comma_separated_uuids,
                                          const std::vector<std::string>& globs, std::ostream& out) {
  ASSIGN_OR_RETURN(std::vector<std::string> uuids, SplitUuids(comma_separated_uuids));
  RETURN_IF_ERROR(
      session.Post("/api/v1/checkpoints/rm", {{"checkpointUuids", uuids}, {"checkpointGlobs", globs}}).status());
  out << "Removal of files matching " << absl::StrJoin(globs, ", ") << " from checkpoints " << comma_separated_uuids
      << " is in progress\n";
  return 0;
}

}  // namespace det::cli
