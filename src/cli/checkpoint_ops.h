#pragma once
// `det checkpoint list | describe | download | delete`.
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cli/experiment_view.h"

namespace det::cli {

class Session;

// The experiment's checkpoints: UUID, Trial ID, Steps, State, Report Time, Size, Location; or the
// master's JSON with kJson.
absl::StatusOr<int> ListCheckpoints(Session& session, int experiment_id, OutputFormat format,
                                    std::ostream& out);

// `det experiment list-checkpoints ID [--best N]`: the experiment's checkpoints by report time, or
// with `best` its N best by the searcher metric (N >= 1), in upstream's columns; or the master's JSON.
absl::StatusOr<int> ListExperimentCheckpoints(Session& session, int experiment_id, std::optional<int> best,
                                              OutputFormat format, std::ostream& out);

// One checkpoint: its fields one per line, or the master's JSON with `json`.
absl::StatusOr<int> DescribeCheckpoint(Session& session, const std::string& uuid, bool json,
                                       std::ostream& out);

// Copies the checkpoint's files from its experiment's storage to `output_dir` (default
// checkpoints/UUID) and prints "Local checkpoint path: DIR". shared_fs and directory storage are
// read as files on this machine; s3 is downloaded (credentials the experiment config lacks come
// from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY); other types are FailedPrecondition naming the
// storage and location.
absl::StatusOr<int> DownloadCheckpoint(Session& session, const std::string& uuid,
                                       std::string output_dir, std::ostream& out);

// Asks the master to delete the comma-separated checkpoints from storage (DELETE /api/v1/checkpoints)
// and prints "Deletion of checkpoints UUIDS is in progress"; the master deletes them in the background.
absl::StatusOr<int> DeleteCheckpoints(Session& session, const std::string& comma_separated_uuids,
                                      std::ostream& out);

}  // namespace det::cli
