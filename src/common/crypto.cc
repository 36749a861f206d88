#include "common/crypto.h"

#include <crypt.h>
#include <openssl/evp.h>

#include <cstring>

#include "absl/strings/escaping.h"
#include "common/random_id.h"

namespace det {
namespace {

constexpr std::string_view kClientSalt = "GubPEmmotfiK9TMD6Zdw";

std::string DigestHex(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<char*>(out), len));
}

}  // namespace

std::string Sha256Hex(std::string_view data) { return DigestHex(EVP_sha256(), data); }
std::string Sha512Hex(std::string_view data) { return DigestHex(EVP_sha512(), data); }

std::string ClientSidePasswordHash(std::string_view plain) {
  if (plain.empty()) return "";
  std::string salted(kClientSalt);
  salted.append(plain);
  return Sha512Hex(salted);
}

absl::StatusOr<std::string> BcryptHash(std::string_view password) {
  std::string pw(password.substr(0, 72));
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", 10, nullptr, 0, salt, sizeof salt) == nullptr) {
    return absl::InternalError("crypt_gensalt failed");
  }
  crypt_data data;
  std::memset(&data, 0, sizeof data);
  const char* hashed = crypt_r(pw.c_str(), salt, &data);
  if (hashed == nullptr || hashed[0] == '*') return absl::InternalError("bcrypt failed");
  return std::string(hashed);
}

bool BcryptVerify(std::string_view password, const std::string& hash) {
  std::string pw(password.substr(0, 72));
  crypt_data data;
  std::memset(&data, 0, sizeof data);
  const char* hashed = crypt_r(pw.c_str(), hash.c_str(), &data);
  if (hashed == nullptr || hashed[0] == '*') return false;
  // Constant-time compare: the lengths are public (fixed by the format).
  size_t n = std::strlen(hashed);
  if (n != hash.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(hashed[i] ^ hash[i]);
  return diff == 0;
}

}  // namespace det
