#include "common/base64.h"

#include "absl/strings/escaping.h"

namespace det {

std::string Base64Encode(std::string_view data) { return absl::Base64Escape(absl::string_view(data.data(), data.size())); }

absl::StatusOr<std::string> Base64Decode(std::string_view text) {
  std::string out;
  if (!absl::Base64Unescape(absl::string_view(text.data(), text.size()), &out)) {
    return absl::InvalidArgumentError("invalid base64 data");
  }
  return out;
}

}  // namespace det
