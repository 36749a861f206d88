// The pieces of src/api that read untrusted request and response bodies: JSON text, then the field
// helpers (wire.h), the task-log decoder (types_json.h) and the client's error-body decoder
// (errors.h). None may crash; accepted values must satisfy their contracts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "api/errors.h"
#include "api/types_json.h"
#include "api/wire.h"
#include "common/json_yaml.h"

namespace {

// Field names the handlers read, snake_case (FindField also tries lowerCamel).
constexpr const char* kFields[] = {
    "id",    "experiment_id", "trial_id",        "task_id",  "allocation_id", "config", "template",
    "name",  "metrics",       "steps_completed", "rank_id",  "timestamp",     "logs",   "state",
    "limit", "offset",        "username",        "password", "error",         "code",   "message",
    "uuid",  "resources",     "activate",
};

void CheckValue(const nlohmann::json& v) {
  (void)det::api::ReadInt64(v, "value");
  absl::StatusOr<det::api::TaskLog> log = det::api::TaskLogFromJson(v);
  if (log.ok()) {
    if (log->task_id.empty()) std::abort();  // documented: taskId is required
    (void)det::DumpJson(det::api::TaskLogJson(*log));
  }
  if (v.is_string()) (void)det::api::StateEnumName(v.get<std::string>());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);

  // Client side: any HTTP status with any body maps to some non-OK status.
  for (int http : {400, 404, 500, 503}) {
    absl::Status s = det::api::StatusFromErrorResponse(http, text);
    if (s.ok()) {
      std::fprintf(stderr, "error response %d decoded as OK\n", http);
      std::abort();
    }
    (void)det::DumpJson(det::api::ErrorBody(s));
  }

  absl::StatusOr<nlohmann::json> body = det::ParseJson(text);
  if (!body.ok()) return 0;
  (void)det::DumpJson(*body);
  CheckValue(*body);
  for (const char* field : kFields) {
    if (const nlohmann::json* f = det::api::FindField(*body, field)) CheckValue(*f);
    (void)det::api::StringField(*body, field);
  }
  if (body->is_object() || body->is_array()) {
    for (const nlohmann::json& item : *body) CheckValue(item);
  }
  return 0;
}
