#include "common/random_id.h"

#include <openssl/rand.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "absl/strings/escaping.h"

namespace det {
namespace {

std::vector<uint8_t> RandomBytes(int n) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  // Failure of the OS CSPRNG is not a recoverable input error.
  if (RAND_bytes(out.data(), n) != 1) std::abort();
  return out;
}

}  // namespace

std::string NewUuid() {
  std::vector<uint8_t> b = RandomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  char buf[37];
  std::snprintf(buf, sizeof buf,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return buf;
}

std::string RandomHex(int bytes) {
  std::vector<uint8_t> b = RandomBytes(bytes);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

}  // namespace det
