#pragma once
// Reading answers from the user. On a terminal the prompt goes to stderr and, for passwords, echo
// is turned off; otherwise one line is read from stdin with no prompt (scripts pipe answers in).
#include <string>

#include "absl/status/statusor.h"

namespace det::cli {

bool StdinIsTerminal();
// One line without its newline; NotFound at end of input.
absl::StatusOr<std::string> ReadLine(const std::string& prompt);
absl::StatusOr<std::string> ReadPassword(const std::string& prompt);
// Asks `question` with " [y/N] " appended: true for "y" or "yes" (any case), false for anything else
// and at end of input.
bool Confirm(const std::string& question);

}  // namespace det::cli
