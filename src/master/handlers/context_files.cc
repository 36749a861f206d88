#include "master/handlers/context_files.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "api/wire.h"
#include "common/archive.h"
#include "common/base64.h"
#include "common/status_macros.h"

namespace det::master {
namespace {

using nlohmann::json;

constexpr int kTarTypeRegular = 48;    // '0'
constexpr int kTarTypeDirectory = 53;  // '5'

}  // namespace

absl::StatusOr<std::string> ContextTarGz(const json& files, const std::string& field, const std::string& what,
                                         int64_t max_bytes) {
  std::vector<ArchiveEntry> out;
  if (files.is_null()) return std::string();
  if (!files.is_array()) return absl::InvalidArgumentError(absl::StrCat(field, " must be a list of files"));
  int64_t total = 0;
  for (const json& f : files) {
    ArchiveEntry e;
    e.path = api::StringField(f, "path");
    if (e.path.empty()) return absl::InvalidArgumentError(absl::StrCat(field, "[]: every file needs a path"));
    int64_t type = kTarTypeRegular;
    if (const json* t = api::FindField(f, "type")) {
      ASSIGN_OR_RETURN(type, api::ReadInt64(*t, absl::StrCat(field, "[].type")));
    }
    e.is_directory = type == kTarTypeDirectory;
    if (const json* m = api::FindField(f, "mode")) {
      ASSIGN_OR_RETURN(int64_t mode, api::ReadInt64(*m, absl::StrCat(field, "[].mode")));
      e.mode = static_cast<uint32_t>(mode);
    } else {
      e.mode = e.is_directory ? 0755 : 0644;
    }
    if (const json* m = api::FindField(f, "mtime")) {
      ASSIGN_OR_RETURN(e.mtime, api::ReadInt64(*m, absl::StrCat(field, "[].mtime")));
    }
    if (!e.is_directory) {
      absl::StatusOr<std::string> content = Base64Decode(api::StringField(f, "content"));
      if (!content.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(field, ": ", e.path, ": content is not valid base64"));
      }
      e.content = std::move(*content);
      total += static_cast<int64_t>(e.content.size());
    }
    out.push_back(std::move(e));
  }
  if (total > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is too large: ", total / (1 << 20), " MiB of files; the limit is ", max_bytes / (1 << 20),
        " MiB. Add large files (data, checkpoints) to .detignore and load them at run time instead"));
  }
  return CreateTarGz(out);
}


}  // namespace det::master
