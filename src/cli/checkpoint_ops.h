#pragma once
// `det checkpoint list | describe | download | delete | rm`.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/best_checkpoints.h"
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
// checkpoints/UUID) and prints "Local checkpoint path: DIR" (with `quiet`, DIR alone). shared_fs and directory storage are
// read as files on this machine; s3 is downloaded (credentials the experiment config lacks come
// from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY); other types are FailedPrecondition naming the
// storage and location.
absl::StatusOr<int> DownloadCheckpoint(Session& session, const std::string& uuid,
                                       std::string output_dir, bool quiet, std::ostream& out);

// `det experiment download ID [--top-n N] [--sort-by M --smaller-is-better B] [-o DIR] [-q]`: the best
// completed checkpoint of each of the experiment's `top_n` best trials, each to DIR/UUID. NotFound
// when no checkpoint has the metric.
absl::StatusOr<int> DownloadExperimentCheckpoints(Session& session, int experiment_id, int top_n,
                                                  const CheckpointRanking& ranking, const std::string& output_dir,
                                                  bool quiet, std::ostream& out);

// `det trial download ID --best|--latest|--uuid UUID [-o DIR] [-q]`: the trial's best completed
// checkpoint by `ranking`, its latest one, or the one named (which must be the trial's), to DIR
// (default checkpoints/UUID).
struct TrialCheckpointChoice {
  bool best = false;
  bool latest = false;
  std::string uuid;
};
absl::StatusOr<int> DownloadTrialCheckpoint(Session& session, int trial_id, const TrialCheckpointChoice& choice,
                                            const CheckpointRanking& ranking, const std::string& output_dir,
                                            bool quiet, std::ostream& out);

// Asks the master to delete the comma-separated checkpoints from storage (DELETE /api/v1/checkpoints)
// and prints "Deletion of checkpoints UUIDS is in progress"; the master deletes them in the background.
absl::StatusOr<int> DeleteCheckpoints(Session& session, const std::string& comma_separated_uuids,
                                      std::ostream& out);

// Asks the master to remove the files `globs` name from the comma-separated checkpoints (POST
// /api/v1/checkpoints/rm) and says the removal is in progress; the master removes them in the background.
absl::StatusOr<int> RemoveCheckpointFiles(Session& session, const std::string& comma_separated_uuids,
                                          const std::vector<std::string>& globs, std::ostream& out);

}  // namespace det::cli
