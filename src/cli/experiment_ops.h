#pragma once
// `det experiment` commands other than create. Each returns the process exit code, or an error for
// main() to print as "Error: <message>". Output goes to `out`.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "api/experiment_states.h"
#include "cli/experiment_view.h"

namespace det::cli {

class Session;

struct ListExperimentsArgs {
  bool all = false;  // include archived experiments and other users'
  int limit = 200;   // page size
  int offset = 0;
  int pages = 1;  // 0 = all
  OutputFormat format = OutputFormat::kTable;
};
absl::StatusOr<int> ListExperiments(Session& session, const ListExperimentsArgs& args,
                                    std::ostream& out);

// `ids` is one ID or a comma-separated list, as upstream accepts.
absl::StatusOr<int> DescribeExperiments(Session& session, const std::string& ids,
                                        OutputFormat format, std::ostream& out);

// Polls every `poll_seconds` until the experiment is terminal (api::IsTerminal: the deletion states
// included); prints the final state and returns 0 iff it COMPLETED.
absl::StatusOr<int> WaitForExperiment(Session& session, int experiment_id, double poll_seconds,
                                      std::ostream& out);

// activate | pause | cancel | kill | archive | unarchive: POST /api/v1/experiments/{id}/{verb}.
absl::StatusOr<int> ExperimentAction(Session& session, int experiment_id, const std::string& verb,
                                     std::ostream& out);
absl::StatusOr<int> DeleteExperiment(Session& session, int experiment_id, std::ostream& out);
// `det experiment delete-tb-files ID`: asks the master to delete the experiment's TensorBoard files from
// its checkpoint storage (in the background) and says so.
absl::StatusOr<int> DeleteTensorboardFiles(Session& session, int experiment_id, std::ostream& out);
// Prints the experiment's (defaulted) config as YAML.
absl::StatusOr<int> PrintExperimentConfig(Session& session, int experiment_id, std::ostream& out);
// `det experiment download-code`: the experiment's context as OUTPUT_DIR/experiment_ID_model_def.tgz
// (upstream's file name); OUTPUT_DIR defaults to the current directory.
absl::StatusOr<int> DownloadExperimentCode(Session& session, int experiment_id, const std::string& output_dir,
                                           std::ostream& out);
absl::StatusOr<int> ListExperimentTrials(Session& session, int experiment_id, OutputFormat format,
                                         std::ostream& out);

// `det experiment set description|name ID VALUE`: PATCH /api/v1/experiments/{id} with `field`
// ("description" or "name"); prints "Set <field> of experiment ID to 'VALUE'".
absl::StatusOr<int> SetExperimentField(Session& session, int experiment_id, const std::string& field,
                                       const std::string& value, std::ostream& out);
// `det experiment|trial set log-retention ID --days N | --forever`: how many days the logs of the
// experiment's trials, or of the trial, are kept after they end (-1 with `forever`); prints "Set log
// retention of experiment ID to N days" (or "to forever").
enum class LogRetentionOf { kExperiment, kTrial };
absl::StatusOr<int> SetLogRetention(Session& session, LogRetentionOf of, int id, std::optional<int> days,
                                    bool forever, std::ostream& out);
// `det experiment label add|remove ID LABEL`: reads the labels and PATCHes the new list, as
// upstream's CLI does; prints "Added label 'L' to experiment ID" / "Removed label 'L' from ...".
absl::StatusOr<int> EditExperimentLabel(Session& session, int experiment_id, const std::string& label,
                                        bool add, std::ostream& out);

// The experiment's state, read from GetExperiment's "STATE_X". What names no experiment state (the
// display-only RUNNING, QUEUED, ... of an active experiment, or a newer master's state) reads as
// ACTIVE: the experiment has not ended.
absl::StatusOr<api::ExperimentState> FetchExperimentState(Session& session, int experiment_id);

// How a wait for an ended experiment finishes: prints "Experiment ID terminated with state X" and
// returns the exit code, 0 iff it COMPLETED.
int ReportExperimentEnd(int experiment_id, api::ExperimentState state, std::ostream& out);

}  // namespace det::cli
