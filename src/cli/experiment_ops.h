#pragma once
// `det experiment` commands other than create. Each returns the process exit code, or an error for
// main() to print as "Error: <message>". Output goes to `out`.
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"

namespace det::cli {

class Session;

// COMPLETED, CANCELED, ERROR, and the deletion states (the experiment is gone or going).
bool IsTerminalExperimentState(std::string_view state);  // with or without "STATE_"

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

// Polls every `poll_seconds` until the experiment is terminal; prints the final state and returns
// 0 iff it COMPLETED.
absl::StatusOr<int> WaitForExperiment(Session& session, int experiment_id, double poll_seconds,
                                      std::ostream& out);

// activate | pause | cancel | kill | archive | unarchive: POST /api/v1/experiments/{id}/{verb}.
absl::StatusOr<int> ExperimentAction(Session& session, int experiment_id, const std::string& verb,
                                     std::ostream& out);
absl::StatusOr<int> DeleteExperiment(Session& session, int experiment_id, std::ostream& out);
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
// `det experiment label add|remove ID LABEL`: reads the labels and PATCHes the new list, as
// upstream's CLI does; prints "Added label 'L' to experiment ID" / "Removed label 'L' from ...".
absl::StatusOr<int> EditExperimentLabel(Session& session, int experiment_id, const std::string& label,
                                        bool add, std::ostream& out);

// The experiment's state without the "STATE_" prefix.
absl::StatusOr<std::string> ExperimentState(Session& session, int experiment_id);

}  // namespace det::cli
