#include "cli/trial_support_bundle.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/log_printer.h"
#include "cli/master_ops.h"
#include "cli/session.h"
#include "common/archive.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

using nlohmann::json;

// Every result of an NDJSON stream, each turned into text by `line`.
absl::StatusOr<std::string> StreamedText(Session& session, const std::string& path,
                                         std::string (*line)(const json&)) {
  std::string text;
  absl::Status s = session.Stream(path, [&](const json& result) {
    text += line(result);
    return true;
  });
  if (!s.ok()) return s;
  return text;
}

}  // namespace

std::string SupportBundleName(int trial_id, absl::Time now) {
  return absl::StrCat("det-bundle-trial-", trial_id, "-",
                      absl::FormatTime("%Y%m%dT%H%M%S", now, absl::LocalTimeZone()));
}

absl::StatusOr<std::filesystem::path> WriteTrialSupportBundle(Session& session, int trial_id,
                                                              const std::filesystem::path& output_dir,
                                                              absl::Time now) {
  std::error_code ec;
  if (!std::filesystem::is_directory(output_dir, ec)) {
    return absl::NotFoundError(absl::StrCat("--output-dir ", output_dir.string(), " is not a directory"));
  }
  ASSIGN_OR_RETURN(json trial, session.Get(absl::StrCat("/api/v1/trials/", trial_id)));
  int64_t experiment_id = trial.value("trial", json::object()).value("experimentId", int64_t{0});
  ASSIGN_OR_RETURN(json experiment, session.Get(absl::StrCat("/api/v1/experiments/", experiment_id)));
  ASSIGN_OR_RETURN(std::string trial_logs,
                   StreamedText(session, absl::StrCat("/api/v1/trials/", trial_id, "/logs"), LogEntryText));
  ASSIGN_OR_RETURN(std::string master_logs, StreamedText(session, "/api/v1/master/logs", MasterLogLine));

  std::string name = SupportBundleName(trial_id, now);
  int64_t mtime = absl::ToUnixSeconds(now);
  std::vector<ArchiveEntry> entries = {
      {name, "", /*is_directory=*/true, 0755, mtime},
      {name + "/trial_logs.txt", std::move(trial_logs), false, 0644, mtime},
      {name + "/master_logs.txt", std::move(master_logs), false, 0644, mtime},
      {name + "/api_trial_call.json", trial.value("trial", json::object()).dump(), false, 0644, mtime},
      {name + "/api_experiment_call.json", experiment.dump(), false, 0644, mtime},
  };
  ASSIGN_OR_RETURN(std::string tgz, CreateTarGz(entries));
  std::filesystem::path path = output_dir / (name + ".tar.gz");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << tgz;
  file.close();
  if (!file) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return path;
}

}  // namespace det::cli
