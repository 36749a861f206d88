#pragma once
// The CLI's environment variables.
#include <cstdlib>
#include <string>

namespace det::cli {

// The variable's value, "" when it is unset.
inline std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace det::cli
