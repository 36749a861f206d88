#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace det {

std::string Sha256Hex(std::string_view data);
std::string Sha512Hex(std::string_view data);
// Hex SHA-256 of a file's bytes, read in 1 MiB pieces.
absl::StatusOr<std::string> Sha256FileHex(const std::filesystem::path& file);
// Raw (32-byte) HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);

// Upstream's client-side password hash: hex(sha512("GubPEmmotfiK9TMD6Zdw" + plain)); "" stays "".
std::string ClientSidePasswordHash(std::string_view plain);

// bcrypt ($2b$, cost 10) through libxcrypt. Inputs beyond 72 bytes are ignored, as bcrypt does.
absl::StatusOr<std::string> BcryptHash(std::string_view password);
bool BcryptVerify(std::string_view password, const std::string& hash);

}  // namespace det
