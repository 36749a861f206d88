#pragma once
// Ships log batches to `POST /api/v1/task/logs` with the allocation token.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/log_sink.h"
#include "client/rest_client.h"

namespace det::agent {

// The request body: {"logs":[{"taskId","allocationId","agentId","containerId","timestamp","log",
// "stdtype","source","level"}]}. Bytes that are not UTF-8 become U+FFFD, since JSON cannot carry
// them.
std::string EncodeLogBatch(const LogMetadata& meta, const std::vector<LogLine>& lines);

// The rank of a line that determined.launch.wrap_rank prefixed with "[rank=N] "; it becomes the log's rankId.
std::optional<int> RankOfLine(std::string_view text);

class RestLogSink : public LogSink {
 public:
  RestLogSink(std::string master_url, std::string allocation_token, LogMetadata meta,
              client::TlsOptions tls = {});
  absl::Status Post(const std::vector<LogLine>& lines) override;

 private:
  LogMetadata meta_;
  client::RestClient client_;
};

}  // namespace det::agent
