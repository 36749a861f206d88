#pragma once
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace det {

std::string Sha256Hex(std::string_view data);
std::string Sha512Hex(std::string_view data);

// Upstream's client-side password hash: hex(sha512("GubPEmmotfiK9TMD6Zdw" + plain)); "" stays "".
std::string ClientSidePasswordHash(std::string_view plain);

// bcrypt ($2b$, cost 10) through libxcrypt. Inputs beyond 72 bytes are ignored, as bcrypt does.
absl::StatusOr<std::string> BcryptHash(std::string_view password);
bool BcryptVerify(std::string_view password, const std::string& hash);

}  // namespace det
