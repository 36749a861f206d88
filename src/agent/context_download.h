#pragma once
// Fetches a task's model definition (its context directory) from the master and unpacks it.
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "client/rest_client.h"

namespace det::agent {

// GET /api/v1/tasks/{task_id}/context_directory -> {"b64Tgz": "..."}; extracts the archive under
// `dest`. An empty b64Tgz means the task has no context and leaves `dest` as it is. `client` must
// carry the task's allocation token.
absl::Status DownloadContext(client::RestClient& client, const std::string& task_id,
                             const std::filesystem::path& dest);

}  // namespace det::agent
