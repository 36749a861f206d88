#pragma once
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace det {

// Standard base64 (RFC 4648, with padding), as protobuf's JSON mapping uses for `bytes`.
std::string Base64Encode(std::string_view data);
absl::StatusOr<std::string> Base64Decode(std::string_view text);

}  // namespace det
