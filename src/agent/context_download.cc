#include "agent/context_download.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/archive.h"
#include "common/base64.h"
#include "common/status_macros.h"

namespace det::agent {

absl::Status DownloadContext(client::RestClient& client, const std::string& task_id,
                             const std::filesystem::path& dest) {
  std::string path =
      absl::StrCat("/api/v1/tasks/", client::UrlEncode(task_id), "/context_directory");
  absl::StatusOr<nlohmann::json> resp = client.Get(path);
  if (!resp.ok()) {
    return absl::Status(resp.status().code(),
                        absl::StrCat("downloading the context directory of task ", task_id, ": ",
                                     resp.status().message()));
  }
  auto it = resp->find("b64Tgz");
  if (it == resp->end() || it->is_null()) return absl::OkStatus();
  if (!it->is_string()) {
    return absl::InternalError(
        absl::StrCat("context directory of task ", task_id, ": b64Tgz is not a string"));
  }
  const std::string& b64 = it->get_ref<const std::string&>();
  if (b64.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> tgz = Base64Decode(b64);
  if (!tgz.ok()) {
    return absl::InternalError(absl::StrCat("context directory of task ", task_id,
                                            ": bad base64: ", tgz.status().message()));
  }
  absl::Status extracted = ExtractTarGz(*tgz, dest);
  if (!extracted.ok()) {
    return absl::Status(extracted.code(),
                        absl::StrCat("extracting the context directory of task ", task_id, " into ",
                                     dest.string(), ": ", extracted.message()));
  }
  return absl::OkStatus();
}

}  // namespace det::agent
