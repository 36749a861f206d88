#include "agent/rest_log_sink.h"

#include <nlohmann/json.hpp>

#include "api/errors.h"
#include "common/json_yaml.h"
#include "common/status_macros.h"

namespace det::agent {

std::string EncodeLogBatch(const LogMetadata& meta, const std::vector<LogLine>& lines) {
  nlohmann::json logs = nlohmann::json::array();
  for (const LogLine& line : lines) {
    logs.push_back({{"taskId", meta.task_id},
                    {"allocationId", meta.allocation_id},
                    {"agentId", meta.agent_id},
                    {"containerId", meta.allocation_id},
                    {"timestamp", FormatRfc3339(line.time)},
                    {"log", line.text + "\n"},
                    {"stdtype", StdTypeName(line.stdtype)},
                    {"source", "task"},
                    {"level", "LOG_LEVEL_INFO"}});
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
