#include "common/ssh_keys.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base64.h"

namespace det {
namespace {

// SSH wire format (RFC 4251 §5): a string is a 4-byte big-endian length and the bytes; an mpint is
// the number's big-endian bytes as a string, with a 0 byte in front when the top bit is set.
void AppendString(std::string& out, std::string_view bytes) {
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xff));
  out.append(bytes);
}

void AppendMpint(std::string& out, const BIGNUM* value) {
  std::vector<unsigned char> bytes(static_cast<size_t>(BN_num_bytes(value)));
  BN_bn2bin(value, bytes.data());
  std::string mpint;
  if (!bytes.empty() && (bytes.front() & 0x80) != 0) mpint.push_back('\0');
  mpint.append(bytes.begin(), bytes.end());
  AppendString(out, mpint);
}

}  // namespace

absl::StatusOr<SshKeyPair> GenerateSshKeyPair() {
  std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY*)> key(EVP_RSA_gen(2048), &EVP_PKEY_free);
  if (!key) return absl::InternalError("could not generate an RSA key pair");
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!PEM_write_bio_PrivateKey_traditional(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
    return absl::InternalError("could not write the private key");
  }
  char* pem = nullptr;
  long pem_size = BIO_get_mem_data(bio.get(), &pem);
  SshKeyPair pair;
  pair.private_key.assign(pem, static_cast<size_t>(pem_size));

  BIGNUM* n = nullptr;
  BIGNUM* e = nullptr;
  if (!EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_RSA_N, &n) ||
      !EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_RSA_E, &e)) {
    BN_free(n);
    return absl::InternalError("could not read the public key");
  }
  std::string blob;
  AppendString(blob, "ssh-rsa");
  AppendMpint(blob, e);
  AppendMpint(blob, n);
  BN_free(n);
  BN_free(e);
  pair.public_key = absl::StrCat("ssh-rsa ", Base64Encode(blob), " determined");
  return pair;
}

}  // namespace det
