#pragma once
// Words for a POSIX shell command line (ssh's remote commands, Slurm batch scripts, su -c).
#include <string>
#include <vector>

namespace det {

// `s` as one word for a POSIX shell: unchanged when it holds only [A-Za-z0-9_@%+=:,./-] (and is
// not empty), else in single quotes with each ' written as '\''.
std::string ShellQuote(const std::string& s);
// The words, each quoted (ShellQuote), joined by spaces.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace det
