#include "agent/rest_log_sink.h"

#include <nlohmann/json.hpp>

#include "api/errors.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::agent {

std::optional<int> RankOfLine(std::string_view text) {
  constexpr std::string_view kPrefix = "[rank=";
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  size_t end = text.find("] ", kPrefix.size());
  if (end == std::string_view::npos || end == kPrefix.size() || end - kPrefix.size() > 6) return std::nullopt;
  int rank = 0;
  for (char c : text.substr(kPrefix.size(), end - kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    rank = rank * 10 + (c - '0');
  }
  return rank;
}

std::string EncodeLogBatch(const LogMetadata& meta, const std::vector<LogLine>& lines) {
  nlohmann::json logs = nlohmann::json::array();
  for (const LogLine& line : lines) {
    std::optional<int> rank = RankOfLine(line.text);
    logs.push_back({{"taskId", meta.task_id},
                    {"allocationId", meta.allocation_id},
                    {"agentId", meta.agent_id},
                    {"containerId", meta.container_id},
                    {"timestamp", FormatRfc3339(line.time)},
                    {"log", line.text + "\n"},
                    {"stdtype", StdTypeName(line.stdtype)},
                    {"source", "task"},
                    {"level", "LOG_LEVEL_INFO"}});
    if (rank.has_value()) logs.back()["rankId"] = *rank;
  }
  nlohmann::json body = {{"logs", std::move(logs)}};
  return DumpJson(body);
}

RestLogSink::RestLogSink(std::string master_url, std::string allocation_token, LogMetadata meta,
                         client::TlsOptions tls)
    : meta_(std::move(meta)),
      client_(
          std::move(master_url),
          client::Credentials{.user_token = "", .allocation_token = std::move(allocation_token)},
          std::move(tls)) {
  client_.set_timeout_seconds(30);
}

absl::Status RestLogSink::Post(const std::vector<LogLine>& lines) {
  ASSIGN_OR_RETURN(client::RawResponse resp,
                   client_.Send("POST", "/api/v1/task/logs", EncodeLogBatch(meta_, lines)));
  if (resp.status < 200 || resp.status >= 300) {
    return api::StatusFromErrorResponse(resp.status, resp.body);
  }
  return absl::OkStatus();
}

}  // namespace det::agent
