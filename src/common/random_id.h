#pragma once
#include <string>

namespace det {

// Random version-4 UUID in canonical lowercase form. Thread-safe.
std::string NewUuid();
// `bytes` random bytes from the OS CSPRNG, hex encoded. Thread-safe.
std::string RandomHex(int bytes);

}  // namespace det
