#include "storage/checkpoint_resources.h"

#include <system_error>

#include "absl/strings/str_cat.h"

namespace det::storage {
namespace fs = std::filesystem;

absl::StatusOr<std::map<std::string, int64_t>> ListResources(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat("checkpoint directory ", dir.string(), " not found"));
  }
  std::map<std::string, int64_t> out;
  fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::string rel = e.path().lexically_relative(dir).generic_string();
    std::error_code e2;
    if (e.is_directory(e2)) {
      out[rel + "/"] = 0;
    } else if (e.is_regular_file(e2)) {
      auto size = e.file_size(e2);
      if (e2) {
        return absl::InternalError(
            absl::StrCat("cannot read the size of ", e.path().string(), ": ", e2.message()));
      }
      out[rel] = static_cast<int64_t>(size);
    }  // sockets, fifos and dangling links are not checkpoint content
  }
  if (ec) {
    return absl::InternalError(absl::StrCat("cannot list ", dir.string(), ": ", ec.message()));
  }
  return out;
}

}  // namespace det::storage
