#pragma once
// Printing of trial/task log entries (`TrialLogsResponse` / `TaskLogsResponse` objects).
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace det::cli {

// The text upstream's CLI prints for one entry: its `message` (already formatted by the master and
// '\n'-terminated), or its raw `log` when there is no message. A missing final newline is added so
// entries never run together.
std::string LogEntryText(const nlohmann::json& entry);

}  // namespace det::cli
