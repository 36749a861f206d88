#pragma once
// Wire JSON of the stored records, with upstream's conventions (reference §0.2): lowerCamelCase, int64
// as strings, enums by name, unset messages as null.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"
#include "api/types.h"

namespace det::api {

nlohmann::json ToJson(const User& u);
nlohmann::json ToJson(const Experiment& e);  // includes `config` and `originalConfig`
nlohmann::json ToJson(const Trial& t);
nlohmann::json ToJson(const Checkpoint& c);
// `metrics` as upstream's master serves it (its SDK reads these keys): {"validation_metrics": {...}} for
// the validation group, {"avg_metrics": {...}, "batch_metrics": [...]} for every other.
nlohmann::json ToJson(const MetricsReport& m);
// ToJson(m) appended to `out` as text, the stored metrics spliced in as they are when they are a JSON
// object's text (the master writes them so): a stream of a trial's thousands of reports parses and
// dumps none of them.
void AppendJson(std::string& out, const MetricsReport& m);
// The line as upstream's CLI prints it (the logs' `message`):
// "[2024-05-01T12:00:00.000000Z] 0123abcd [rank=1] || ERROR: text\n", the container id cut to 8
// characters (blank when none), the rank when known, and the level for lines not written by the task
// itself (the task's own output has none upstream).
std::string FlatLogMessage(const TaskLog& l);
// A task log line as TrialLogs streams it (`trialId` set) or as TaskLogs streams it (`taskId`).
nlohmann::json TrialLogJson(const TaskLog& l, int64_t trial_id);
nlohmann::json TaskLogJson(const TaskLog& l);

// "ACTIVE" -> "STATE_ACTIVE"; the string form is for checkpoint and display-only states.
std::string StateEnumName(const std::string& state);
std::string StateEnumName(ExperimentState state);
std::string StateEnumName(TrialState state);
// Parses an input TaskLog (PostTaskLogs); both field spellings accepted.
absl::StatusOr<TaskLog> TaskLogFromJson(const nlohmann::json& j);

}  // namespace det::api
