#include "cli/prompt.h"

#include <termios.h>
#include <unistd.h>

#include <iostream>

#include "absl/strings/ascii.h"

namespace det::cli {
namespace {

absl::StatusOr<std::string> ReadStdinLine() {
  std::string line;
  if (!std::getline(std::cin, line)) {
    if (std::cin.eof() && !line.empty()) return line;
    return absl::NotFoundError("no input: stdin ended before an answer was given");
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

bool StdinIsTerminal() { return ::isatty(STDIN_FILENO) == 1; }

absl::StatusOr<std::string> ReadLine(const std::string& prompt) {
  if (StdinIsTerminal()) {
    std::cerr << prompt << std::flush;
  }
  return ReadStdinLine();
}

bool Confirm(const std::string& question) {
  absl::StatusOr<std::string> answer = ReadLine(question + " [y/N] ");
  std::string a = answer.ok() ? absl::AsciiStrToLower(absl::StripAsciiWhitespace(*answer)) : "";
  return a == "y" || a == "yes";
}

absl::StatusOr<std::string> ReadPassword(const std::string& prompt) {
  if (!StdinIsTerminal()) return ReadStdinLine();
  std::cerr << prompt << std::flush;
  termios old_attrs{};
  bool restore = ::tcgetattr(STDIN_FILENO, &old_attrs) == 0;
  if (restore) {
    termios quiet = old_attrs;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ECHONL;
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  absl::StatusOr<std::string> line = ReadStdinLine();
  if (restore) ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &old_attrs);
  return line;
}

}  // namespace det::cli
