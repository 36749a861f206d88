#pragma once
// Test-only: how a fuzz target reports a broken property (libFuzzer counts the abort as a crash and
// keeps the input).
#include <cstdio>
#include <cstdlib>
#include <string>

namespace det::fuzz {

// Prints what failed and the two texts that disagree, then aborts.
[[noreturn]] inline void Fail(const char* what, const std::string& first, const std::string& second) {
  std::fprintf(stderr, "%s\n--- first:\n%s\n--- second:\n%s\n", what, first.c_str(), second.c_str());
  std::abort();
}

}  // namespace det::fuzz
