#include "common/file_util.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace det {

absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path.string()));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path.string()));
  return buf.str();
}

absl::Status WriteFile(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", tmp.string()));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) return absl::DataLossError(absl::StrCat("error writing ", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return absl::InternalError(absl::StrCat("rename to ", path.string(), ": ", ec.message()));
  return absl::OkStatus();
}

absl::Status MakeDirs(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat("mkdir ", path.string(), ": ", ec.message()));
  return absl::OkStatus();
}

}  // namespace det
