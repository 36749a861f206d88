#include "cli/experiment_continue.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/config_override.h"
#include "cli/experiment_create.h"
#include "cli/session.h"
#include "common/file_util.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::cli {

absl::StatusOr<std::string> ContinueOverrideConfig(const ContinueExperimentArgs& args) {
  if (args.config_file) {
    absl::StatusOr<std::string> text = ReadFile(*args.config_file);
    if (!text.ok()) return absl::NotFoundError(absl::StrCat("cannot read experiment config file ", *args.config_file));
    return ConfigTextWithOverrides(*text, args.overrides, *args.config_file);
  }
  nlohmann::json overrides = nlohmann::json::object();
  for (const std::string& o : args.overrides) RETURN_IF_ERROR(ApplyConfigOverride(overrides, o));
  return ToYaml(overrides);
}

absl::StatusOr<int> ContinueExperiment(Session& session, const ContinueExperimentArgs& args, std::ostream& out) {
  ASSIGN_OR_RETURN(std::string overrides, ContinueOverrideConfig(args));
  ASSIGN_OR_RETURN(nlohmann::json resp, session.Post("/api/v1/experiments/continue",
                                                     {{"id", args.experiment_id}, {"overrideConfig", overrides}}));
  out << "Continued experiment " << args.experiment_id << "\n";
  out.flush();
  PrintLaunchWarnings(resp, std::cerr);
  if (!args.follow) return 0;
  return FollowExperiment(session, args.experiment_id, out, args.live_progress);
}

}  // namespace det::cli
