#include "common/crypto.h"

#include <crypt.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
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

absl::StatusOr<std::string> Sha256FileHex(const std::filesystem::path& file) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (f == nullptr) return absl::InternalError(absl::StrCat("cannot read ", file.string(), ": ", std::strerror(errno)));
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) EVP_DigestUpdate(ctx.get(), buf.data(), n);
  if (std::ferror(f.get())) return absl::InternalError(absl::StrCat("cannot read ", file.string()));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<char*>(digest), len));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

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
