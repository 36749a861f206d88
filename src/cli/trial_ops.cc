#include "cli/trial_ops.h"

#include "cli/trial_view.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "cli/log_printer.h"
#include "cli/paging.h"
#include "cli/session.h"
#include "client/rest_client.h"
#include "common/status_macros.h"

namespace det::cli {
namespace {

constexpr const char* kLevels[] = {"TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};

}  // namespace

absl::StatusOr<std::string> TrialLogsPath(int trial_id, const TrialLogsArgs& args) {
  return LogsPath(absl::StrCat("/api/v1/trials/", trial_id, "/logs"), args);
}

absl::StatusOr<std::string> LogsPath(std::string path, const TrialLogsArgs& args) {
  int exclusive =
      (args.follow ? 1 : 0) + (args.head.has_value() ? 1 : 0) + (args.tail.has_value() ? 1 : 0);
  if (exclusive > 1) {
    return absl::InvalidArgumentError("at most one of --head, --tail, or --follow may be set");
  }
  if (args.follow) path = AddQuery(path, "follow", "true");
  if (args.head.has_value()) path = AddQuery(path, "limit", std::to_string(*args.head));
  if (args.tail.has_value()) {
    path = AddQuery(path, "limit", std::to_string(*args.tail));
    path = AddQuery(path, "orderBy", "ORDER_BY_DESC");
  }
  for (const auto& v : args.agent_ids) path = AddQuery(path, "agentIds", v);
  for (const auto& v : args.container_ids) path = AddQuery(path, "containerIds", v);
  for (int v : args.rank_ids) path = AddQuery(path, "rankIds", std::to_string(v));
  for (const auto& v : args.sources) path = AddQuery(path, "sources", v);
  for (const auto& v : args.stdtypes) path = AddQuery(path, "stdtypes", v);
  if (!args.level.empty()) {
    auto it = std::find(std::begin(kLevels), std::end(kLevels), args.level);
    if (it == std::end(kLevels)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--level must be one of TRACE, DEBUG, INFO, WARNING, ERROR, CRITICAL; got '",
                       args.level, "'"));
    }
    for (; it != std::end(kLevels); ++it)
      path = AddQuery(path, "levels", absl::StrCat("LOG_LEVEL_", *it));
  }
  if (!args.timestamp_before.empty())
    path = AddQuery(path, "timestampBefore", args.timestamp_before);
  if (!args.timestamp_after.empty()) path = AddQuery(path, "timestampAfter", args.timestamp_after);
  return path;
}

namespace {

std::string EntryText(const nlohmann::json& entry, bool json) {
  return json ? entry.dump() + "\n" : LogEntryText(entry);
}

// The last `n` entries, oldest first: the master answers `limit=n&orderBy=ORDER_BY_DESC` newest first.
absl::Status CollectTail(Session& session, const std::string& tail_path, bool json,
                         std::vector<std::string>* lines) {
  absl::Status s = session.Stream(tail_path, [&](const nlohmann::json& entry) {
    lines->push_back(EntryText(entry, json));
    return true;
  });
  std::reverse(lines->begin(), lines->end());
  return s;
}

}  // namespace

absl::StatusOr<int> PrintTrialLogs(Session& session, int trial_id, const TrialLogsArgs& args,
                                   std::ostream& out) {
  absl::StatusOr<std::string> path = TrialLogsPath(trial_id, args);
  if (!path.ok()) return path.status();
  return PrintLogs(session, *path, args, absl::StrCat("Trial log stream ended. To reopen log stream, run: det trial logs -f ", trial_id), out);
}

absl::StatusOr<int> PrintTaskLogs(Session& session, const std::string& task_id,
                                  const TrialLogsArgs& args, std::ostream& out) {
  absl::StatusOr<std::string> path =
      LogsPath(absl::StrCat("/api/v1/tasks/", client::UrlEncode(task_id), "/logs"), args);
  if (!path.ok()) return path.status();
  return PrintLogs(session, *path, args, absl::StrCat("Task log stream ended. To reopen log stream, run: det task logs -f ", task_id), out);
}

absl::StatusOr<int> PrintLogs(Session& session, const std::string& path, const TrialLogsArgs& args,
                              const std::string& ended, std::ostream& out) {
  absl::Status s;
  if (args.tail.has_value()) {
    std::vector<std::string> lines;
    s = CollectTail(session, path, args.json, &lines);
    for (const std::string& line : lines) out << line;
  } else {
    s = session.Stream(path, [&](const nlohmann::json& entry) {
      out << EntryText(entry, args.json);
      out.flush();
      return true;
    });
  }
  out.flush();
  if (!s.ok()) return s;
  std::cerr << ended << "\n";
  return 0;
}

absl::StatusOr<int> FirstTrialId(Session& session, int experiment_id) {
  absl::StatusOr<nlohmann::json> resp =
      session.Get(absl::StrCat("/api/v1/experiments/", experiment_id, "/trials"));
  if (!resp.ok()) return resp.status();
  int64_t best = -1;
  if (auto it = resp->find("trials"); it != resp->end() && it->is_array()) {
    for (const auto& t : *it) {
      if (!t.contains("id")) continue;
      absl::StatusOr<int64_t> id = api::ReadInt64(t["id"], "trial.id");
      if (id.ok() && (best < 0 || *id < best)) best = *id;
    }
  }
  if (best < 0) {
    return absl::NotFoundError(absl::StrCat("experiment ", experiment_id, " has no trials yet"));
  }
  return static_cast<int>(best);
}

absl::StatusOr<int> DescribeTrial(Session& session, const DescribeTrialArgs& args, std::ostream& out) {
  if (args.limit < 1) return absl::InvalidArgumentError("--limit must be at least 1");
  if (args.offset < 0) return absl::InvalidArgumentError("--offset must be 0 or more");
  if (args.pages < 0) return absl::InvalidArgumentError("--pages must be 0 (all) or more");
  std::string path = absl::StrCat("/api/v1/trials/", args.trial_id);
  ASSIGN_OR_RETURN(nlohmann::json got, session.Get(path));
  nlohmann::json trial = got.value("trial", nlohmann::json::object());
  std::string workloads_path = path + "/workloads";
  if (args.metrics) workloads_path = AddQuery(workloads_path, "includeBatchMetrics", "true");
  ASSIGN_OR_RETURN(nlohmann::json workloads, GetAllPages(session, workloads_path, "workloads",
                                                         args.offset, args.limit, args.pages));
  if (args.json) {
    out << nlohmann::json{{"trial", trial}, {"workloads", workloads}}.dump(2) << "\n";
    return 0;
  }
  out << RenderTrialDescription(trial, workloads, args.metrics,
                                args.csv ? OutputFormat::kCsv : OutputFormat::kTable);
  if (args.metrics_summary) {
    out << "\nSummary metrics:\n" << trial.value("summaryMetrics", nlohmann::json::object()).dump(4) << "\n";
  }
  return 0;
}

}  // namespace det::cli
