#include "cli/trial_ops.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "cli/log_printer.h"
#include "cli/paging.h"
#include "cli/session.h"

namespace det::cli {
namespace {

constexpr const char* kLevels[] = {"TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};

}  // namespace

absl::StatusOr<std::string> TrialLogsPath(int trial_id, const TrialLogsArgs& args) {
  int exclusive =
      (args.follow ? 1 : 0) + (args.head.has_value() ? 1 : 0) + (args.tail.has_value() ? 1 : 0);
  if (exclusive > 1) {
    return absl::InvalidArgumentError("at most one of --head, --tail, or --follow may be set");
  }
  std::string path = absl::StrCat("/api/v1/trials/", trial_id, "/logs");
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

struct LogLine {
  int64_t id = -1;  // -1 when the entry has no usable ID
  std::string text;
};

absl::Status Collect(Session& session, const std::string& path, std::vector<LogLine>* lines) {
  return session.Stream(path, [&](const nlohmann::json& entry) {
    LogLine line;
    if (auto it = entry.find("id"); it != entry.end()) {
      absl::StatusOr<int64_t> parsed = api::ReadInt64(*it, "id");
      if (parsed.ok()) line.id = *parsed;
    }
    line.text = LogEntryText(entry);
    lines->push_back(std::move(line));
    return true;
  });
}

bool AllHaveIds(const std::vector<LogLine>& lines) {
  return std::all_of(lines.begin(), lines.end(), [](const LogLine& l) { return l.id >= 0; });
}

// The last `n` entries, oldest first. Upstream asks for `limit=n&orderBy=ORDER_BY_DESC`; if the
// master answers oldest first instead (it ignored orderBy), the whole log is read and cut here.
absl::Status CollectTail(Session& session, int trial_id, const TrialLogsArgs& args,
                         const std::string& tail_path, std::vector<LogLine>* lines) {
  if (absl::Status s = Collect(session, tail_path, lines); !s.ok()) return s;
  const size_t n = static_cast<size_t>(*args.tail);
  if (AllHaveIds(*lines) && lines->size() >= 2 &&
      std::is_sorted(lines->begin(), lines->end(),
                     [](const LogLine& a, const LogLine& b) { return a.id < b.id; })) {
    TrialLogsArgs all = args;
    all.tail.reset();
    absl::StatusOr<std::string> path = TrialLogsPath(trial_id, all);
    if (!path.ok()) return path.status();
    lines->clear();
    if (absl::Status s = Collect(session, *path, lines); !s.ok()) return s;
    if (lines->size() > n) lines->erase(lines->begin(), lines->end() - static_cast<ptrdiff_t>(n));
    return absl::OkStatus();
  }
  if (AllHaveIds(*lines)) {
    std::stable_sort(lines->begin(), lines->end(),
                     [](const LogLine& a, const LogLine& b) { return a.id < b.id; });
  } else {
    std::reverse(lines->begin(), lines->end());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> PrintTrialLogs(Session& session, int trial_id, const TrialLogsArgs& args,
                                   std::ostream& out) {
  absl::StatusOr<std::string> path = TrialLogsPath(trial_id, args);
  if (!path.ok()) return path.status();
  absl::Status s;
  if (args.tail.has_value()) {
    std::vector<LogLine> lines;
    s = CollectTail(session, trial_id, args, *path, &lines);
    for (const LogLine& line : lines) out << line.text;
  } else {
    s = session.Stream(*path, [&](const nlohmann::json& entry) {
      out << LogEntryText(entry);
      out.flush();
      return true;
    });
  }
  out.flush();
  if (!s.ok()) return s;
  std::cerr << "Trial log stream ended. To reopen log stream, run: det trial logs -f " << trial_id
            << "\n";
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

}  // namespace det::cli
